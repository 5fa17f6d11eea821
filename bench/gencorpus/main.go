// Command gencorpus writes a deterministic synthetic corpus of pi coding-agent
// session files (format v3, as written by pi 1.6.0) for benchmarking.
//
//	go run ./bench/gencorpus -out DIR -files 3000 -size 1.7GB -seed 1
//
// Layout: DIR/--home-user-proj-NN--/<header ts with ':' and '.' as '-'>_<session id>.jsonl
// Every line is compact JSON terminated by "\n", keys in the order pi writes
// them, strings escaped like JSON.stringify. Output depends only on the flags
// (not on -workers or scheduling).
//
// -text realistic takes the text from the Go installation (doc comments,
// docs, sources, test data; see realistic.go) plus hand-written CJK chat
// (cjk.go), and -plant N plants rare words with an exact ground-truth
// manifest OUT/../<base>.plants.json (plants.go). -forks N makes N sessions
// forks of earlier ones, with copies of their entries (fork.go). See
// bench/README.md.
package main

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

type config struct {
	out      string
	files    int
	size     int64
	seed     uint64
	projects int
	workers  int
	force    bool
	quiet    bool
	text     string // "synthetic" ("" too) or "realistic"
	plant    int    // planted rare words (-1: 50 with -text realistic, else 0)
	goroot   string // -text realistic source ("": go env GOROOT)
	forks    int    // sessions that are forks of an earlier one (fork.go)
	shape    string // "classic" ("" too) or "real" (shape.go)
}

func main() {
	var cfg config
	var sizeStr string
	flag.StringVar(&cfg.out, "out", "", "output sessions root (required)")
	flag.IntVar(&cfg.files, "files", 3000, "number of session files")
	flag.StringVar(&sizeStr, "size", "1.7GB", "approximate total size (suffix B, KB, MB, GB = powers of 1000; KiB, MiB, GiB = powers of 1024)")
	flag.Uint64Var(&cfg.seed, "seed", 1, "random seed (output is a pure function of all flags except -workers)")
	flag.IntVar(&cfg.projects, "projects", 40, "number of project folders")
	flag.IntVar(&cfg.workers, "workers", runtime.GOMAXPROCS(0), "parallel writers (does not change output)")
	flag.BoolVar(&cfg.force, "force", false, "allow a non-empty -out directory (files with the same names are overwritten, others are left alone)")
	flag.BoolVar(&cfg.quiet, "q", false, "no summary on stderr")
	flag.StringVar(&cfg.text, "text", "synthetic", "where text comes from: synthetic (small fixed vocabulary) or realistic (Go doc comments, docs, sources and test data from GOROOT, plus CJK chat)")
	flag.IntVar(&cfg.plant, "plant", -1, "plant N invented rare words and write the ground-truth manifest OUT/../<base>.plants.json (default 50 with -text realistic, 0 otherwise)")
	flag.IntVar(&cfg.forks, "forks", 0, "make N sessions real forks of an earlier session of their project, as pi's forkFrom and createBranchedSession write them (copies of its entries, then entries of their own)")
	flag.StringVar(&cfg.shape, "shape", "classic", "sizes and frequencies of entries: classic (as before -shape existed; entries about 40% larger than real ones) or real (tuned to real pi session files; what bench/ scripts use)")
	flag.StringVar(&cfg.goroot, "goroot", "", "Go installation that -text realistic reads (default: go env GOROOT)")
	flag.Parse()
	if cfg.out == "" {
		fmt.Fprintln(os.Stderr, "gencorpus: -out is required")
		flag.Usage()
		os.Exit(2)
	}
	var err error
	cfg.size, err = parseSize(sizeStr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gencorpus:", err)
		os.Exit(2)
	}
	st, err := generate(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gencorpus:", err)
		os.Exit(1)
	}
	if !cfg.quiet {
		st.print(os.Stderr, cfg)
	}
	writeMemProfile()
}

func parseSize(s string) (int64, error) {
	t := strings.TrimSpace(strings.ToUpper(s))
	units := []struct {
		suf string
		m   float64
	}{{"KIB", 1 << 10}, {"MIB", 1 << 20}, {"GIB", 1 << 30}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"K", 1e3}, {"M", 1e6}, {"G", 1e9}, {"B", 1}}
	mult := 1.0
	for _, u := range units {
		if strings.HasSuffix(t, u.suf) {
			mult = u.m
			t = strings.TrimSpace(strings.TrimSuffix(t, u.suf))
			break
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || v <= 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, fmt.Errorf("bad -size %q", s)
	}
	return int64(v * mult), nil
}

// ---------------------------------------------------------------------------
// Plan: everything decided sequentially from the master seed.

type filePlan struct {
	idx           int
	project       int
	start         int64 // header timestamp, unix ms
	target        int64 // approximate bytes
	sessionID     string
	name          string // file name
	parentSession string // absolute path of an earlier session, or ""
	fork          *forkPlan
}

