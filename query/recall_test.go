package query_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/fts"
	"github.com/pidex-dev/pidex/pi"
	"github.com/pidex-dev/pidex/query"
	"github.com/pidex-dev/pidex/schema"
)

var (
	recallWords = strings.Fields(`the index search session branch compaction summary model token cost café naïve Zürich
		résumé parse_header session-manager.ts ERR_MODULE_NOT_FOUND src/query/path.go build test failed passed
		refactor goroutine channel mutex deadlock writer reader offset catalog ingest watcher debounce
		rollup usage provider anthropic openai sqlite migration schema vacuum checkpoint fixture golden`)
	recallCJK = []rune("検索索引全文数据库压缩测试通过失败构建部署会话分支模型令牌费用インデックスデータベーステスト한국어검색")
	tokenRE   = regexp.MustCompile(`[\p{L}\p{N}\p{Mn}]+`)
)

// recallText is random prose: vocabulary words, planted words, and now and
// then a run of CJK characters.
func recallText(r *rand.Rand, plants []string) string {
	var b strings.Builder
	for range 5 + r.IntN(25) {
		switch x := r.IntN(40); {
		case x == 0:
			b.WriteString(plants[r.IntN(len(plants))])
		case x < 4:
			for range 2 + r.IntN(12) {
				b.WriteRune(recallCJK[r.IntN(len(recallCJK))])
			}
		default:
			b.WriteString(recallWords[r.IntN(len(recallWords))])
		}
		b.WriteString([]string{" ", " ", ", ", ".\n", "\n\n", "\t"}[r.IntN(6)])
	}
	return b.String()
}

func recallEntry(r *rand.Rand, i int, parent string, plants []string) string {
	id := fmt.Sprintf("e%d", i)
	text := recallText(r, plants)
	switch r.IntN(8) {
	case 0:
		return asstMsg(id, parent, "m", text, recallText(r, plants))
	case 1:
		return toolResult(id, parent, text)
	case 2:
		return bash(id, parent, "run "+recallWords[r.IntN(len(recallWords))], text)
	case 3:
		return compaction(id, parent, text)
	case 4:
		return labelEntry(id, parent, parent, strings.Fields(text)[0])
	case 5:
		return nameEntry(id, parent, text)
	}
	return userMsg(id, parent, text, "2026-05-01T10:00:01.000Z")
}

// pidex finds exactly the sessions a brute-force scan of every entry's
// text finds, for vocabulary words, planted rare words and CJK words of
// 2, 3 and 6 characters, on every branch and in forks.
func TestSearchRecallMatchesBruteForce(t *testing.T) {
	e := newSearchEnv(t)
	r := rand.New(rand.NewPCG(7, 11))
	var plants []string
	for i := range 12 {
		plants = append(plants, fmt.Sprintf("zqplant%02d", i))
	}
	files := map[string]string{} // session id → file
	for s := range 60 {
		id := fmt.Sprintf("s%02d", s)
		lines := []string{hdr(id, fmt.Sprintf("/w/p%d", s%5))}
		for i := range 10 + r.IntN(30) {
			parent := ""
			if i > 0 {
				parent = fmt.Sprintf("e%d", max(0, i-1-r.IntN(3))) // some branches
			}
			lines = append(lines, recallEntry(r, i, parent, plants))
		}
		files[id] = e.file(fmt.Sprintf("--w-p%d--/%s.jsonl", s%5, id), lines...)
		if s%10 == 0 { // a fork: a copy of the file under another id
			fork := "fork-" + id
			lines[0] = hdr(fork, "/w/forks")
			files[fork] = e.file("--w-forks--/"+fork+".jsonl", lines...)
		}
	}
	e.refresh()

	probes := append([]string{}, plants...)
	probes = append(probes, "café", "cafe", "zurich", "NAIVE", "Index", "deadlock", "mutex", "golden")
	cjk := regexp.MustCompile(`\p{Han}|\p{Hiragana}|\p{Katakana}|\p{Hangul}|ー`)
	for _, n := range []int{2, 2, 2, 3, 3, 6} { // CJK substrings that occur somewhere
		for {
			src := recallText(r, plants)
			rs := []rune(src)
			k := r.IntN(len(rs))
			if k+n <= len(rs) && cjk.MatchString(string(rs[k])) {
				w := string(rs[k : k+n])
				if len(cjk.FindAllString(w, -1)) == n {
					probes = append(probes, w)
					break
				}
			}
		}
	}
	texts := map[string][]string{}
	for id, path := range files {
		texts[id] = entryTexts(t, path)
	}
	for _, p := range probes {
		var want []string
		for id, ts := range texts {
			for _, text := range ts {
				if contains(text, p) {
					want = append(want, id)
					break
				}
			}
		}
		sort.Strings(want)
		got := e.sessions(p, pidex.SearchFilter{})
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("%q: pidex found %d sessions %v, a scan finds %d %v", p, len(got), got, len(want), want)
		}
	}
}

