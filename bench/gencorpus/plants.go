package main

// Planted rare words (-plant N): ground truth for full-text-search recall tests.
//
// Each of N invented words is planned (from the seed, before any file is
// written) into 1-20 sessions, 1-3 times each, at a byte position of the file
// and a preferred kind of text (user, assistant text, thinking, tool result,
// bash output, summary). The generator inserts it into the first text of that
// kind written after the position, or into any text once it is late. The
// manifest OUT/../<base>.plants.json maps each word to the sorted list of
// files (relative to OUT, '/'-separated) that contain it; it is the result of
// scanning the written files and must equal what the generator recorded.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"sync"
	"unicode"
	"unicode/utf8"
)

const maxPlants = 9999

// Text slots where plants can go.
const (
	slotUser byte = iota + 1
	slotAssistant
	slotThinking
	slotTool    // read/grep/find/ls results and tool errors
	slotBash    // bash tool results and bashExecution output
	slotSummary // compaction and branch summaries
)

var plantSlots = []byte{slotUser, slotUser, slotAssistant, slotAssistant, slotThinking, slotThinking,
	slotTool, slotTool, slotBash, slotBash, slotSummary}

// Special plants replace zqplantNNNN at these (1-based) positions: a Latin
// word with a diacritic (raw UTF-8 in the files, like all non-ASCII text), a
// rare 2-character Han word, a rare 6-character katakana word and a rare
// 2-syllable Hangul word.
var specialPlants = map[int]string{7: "Zürichplant07", 13: "鼷鼱", 25: "ゾルヴァキン", 37: "퀣뷁"}

const zqPrefix = "zqplant"

func plantWords(n int) []string {
	out := make([]string, n)
	for i := range out {
		if w, ok := specialPlants[i+1]; ok {
			out[i] = w
		} else {
			out[i] = fmt.Sprintf("%s%04d", zqPrefix, i+1)
		}
	}
	return out
}

type plantOcc struct {
	word      int32
	pos, late int64 // due once the file has pos bytes; any slot once it has late bytes
	slot      byte
}

type plantPlan struct {
	words   []string
	perFile [][]plantOcc     // by filePlan.idx
	zq      map[string]int32 // zqplantNNNN words by their NNNN
	others  []int32          // the other words
}

// scan returns the indexes of the planted words in data.
func (pp *plantPlan) scan(data []byte) []int32 {
	return scanPlants(data, pp.words, pp.zq, pp.others)
}

func planPlants(cfg config, plans []filePlan) *plantPlan {
	r := rand.New(rand.NewPCG(cfg.seed, 0x91a7f))
	pp := &plantPlan{words: plantWords(cfg.plant), perFile: make([][]plantOcc, len(plans)), zq: map[string]int32{}}
	for i, w := range pp.words {
		if len(w) == len(zqPrefix)+4 && w[:len(zqPrefix)] == zqPrefix {
			pp.zq[w[len(zqPrefix):]] = int32(i)
		} else {
			pp.others = append(pp.others, int32(i))
		}
	}
	for w := range pp.words {
		k := min(max(int(logUniform(r, 1, 21)), 1), 20, len(plans))
		chosen := map[int]bool{}
		for len(chosen) < k {
			chosen[r.IntN(len(plans))] = true
		}
		idxs := make([]int, 0, k)
		for i := range chosen {
			idxs = append(idxs, i)
		}
		sort.Ints(idxs)
		for _, fi := range idxs {
			m := 1
			if x := r.IntN(100); x < 5 {
				m = 3
			} else if x < 20 {
				m = 2
			}
			target := plans[fi].target
			for j := 0; j < m; j++ {
				pos := int64(r.Float64() * 0.9 * float64(target))
				pp.perFile[fi] = append(pp.perFile[fi], plantOcc{
					word: int32(w), pos: pos, late: pos + (target-pos)/2, slot: pick(r, plantSlots),
				})
			}
		}
	}
	return pp
}

// plantText: Latin words are surrounded by spaces; CJK words are embedded
// without spaces in a short phrase of their script, as in running text.
func plantText(r *rand.Rand, w string) string {
	ru, _ := utf8.DecodeRuneInString(w)
	switch {
	case unicode.Is(unicode.Katakana, ru):
		return " " + pick(r, []string{"例の", "この", "新しい", "あの"}) + w + pick(r, []string{"の件です。", "を使うと落ちます。", "モジュールを確認します。", "について調べました。"}) + " "
	case unicode.Is(unicode.Han, ru):
		return " " + pick(r, []string{"这个", "关于", "发现", "检查"}) + w + pick(r, []string{"的问题。", "模块还没修好。", "相关的日志。", "的时候出错了。"}) + " "
	case unicode.Is(unicode.Hangul, ru):
		return " " + w + pick(r, []string{"에서 오류가 납니다. ", " 모듈을 확인했습니다. ", "를 다시 빌드합니다. "})
	}
	return " " + w + " "
}