const (
	corpusStart = "2025-03-01T00:00:00Z"
	corpusEnd   = "2026-08-31T00:00:00Z"
	uuidv7Since = "2026-04-14T00:00:00Z"
	homeDir     = "/home/user"
)

func projectDir(p, nproj int) string {
	w := len(strconv.Itoa(nproj - 1))
	if w < 2 {
		w = 2
	}
	return fmt.Sprintf("--home-user-proj-%0*d--", w, p)
}

func projectCwd(p, nproj int) string {
	w := len(strconv.Itoa(nproj - 1))
	if w < 2 {
		w = 2
	}
	return fmt.Sprintf("%s/proj-%0*d", homeDir, w, p)
}

func mustTime(s string) int64 {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t.UnixMilli()
}

func logUniform(r *rand.Rand, lo, hi float64) float64 {
	return math.Exp(math.Log(lo) + r.Float64()*(math.Log(hi)-math.Log(lo)))
}

func makePlan(cfg config) []filePlan {
	r := rand.New(rand.NewPCG(cfg.seed, 0x91a4))
	n := cfg.files
	// Size buckets with fixed counts (so the tail is stable across seeds),
	// then a global scale factor to land close to -size.
	nHuge := int(math.Round(float64(n) * 0.003))
	nLarge := int(math.Round(float64(n) * 0.045))
	nMed := int(math.Round(float64(n) * 0.33))
	sizes := make([]float64, 0, n)
	for i := 0; i < nHuge; i++ {
		sizes = append(sizes, logUniform(r, 20e6, 50e6))
	}
	for i := 0; i < nLarge; i++ {
		sizes = append(sizes, logUniform(r, 2e6, 10e6))
	}
	for i := 0; i < nMed; i++ {
		sizes = append(sizes, logUniform(r, 100e3, 2e6))
	}
	for len(sizes) < n {
		sizes = append(sizes, logUniform(r, 10e3, 100e3))
	}
	sizes = sizes[:n]
	// Hit -size by scaling only the small/medium buckets when that needs a
	// moderate factor (keeps the 2-10 MB and 20-50 MB tails in range);
	// otherwise (tiny test corpora, unusual flag combinations) scale everything.
	nFixed := nHuge + nLarge
	if nFixed > n {
		nFixed = n
	}
	fixed, flex := 0.0, 0.0
	for i, s := range sizes {
		if i < nFixed {
			fixed += s
		} else {
			flex += s
		}
	}
	want := float64(cfg.size)
	if k := (want - fixed) / flex; flex > 0 && k >= 0.5 && k <= 2 {
		for i := nFixed; i < n; i++ {
			sizes[i] *= k
		}
	} else {
		k := want / (fixed + flex)
		for i := range sizes {
			sizes[i] *= k
		}
	}
	r.Shuffle(len(sizes), func(i, j int) { sizes[i], sizes[j] = sizes[j], sizes[i] })

	// Start times: denser towards the end (usage grows over time).
	t0, t1 := mustTime(corpusStart), mustTime(corpusEnd)
	starts := make([]int64, n)
	for i := range starts {
		starts[i] = t0 + int64(math.Sqrt(r.Float64())*float64(t1-t0))
	}
	sort.Slice(starts, func(i, j int) bool { return starts[i] < starts[j] })

	// Project popularity: Zipf-like.
	weights := make([]float64, cfg.projects)
	wsum := 0.0
	for i := range weights {
		weights[i] = 1 / math.Pow(float64(i+1), 0.9)
		wsum += weights[i]
	}
	v7 := mustTime(uuidv7Since)
	lastInProject := make([]string, cfg.projects)
	plans := make([]filePlan, n)
	usedIDs := map[string]bool{}
	for i := 0; i < n; i++ {
		x := r.Float64() * wsum
		p := 0
		for p < cfg.projects-1 && x >= weights[p] {
			x -= weights[p]
			p++
		}
		var id string
		for {
			if starts[i] >= v7 {
				id = uuidV7(r, starts[i])
			} else {
				id = uuidV4(r)
			}
			if !usedIDs[id] {
				usedIDs[id] = true
				break
			}
		}
		ts := string(appendISO(nil, starts[i]))
		fname := strings.NewReplacer(":", "-", ".", "-").Replace(ts) + "_" + id + ".jsonl"
		pl := filePlan{idx: i, project: p, start: starts[i], sessionID: id, name: fname}
		pl.target = int64(sizes[i])
		if pl.target < 2000 {
			pl.target = 2000
		}
		if lastInProject[p] != "" && r.Float64() < 0.04 {
			pl.parentSession = lastInProject[p]
		}
		lastInProject[p] = homeDir + "/.pi/agent/sessions/" + projectDir(p, cfg.projects) + "/" + fname
		plans[i] = pl
	}
	return plans
}

