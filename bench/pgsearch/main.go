// Command pgsearch measures how PostgreSQL can answer pidex's search
// language with today's recall (docs/postgres.md, "Search"): it reads the
// searchable text of a sessions root (go run ./bench/gencorpus -text
// realistic), loads it into two designs — tsvector (GIN) over FTS5's own
// tokens, and pg_trgm (GIN) over the same tokens as a stream for LIKE —
// and into today's FTS5 index, then reports load rate, sizes, and the
// latency and recall of a set of queries (recall: each answer against the
// reference matcher's scan of every entry).
//
//	go run ./bench/pgsearch -corpus /work/scratch/pgsearch/r400 -url postgres://…/empty_db
//
// or, on a throwaway cluster of its own (internal/pgtest):
//
//	PIDEX_BENCH_CORPUS=/work/scratch/pgsearch/r400 go test ./bench/pgsearch -run TestMeasure -v -timeout 1h
package main

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/pidex-dev/pidex/internal/fts"
	"github.com/pidex-dev/pidex/internal/pgsearch"
	"github.com/pidex-dev/pidex/pi"
	"github.com/pidex-dev/pidex/schema"
)

func main() {
	corpus := flag.String("corpus", "", "sessions root to read (required)")
	url := flag.String("url", "", "postgres:// URL of an empty database (required)")
	mb := flag.Int("mb", 0, "read at most this many MB of text (0: all)")
	tmp := flag.String("tmp", os.TempDir(), "folder for the FTS5 baseline's file")
	flag.Parse()
	if *corpus == "" || *url == "" {
		flag.Usage()
		os.Exit(2)
	}
	db, err := sql.Open("pgx", *url)
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	if err := Measure(context.Background(), db, Options{Corpus: *corpus, MaxText: int64(*mb) << 20, Tmp: *tmp}, os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// Options say what to measure.
type Options struct {
	Corpus  string
	MaxText int64 // bytes of text; 0: all
	Tmp     string
}

// probe is a query of the measurement.
type probe struct {
	kind, q string
	newest  bool // also the newest 5,000 matches (query.RankCap)
}

func probes(plants []string) []probe {
	ps := []probe{}
	for _, w := range plants {
		ps = append(ps, probe{kind: "rare (planted)", q: w})
	}
	return append(ps, []probe{
		{"common", "the", true}, {"common", "err", true}, {"common", "func", true},
		{"medium", "goroutine", false}, {"medium", "deadlock", false},
		{"identifier", "t.Fatalf", false}, {"identifier", "net/http", false}, {"identifier", "io.EOF", false},
		{"phrase", `"if err != nil"`, true}, {"phrase", `"for example"`, false}, {"phrase", `"the file"`, false},
		{"prefix", "migrat*", false}, {"prefix", "goroutin*", false}, {"prefix", "un*", true}, {"prefix", "検*", false},
		{"CJK", "検索", false}, {"CJK", "数据库", false}, {"CJK", "インデックス", false}, {"CJK", "검색", false},
		{"CJK", "测试通过", false}, {"CJK", "テスト", false},
		{"boolean", "deadlock OR mutex", false}, {"boolean", "error -nil", true},
		{"boolean", "goroutine -(channel OR mutex)", false}, {"boolean", `"return nil" -err`, false},
	}...)
}

// readCorpus reads every line of the root's session files, in the order
// of their names (pi names a file after its start time), and keeps the
// entries with searchable text, numbered from 1.
func readCorpus(root string, max int64) (docs []Doc, lines [][]byte, fileBytes int64, err error) {
	files, err := filepath.Glob(filepath.Join(root, "*", "*.jsonl"))
	if err != nil {
		return nil, nil, 0, err
	}
	sort.Slice(files, func(i, j int) bool { return filepath.Base(files[i]) < filepath.Base(files[j]) })
	var text int64
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			return nil, nil, 0, err
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(make([]byte, 1<<20), 256<<20)
		for sc.Scan() {
			raw := slices.Clone(sc.Bytes())
			fileBytes += int64(len(raw)) + 1
			lines = append(lines, raw)
			l, _ := schema.DecodeLine(raw)
			if l == nil {
				continue
			}
			if s := pi.Text(l); s != "" {
				docs = append(docs, Doc{ID: int64(len(docs) + 1), Text: strings.ToValidUTF8(strings.ReplaceAll(s, "\x00", " "), "\uFFFD")})
				text += int64(len(s))
			}
		}
		fh.Close()
		if err := sc.Err(); err != nil {
			return nil, nil, 0, fmt.Errorf("%s: %w", f, err)
		}
		if max > 0 && text >= max {
			break
		}
	}
	return docs, lines, fileBytes, nil
}

func readPlants(root string) []string {
	b, err := os.ReadFile(filepath.Join(filepath.Dir(root), filepath.Base(root)+".plants.json"))
	if err != nil {
		return nil
	}
	var m map[string][]string
	if json.Unmarshal(b, &m) != nil {
		return nil
	}
	var out []string
	for _, w := range []string{"zqplant0001", "zqplant0002", "Zürichplant07", "鼷鼱", "ゾルヴァキン", "퀣뷁"} {
		if _, ok := m[w]; ok {
			out = append(out, w)
		}
	}
	return out
}

// Measure runs the whole measurement and writes the report.
func Measure(ctx context.Context, db *sql.DB, o Options, w io.Writer) error {
	start := time.Now()
	docs, lines, fileBytes, err := readCorpus(o.Corpus, o.MaxText)
	if err != nil {
		return err
	}
	var textBytes, lineBytes int64
	for _, d := range docs {
		textBytes += int64(len(d.Text))
	}
	for _, l := range lines {
		lineBytes += int64(len(l))
	}
	fmt.Fprintf(w, "%s, load average %s\n", time.Now().UTC().Format(time.RFC3339), loadavg())
	fmt.Fprintf(w, "corpus %s: %d lines (%.1f MB of session files read), %d entries with text, %.1f MB of text; read in %.1fs\n\n",
		o.Corpus, len(lines), mb(fileBytes), len(docs), mb(textBytes), time.Since(start).Seconds())

	ps := probes(readPlants(o.Corpus))
	nodes := make([]fts.Node, len(ps))
	for i, p := range ps {
		if nodes[i], err = fts.Parse(p.q); err != nil {
			return err
		}
	}
	if _, err := db.ExecContext(ctx, schemaSQL); err != nil {
		return err
	}

	// Load in batches of about 8 MB of text, as pushes would: tokens, then
	// each table's COPY, timed apart; the reference scan runs on the same
	// tokens.
	want := make([][]int64, len(ps))
	var tTok, tTS, tTG, tText time.Duration
	var nTok, windowed, rowsTSn int64
	maxTokens := 0
	for lo := 0; lo < len(docs); {
		hi, size := lo, 0
		for hi < len(docs) && size < 8<<20 {
			size += len(docs[hi].Text)
			hi++
		}
		batch := docs[lo:hi]
		t0 := time.Now()
		toks := make([][]string, len(batch))
		for i, d := range batch {
			toks[i] = fts.Tokens(d.Text)
		}
		tTok += time.Since(t0)
		for i, d := range batch {
			nTok += int64(len(toks[i]))
			maxTokens = max(maxTokens, len(toks[i]))
			for k, n := range nodes {
				if pgsearch.Eval(n, toks[i]) {
					want[k] = append(want[k], d.ID)
				}
			}
		}
		t0 = time.Now()
		data, l := rowsTS(batch, toks)
		windowed += int64(l)
		rowsTSn += int64(strings.Count(data, "\n"))
		if err := copyIn(ctx, db, "ts", data); err != nil {
			return fmt.Errorf("copy ts: %w", err)
		}
		tTS += time.Since(t0)
		t0 = time.Now()
		if err := copyIn(ctx, db, "tg", rowsTG(batch, toks)); err != nil {
			return fmt.Errorf("copy tg: %w", err)
		}
		tTG += time.Since(t0)
		t0 = time.Now()
		if err := copyIn(ctx, db, "texts", rowsText(batch)); err != nil {
			return fmt.Errorf("copy texts: %w", err)
		}
		tText += time.Since(t0)
		lo = hi
	}
	var tLines time.Duration
	for lo := 0; lo < len(lines); {
		hi, size := lo, 0
		var batch []Doc
		for hi < len(lines) && size < 16<<20 {
			size += len(lines[hi])
			batch = append(batch, Doc{ID: int64(hi + 1), Raw: lines[hi]})
			hi++
		}
		t0 := time.Now()
		if err := copyIn(ctx, db, "lines", rowsLines(batch)); err != nil {
			return fmt.Errorf("copy lines: %w", err)
		}
		tLines += time.Since(t0)
		lo = hi
	}
	t0 := time.Now()
	if _, err := db.ExecContext(ctx, `VACUUM ANALYZE`); err != nil {
		return err
	}
	tVacuum := time.Since(t0)

	// FTS5, today's design, on the same text.
	dir, err := os.MkdirTemp(o.Tmp, "pgsearch-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	lite, err := openFTS5(dir)
	if err != nil {
		return err
	}
	defer lite.Close()
	t0 = time.Now()
	if err := loadFTS5(ctx, lite, docs); err != nil {
		return err
	}
	tFTS5 := time.Since(t0)
	lite.MustExec(`PRAGMA wal_checkpoint(TRUNCATE)`)
	st, _ := os.Stat(filepath.Join(dir, "fts.sqlite"))

	var lossyRows int64
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM ts WHERE NOT exact`).Scan(&lossyRows); err != nil {
		return err
	}
	fmt.Fprintf(w, "tokens: %d (%.0f MB/s of text tokenized, one core); largest entry %d tokens; %d entries over the tsvector limits (windowed), %d ts rows, of which %d lossy windows\n\n",
		nTok, mb(textBytes)/tTok.Seconds(), maxTokens, windowed, rowsTSn, lossyRows)
	fmt.Fprintf(w, "| load (COPY into indexed tables, batches of ~8 MB of text) | time | MB of text / s |\n|---|---|---|\n")
	row := func(name string, d time.Duration, bytes int64) {
		fmt.Fprintf(w, "| %s | %.1f s | %.1f |\n", name, d.Seconds(), mb(bytes)/d.Seconds())
	}
	row("tokenize (Go, FTS5's rules)", tTok, textBytes)
	row("tsvector rows + GIN", tTS, textBytes)
	row("pg_trgm stream + GIN", tTG, textBytes)
	row("texts (lz4)", tText, textBytes)
	fmt.Fprintf(w, "| raw lines (bytea, lz4) | %.1f s | %.1f (of %.1f MB of lines) |\n", tLines.Seconds(), mb(lineBytes)/tLines.Seconds(), mb(lineBytes))
	row("FTS5 today (Prepare + insert)", tFTS5, textBytes)
	fmt.Fprintf(w, "| VACUUM ANALYZE (all) | %.1f s | |\n\n", tVacuum.Seconds())

	fmt.Fprintf(w, "| storage | table | index | total | of text |\n|---|---|---|---|---|\n")
	for _, t := range []string{"ts", "tg", "texts", "lines"} {
		var tbl, idx int64
		if err := db.QueryRowContext(ctx, `SELECT pg_table_size($1), pg_indexes_size($1)`, t).Scan(&tbl, &idx); err != nil {
			return err
		}
		of := textBytes
		if t == "lines" {
			of = lineBytes
		}
		fmt.Fprintf(w, "| %s | %.1f MB | %.1f MB | %.1f MB | %.0f%% |\n", t, mb(tbl), mb(idx), mb(tbl+idx), 100*float64(tbl+idx)/float64(of))
	}
	for _, ix := range []string{"ts_one", "ts_win", "tg_stream"} {
		var n int64
		if err := db.QueryRowContext(ctx, `SELECT pg_relation_size($1)`, ix).Scan(&n); err != nil {
			return err
		}
		fmt.Fprintf(w, "| index %s | | %.1f MB | | %.0f%% |\n", ix, mb(n), 100*float64(n)/float64(textBytes))
	}
	fmt.Fprintf(w, "| FTS5 today (file) | | | %.1f MB | %.0f%% |\n\n", mb(st.Size()), 100*float64(st.Size())/float64(textBytes))

	// Queries: warm, the median of 5; recall against the scan.
	if _, err := db.ExecContext(ctx, `SET statement_timeout = '60s'`); err != nil {
		return err
	}
	fmt.Fprintf(w, "| kind | query | matches | FTS5 ms | tsvector ms | confirmed | pg_trgm ms | recall FTS5 / tsvector / pg_trgm |\n|---|---|---|---|---|---|---|---|\n")
	bad := 0
	for i, p := range ps {
		n := nodes[i]
		for _, newest := range []int{0, 5000} {
			if newest > 0 && !p.newest {
				continue
			}
			exp := want[i]
			if newest > 0 && len(exp) > newest {
				exp = exp[len(exp)-newest:]
			}
			var got [3][]int64
			var conf int
			times := [3]time.Duration{}
			errs := [3]error{}
			times[0], errs[0] = timeIt(func() (err error) { got[0], err = SearchFTS5(ctx, lite, n, newest); return })
			times[1], errs[1] = timeIt(func() (err error) { got[1], conf, err = SearchTS(ctx, db, n, newest); return })
			times[2], errs[2] = timeIt(func() (err error) { got[2], err = SearchTG(ctx, db, n, newest); return })
			var rec [3]string
			var ms [3]string
			for k := range 3 {
				if errs[k] != nil {
					ms[k], rec[k] = "error", errs[k].Error()
					bad++
					continue
				}
				ms[k] = fmt.Sprintf("%.1f", float64(times[k].Microseconds())/1000)
				slices.Sort(got[k])
				if slices.Equal(got[k], exp) {
					rec[k] = "="
				} else {
					bad++
					rec[k] = fmt.Sprintf("%d≠%d", len(got[k]), len(exp))
				}
			}
			label := p.q
			if newest > 0 {
				label += fmt.Sprintf(" (newest %d)", newest)
			}
			fmt.Fprintf(w, "| %s | `%s` | %d | %s | %s | %d | %s | %s |\n", p.kind, label, len(exp), ms[0], ms[1], conf, ms[2], strings.Join(rec[:], " / "))
		}
	}
	// PIDEX_BENCH_EXPLAIN: queries whose tsvector plan to print.
	for _, qs := range strings.Split(os.Getenv("PIDEX_BENCH_EXPLAIN"), ";") {
		if qs == "" {
			continue
		}
		n, err := fts.Parse(qs)
		if err != nil {
			return err
		}
		q := pgsearch.ToQuery(n, "ts", "id", 2)
		rows, err := db.QueryContext(ctx, `EXPLAIN (ANALYZE, BUFFERS) SELECT id FROM ts WHERE NOT win AND tsv @@ $1::tsquery
			UNION ALL SELECT id FROM (`+q.Windows+`) w`, append([]any{q.TSQuery}, q.Args...)...)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "\nEXPLAIN %s\n", qs)
		for rows.Next() {
			var line string
			rows.Scan(&line)
			fmt.Fprintln(w, line)
		}
		rows.Close()
	}
	fmt.Fprintf(w, "\nrecall differences: %d; total %.0fs; load average %s\n", bad, time.Since(start).Seconds(), loadavg())
	if bad > 0 {
		return errors.New("some answers differ from the scan")
	}
	return nil
}

// timeIt runs f once to warm up, then 5 times, and returns the median.
func timeIt(f func() error) (time.Duration, error) {
	if err := f(); err != nil {
		return 0, err
	}
	var ds []time.Duration
	for range 5 {
		t := time.Now()
		if err := f(); err != nil {
			return 0, err
		}
		ds = append(ds, time.Since(t))
	}
	slices.Sort(ds)
	return ds[2], nil
}

// loadavg is the machine's load (other work skews the figures).
func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Join(strings.Fields(string(b))[:3], " ")
}

func mb(n int64) float64 { return float64(n) / 1e6 }