// text appends about n bytes from p, inserting the plants that are due at
// random places inside it (slot 0: never). Without pending plants it is exactly
// p.appendSlice (the synthetic default consumes the same random numbers as
// before plants existed).
func (g *gen) text(p *pool, n int, slot byte) {
	if len(g.pending) == 0 || slot == 0 {
		g.line = p.appendSlice(g.line, g.r, n)
		return
	}
	due := g.due[:0]
	keep := g.pending[:0]
	for _, o := range g.pending {
		if g.st.bytes >= o.pos && (o.slot == slot || g.st.bytes >= o.late) {
			due = append(due, o)
		} else {
			keep = append(keep, o)
		}
	}
	g.pending, g.due = keep, due
	rest := n
	for _, o := range due {
		if k := g.r.IntN(rest + 1); k > 0 {
			g.line = p.appendSlice(g.line, g.r, k)
			rest -= k
		}
		g.line = appendEscaped(g.line, plantText(g.r, g.pp.words[o.word]))
		g.st.plants = append(g.st.plants, o.word)
	}
	g.line = p.appendSlice(g.line, g.r, max(rest, 1))
}

// ---------------------------------------------------------------------------
// Verification and manifest.

func manifestPath(out string) (string, error) {
	abs, err := filepath.Abs(out)
	if err != nil {
		return "", err
	}
	return filepath.Join(filepath.Dir(abs), filepath.Base(abs)+".plants.json"), nil
}

// scanPlants returns the indexes of the words contained in data.
// zqplantNNNN words are found in one pass over the "zqplant" occurrences;
// the others with bytes.Contains.
func scanPlants(data []byte, words []string, zq map[string]int32, others []int32) []int32 {
	var found []int32
	if len(zq) > 0 {
		pre := []byte(zqPrefix)
		for off := 0; ; {
			i := bytes.Index(data[off:], pre)
			if i < 0 {
				break
			}
			j := off + i + len(pre)
			if j+4 <= len(data) {
				if w, ok := zq[string(data[j:j+4])]; ok {
					found = append(found, w)
				}
			}
			off = off + i + 1
		}
	}
	for _, w := range others {
		if bytes.Contains(data, []byte(words[w])) {
			found = append(found, w)
		}
	}
	slices.Sort(found)
	return slices.Compact(found)
}

// checkPlants scans every written file and compares with what the generator
// recorded. It returns the manifest (word -> sorted relative paths).
func checkPlants(cfg config, plans []filePlan, pp *plantPlan, recorded map[int32][]string) (map[string][]string, error) {
	rels := make([]string, len(plans))
	found := make([][]int32, len(plans))
	errs := make([]error, len(plans))
	var next int64 = -1
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := 0; w < max(cfg.workers, 1); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				next++
				i := int(next)
				mu.Unlock()
				if i >= len(plans) {
					return
				}
				p := plans[i]
				rels[i] = filepath.ToSlash(filepath.Join(projectDir(p.project, cfg.projects), p.name))
				data, err := os.ReadFile(filepath.Join(cfg.out, filepath.FromSlash(rels[i])))
				if err != nil {
					errs[i] = err
					continue
				}
				found[i] = pp.scan(data)
			}
		}()
	}
	wg.Wait()
	manifest := make(map[string][]string, len(pp.words))
	for _, w := range pp.words {
		manifest[w] = []string{}
	}
	for i := range plans {
		if errs[i] != nil {
			return nil, errs[i]
		}
		for _, w := range found[i] {
			manifest[pp.words[w]] = append(manifest[pp.words[w]], rels[i])
		}
	}
	for w, word := range pp.words {
		got := manifest[word]
		sort.Strings(got)
		want := append([]string(nil), recorded[int32(w)]...)
		sort.Strings(want)
		want = slices.Compact(want)
		if !slices.Equal(got, want) {
			return nil, fmt.Errorf("plant %q: the generator put it in %d files %v but a scan finds it in %d files %v", word, len(want), want, len(got), got)
		}
		if len(got) == 0 {
			return nil, fmt.Errorf("plant %q was not placed in any file", word)
		}
	}
	return manifest, nil
}

func writeManifest(path string, m map[string][]string) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(m); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

func plantSummary(m map[string][]string) string {
	files, occ := map[string]bool{}, 0
	for _, l := range m {
		occ += len(l)
		for _, f := range l {
			files[f] = true
		}
	}
	return strconv.Itoa(len(m)) + " words, " + strconv.Itoa(occ) + " (word, file) pairs in " + strconv.Itoa(len(files)) + " files"
}