func uuidV4(r *rand.Rand) string {
	var b [16]byte
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmtUUID(b)
}

func uuidV7(r *rand.Rand, ms int64) string {
	var b [16]byte
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	for i := 0; i < 6; i++ {
		b[i] = byte(ms >> (8 * (5 - i)))
	}
	b[6] = b[6]&0x0f | 0x70
	b[8] = b[8]&0x3f | 0x80
	return fmtUUID(b)
}

func fmtUUID(b [16]byte) string {
	const hex = "0123456789abcdef"
	out := make([]byte, 0, 36)
	for i, c := range b {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			out = append(out, '-')
		}
		out = append(out, hex[c>>4], hex[c&0xf])
	}
	return string(out)
}

// ---------------------------------------------------------------------------
// Stats.

type stats struct {
	mu           sync.Mutex
	files        int
	bytes        int64
	entries      int64
	lines1MB     int64 // lines >= 1 MiB
	maxLine      int
	maxLineFile  string
	maxFile      int64
	maxFileName  string
	compactions  int64
	branchFiles  int
	branchPoints int64
	images       int64
	forks        map[byte]int // by fork kind
	copied       int64        // entries copied by forks
	projectsUsed map[int]bool
	formats      [4]int // files by format version
	elapsed      time.Duration

	users, cjkUsers, texts, cjkTexts int64
	plantFiles                       map[int32][]string // planted word -> files, as recorded by the generator
	pools                            *pools
	manifest                         map[string][]string
	manifestPath                     string
	verify                           time.Duration
}

func (s *stats) add(fs *fileStats, rel string, project int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.files++
	s.bytes += fs.bytes
	s.entries += fs.entries
	s.lines1MB += fs.lines1MB
	s.compactions += fs.compactions
	s.images += fs.images
	if fs.branchPoints > 0 {
		s.branchFiles++
		s.branchPoints += fs.branchPoints
	}
	if fs.maxLine > s.maxLine {
		s.maxLine, s.maxLineFile = fs.maxLine, rel
	}
	if fs.bytes > s.maxFile {
		s.maxFile, s.maxFileName = fs.bytes, rel
	}
	s.projectsUsed[project] = true
	s.formats[fs.format]++
	if fs.forkKind != 0 {
		s.forks[fs.forkKind]++
		s.copied += fs.copied
	}
	s.users += fs.users
	s.cjkUsers += fs.cjkUsers
	s.texts += fs.texts
	s.cjkTexts += fs.cjkTexts
	for i, w := range fs.plants {
		if !slices.Contains(fs.plants[:i], w) {
			s.plantFiles[w] = append(s.plantFiles[w], filepath.ToSlash(rel))
		}
	}
}

func (s *stats) print(w *os.File, cfg config) {
	sec := s.elapsed.Seconds()
	fmt.Fprintf(w, "gencorpus: out=%s seed=%d shape=%s\n", cfg.out, cfg.seed, cmp.Or(cfg.shape, "classic"))
	fmt.Fprintf(w, "  files        %d (in %d project folders)\n", s.files, len(s.projectsUsed))
	fmt.Fprintf(w, "  bytes        %d (%.1f MB, %.2f GiB; requested %d)\n", s.bytes, float64(s.bytes)/1e6, float64(s.bytes)/(1<<30), cfg.size)
	fmt.Fprintf(w, "  entries      %d (excluding headers)\n", s.entries)
	fmt.Fprintf(w, "  largest file %d bytes  %s\n", s.maxFile, s.maxFileName)
	fmt.Fprintf(w, "  largest line %d bytes  %s\n", s.maxLine, s.maxLineFile)
	fmt.Fprintf(w, "  lines >=1MiB %d, image blocks %d, compactions %d, files with in-file branches %d (%d branch points)\n",
		s.lines1MB, s.images, s.compactions, s.branchFiles, s.branchPoints)
	if s.formats[3] != s.files {
		fmt.Fprintf(w, "  formats      %d v1, %d v2, %d v3 files (the format pi wrote at each session's start)\n", s.formats[1], s.formats[2], s.formats[3])
	}
	if len(s.forks) > 0 {
		fmt.Fprintf(w, "  forks        %d whole-file (forkFrom), %d branched before a user message, %d branched at the leaf; %d entries copied\n",
			s.forks[forkWhole], s.forks[forkBefore], s.forks[forkAt], s.copied)
	}
	fmt.Fprintf(w, "  elapsed      %.2fs (%.0f MB/s, %d workers)\n", sec, float64(s.bytes)/1e6/sec, cfg.workers)
	if ri := s.pools.real; ri != nil {
		fmt.Fprintf(w, "  text         realistic from %s (%s): %d files, %.1f MB read, pools built in %.2fs (included above)\n",
			ri.goroot, ri.version, ri.filesRead, float64(ri.bytesRead)/1e6, ri.build.Seconds())
		fmt.Fprintf(w, "  cjk          %d of %d user messages, %d of %d assistant texts\n", s.cjkUsers, s.users, s.cjkTexts, s.texts)
	}
	if s.manifest != nil {
		fmt.Fprintf(w, "  plants       %s; manifest %s (checked by a scan in %.2fs)\n", plantSummary(s.manifest), s.manifestPath, s.verify.Seconds())
	}
}