// entryTexts is the searchable text of every entry of a file.
func entryTexts(t *testing.T, path string) []string {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for i, l := range bytes.Split(b, []byte("\n")) {
		if i == 0 || len(l) == 0 {
			continue
		}
		ln, err := schema.DecodeLine(l)
		if err != nil {
			t.Fatalf("%s: %v", filepath.Base(path), err)
		}
		out = append(out, pi.Text(ln))
	}
	return out
}

// contains is the matching rule, written independently of the index: a
// CJK word is a substring; any other word is one of the text's words
// (letters and digits, CJK runs apart), compared case- and accent-blind.
func contains(text, w string) bool {
	if fts.IsCJK([]rune(w)[0]) {
		return strings.Contains(text, w)
	}
	for _, tok := range tokenRE.FindAllString(text, -1) {
		for _, part := range splitCJK(tok) {
			if fts.Fold(part) == fts.Fold(w) {
				return true
			}
		}
	}
	return false
}

func splitCJK(tok string) []string {
	var out []string
	var cur []rune
	for _, r := range tok {
		if fts.IsCJK(r) {
			if len(cur) > 0 {
				out = append(out, string(cur))
				cur = nil
			}
			continue
		}
		cur = append(cur, r)
	}
	if len(cur) > 0 {
		out = append(out, string(cur))
	}
	return out
}

// Every word of a tool call's arguments is found in its entry: words after
// a newline or a tab inside a string (a multi-line bash command), in
// argument names, and in nested values. The expected set is a scan of the
// arguments decoded by encoding/json, independent of pi.Text.
func TestToolArgumentsRecall(t *testing.T) {
	e := newSearchEnv(t)
	r := rand.New(rand.NewPCG(3, 5))
	seps := []string{"\n", "\t", "\r\n", "\\", " && ", "\n\t", "\"", "/"}
	word := func() string {
		if r.IntN(3) == 0 {
			return fmt.Sprintf("zqarg%03d", r.IntN(200))
		}
		return recallWords[r.IntN(len(recallWords))]
	}
	phrase := func() string {
		var b strings.Builder
		for range 2 + r.IntN(6) {
			b.WriteString(word())
			b.WriteString(seps[r.IntN(len(seps))])
		}
		return b.String()
	}
	var lines []string
	lines = append(lines, hdr("args-1", "/w/args"))
	parent := "null"
	for i := range 120 {
		args := map[string]any{"command": phrase(), "description": phrase()}
		if i%3 == 0 {
			args["opts\n"+word()] = []any{phrase(), map[string]any{"inner\t" + word(): phrase()}, 42}
		}
		raw, _ := json.Marshal(args)
		id := fmt.Sprintf("t%d", i)
		lines = append(lines, fmt.Sprintf(`{"type":"message","id":%q,"parentId":%s,"timestamp":"2026-05-01T10:00:02.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"c%d","name":"bash","arguments":%s}],"provider":"anthropic","model":"m"}}`,
			id, parent, i, raw))
		parent = strconv.Quote(id)
	}
	e.file("--w-args--/args.jsonl", lines...)
	e.refresh()

	// The scan: each entry's arguments decoded, every key and string value.
	want := map[string]map[string]bool{} // folded word → entry ids
	for _, l := range lines[1:] {
		var ent struct {
			ID      string
			Message struct {
				Content []struct{ Arguments any }
			}
		}
		if err := json.Unmarshal([]byte(l), &ent); err != nil {
			t.Fatal(err)
		}
		var walk func(v any)
		add := func(s string) {
			for _, w := range tokenRE.FindAllString(s, -1) {
				w = fts.Fold(w)
				if want[w] == nil {
					want[w] = map[string]bool{}
				}
				want[w][ent.ID] = true
			}
		}
		walk = func(v any) {
			switch v := v.(type) {
			case string:
				add(v)
			case []any:
				for _, x := range v {
					walk(x)
				}
			case map[string]any:
				for k, x := range v {
					add(k)
					walk(x)
				}
			}
		}
		walk(ent.Message.Content[0].Arguments)
	}
	rd := query.New(e.ix.DB, nil)
	missed := 0
	for w, ids := range want {
		n, err := fts.Parse(w)
		if err != nil {
			t.Fatal(err)
		}
		hits, err := rd.Search(context.Background(), n, pidex.SearchFilter{Limit: 1000})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]bool{}
		for _, h := range hits {
			got[h.EntryID] = true
		}
		for id := range ids {
			if !got[id] {
				missed++
				if missed <= 10 {
					t.Errorf("%q: entry %s holds it in its arguments, search does not find it there", w, id)
				}
			}
		}
		if strings.HasPrefix(w, "zqarg") && len(got) != len(ids) {
			t.Errorf("%q: search finds %d entries, the arguments of %d hold it", w, len(got), len(ids))
		}
	}
	if missed > 0 {
		t.Errorf("%d (word, entry) pairs of %d words missed", missed, len(want))
	}
}