// ---------------------------------------------------------------------------

func generate(cfg config) (*stats, error) {
	if cfg.files <= 0 || cfg.projects <= 0 {
		return nil, errors.New("-files and -projects must be > 0")
	}
	if cfg.workers <= 0 {
		cfg.workers = 1
	}
	if ents, err := os.ReadDir(cfg.out); err == nil && len(ents) > 0 && !cfg.force {
		return nil, fmt.Errorf("%s is not empty (use -force to write into it anyway)", cfg.out)
	}
	if cfg.plant > maxPlants {
		return nil, fmt.Errorf("-plant must be at most %d", maxPlants)
	}
	sh, err := shapeByName(cfg.shape)
	if err != nil {
		return nil, err
	}
	begin := time.Now()
	plans := makePlan(cfg)
	minOrig := int64(math.MinInt64)
	if sh.eras {
		minOrig = v3Since
	}
	if err := planForks(plans, cfg.forks, cfg.seed, cfg.projects, minOrig); err != nil {
		return nil, err
	}
	var pl *pools
	switch cfg.text {
	case "", "synthetic":
		pl = buildPools(cfg.seed)
		if cfg.plant < 0 {
			cfg.plant = 0
		}
	case "realistic":
		if pl, err = realPools(cfg.seed, cfg.goroot); err != nil {
			return nil, err
		}
		if cfg.plant < 0 {
			cfg.plant = 50
		}
	default:
		return nil, fmt.Errorf("-text must be synthetic or realistic, not %q", cfg.text)
	}
	var pp *plantPlan
	if cfg.plant > 0 {
		pp = planPlants(cfg, plans)
	}
	for p := 0; p < cfg.projects; p++ {
		if err := os.MkdirAll(filepath.Join(cfg.out, projectDir(p, cfg.projects)), 0o755); err != nil {
			return nil, err
		}
	}
	st := &stats{projectsUsed: map[int]bool{}, plantFiles: map[int32][]string{}, pools: pl, forks: map[byte]int{}}
	// Forks read their originals back, so they are written after all others.
	var firsts, forks []int
	for i, p := range plans {
		if p.fork == nil {
			firsts = append(firsts, i)
		} else {
			forks = append(forks, i)
		}
	}
	for _, pass := range [][]int{firsts, forks} {
		if err := writeFiles(cfg, plans, pass, pl, sh, pp, st); err != nil {
			return nil, err
		}
	}
	st.elapsed = time.Since(begin)
	if pp != nil {
		t := time.Now()
		m, err := checkPlants(cfg, plans, pp, st.plantFiles)
		if err != nil {
			return nil, err
		}
		if st.manifestPath, err = manifestPath(cfg.out); err != nil {
			return nil, err
		}
		if err := writeManifest(st.manifestPath, m); err != nil {
			return nil, err
		}
		st.manifest = m
		st.verify = time.Since(t)
	}
	return st, nil
}

// writeFiles writes the files idxs of plans with cfg.workers writers.
func writeFiles(cfg config, plans []filePlan, idxs []int, pl *pools, sh *shapeParams, pp *plantPlan, st *stats) error {
	jobs := make(chan int)
	errc := make(chan error, cfg.workers)
	var wg sync.WaitGroup
	for w := 0; w < cfg.workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			g := newGen(pl, cfg, sh, pp)
			for i := range jobs {
				p := plans[i]
				rel := filepath.Join(projectDir(p.project, cfg.projects), p.name)
				var orig []byte
				var err error
				if p.fork != nil {
					o := plans[p.fork.orig]
					orig, err = os.ReadFile(filepath.Join(cfg.out, projectDir(o.project, cfg.projects), o.name))
				}
				var fs *fileStats
				if err == nil {
					fs, err = g.writeFile(filepath.Join(cfg.out, rel), p, orig)
				}
				if err != nil {
					errc <- err
					for range jobs {
					}
					return
				}
				st.add(fs, rel, p.project)
			}
		}()
	}
	// Largest first, so the tail does not leave one worker busy at the end.
	order := slices.Clone(idxs)
	sort.SliceStable(order, func(a, b int) bool { return plans[order[a]].target > plans[order[b]].target })
	for _, i := range order {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	close(errc)
	return <-errc
}
