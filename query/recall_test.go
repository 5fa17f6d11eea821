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
	"github.com/pidex-dev/pidex/internal/pgtest"
	"github.com/pidex-dev/pidex/pi"
	"github.com/pidex-dev/pidex/postgres"
	"github.com/pidex-dev/pidex/query"
	"github.com/pidex-dev/pidex/schema"
	"github.com/pidex-dev/pidex/sqlite"
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
func TestSearchRecallMatchesBruteForce(t *testing.T) { onBackends(t, testSearchRecall) }

func testSearchRecall(t *testing.T, e *searchEnv) {
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
	rd := newReader(e.ix.DB, nil)
	missed := 0
	for w, ids := range want {
		n, err := fts.Parse(w)
		if err != nil {
			t.Fatal(err)
		}
		hits, err := rd.SearchF(context.Background(), n, pidex.SearchFilter{Limit: 1000})
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

// A phrase matches only where its words stand together, in order: an
// entry that holds them apart (or in another order) is not a hit, though
// the catalog's index, which keeps no positions, finds it as a candidate.
// The same for identifiers (parse_header is the phrase "parse header"),
// CJK words of three characters or more (a phrase of bigrams), prefix
// phrases, and a phrase under an exclusion, which must not exclude the
// entry that holds the words apart.
func TestPhraseWordsApartDoNotMatch(t *testing.T) { onBackends(t, testPhraseWordsApart) }

func testPhraseWordsApart(t *testing.T, e *searchEnv) {
	e.file("--w-apart--/a.jsonl",
		hdr("apart", "/w/apart"),
		userMsg("a1", "", "the brown dog and the quick fox; header of the parse step", "2026-05-01T10:00:01.000Z"),
		asstMsg("a2", "a1", "m", "fox quick, then brown; a brownie, quick", "再構成してから構築します"),
		toolResult("a3", "a2", "quick\nred\nbrown fox header\nparse"),
	)
	e.file("--w-together--/b.jsonl",
		hdr("together", "/w/together"),
		userMsg("b1", "", "the quick brown fox jumps; parse_header fails", "2026-05-02T10:00:01.000Z"),
		asstMsg("b2", "b1", "m", "rebuilt the index", "インデックスを再構築しました"),
	)
	e.refresh()
	tests := []struct{ q, want string }{
		{"quick brown", "apart together"},          // both words anywhere
		{`"quick brown"`, "together"},              // together only
		{`"brown quick"`, ""},                      // order matters
		{`"quick brown fox"`, "together"},          // three words
		{`"quick bro"*`, "together"},               // a prefix phrase (brownie stands apart)
		{"parse_header", "together"},               // an identifier is a phrase
		{"header parse", "apart together"},         // two words
		{`"header parse"`, "apart"},                // a line break between words is no gap (a3)
		{`"parse header"`, "together"},             // the identifier's order
		{"再構築", "together"},                        // a CJK word of three characters: its bigrams in a row
		{"fox -\"quick brown\"", "apart"},          // an exclusion of a phrase excludes only the phrase
		{"fox -(dog OR \"quick brown\")", "apart"}, // and inside a group (a1 has dog, a2 and a3 neither)
		{"jumps OR \"fox quick\"", "apart together"},
	}
	for _, tt := range tests {
		got := strings.Join(e.sessions(tt.q, pidex.SearchFilter{}), " ")
		if got != tt.want {
			t.Errorf("search %q = [%s], want [%s]", tt.q, got, tt.want)
		}
	}
	// Hits too, not only sessions: the phrase's one entry, and the first
	// page of an unfiltered search (the newest matches ranked).
	q, err := fts.Parse(`"quick brown"`)
	if err != nil {
		t.Fatal(err)
	}
	hits, err := e.searcher().SearchF(context.Background(), q, pidex.SearchFilter{Limit: 20})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 1 || hits[0].EntryID != "b1" {
		t.Errorf(`"quick brown": hits %+v, want entry b1 alone`, hits)
	}
}

// Pages of a phrase search (candidates confirmed as the page is read)
// are the slices of the whole answer, for hits and for sessions.
func TestPhrasePages(t *testing.T) { onBackends(t, testPhrasePages) }

func testPhrasePages(t *testing.T, e *searchEnv) {
	for i := range 7 {
		e.file(fmt.Sprintf("--w-app--/s%d.jsonl", i), hdr(fmt.Sprintf("s%d", i), "/w/app"),
			userMsg("a1", "", fmt.Sprintf("giant pangolin number %d", i), fmt.Sprintf("2026-05-0%dT10:00:01.000Z", i+1)),
			userMsg("a2", "a1", "a pangolin, not giant", fmt.Sprintf("2026-05-0%dT10:00:02.000Z", i+1)),
			userMsg("a3", "a2", "and another giant pangolin here", fmt.Sprintf("2026-05-0%dT10:00:03.000Z", i+1)))
	}
	e.refresh()
	r := e.searcher()
	q, _ := fts.Parse(`"giant pangolin"`)
	all, err := r.SearchF(context.Background(), q, pidex.SearchFilter{Limit: 100})
	if err != nil || len(all) != 14 {
		t.Fatalf("%d hits (%v), want 14", len(all), err)
	}
	paged := pagesOfFour(t, r, q, len(all))
	for i := range all {
		if paged[i].Path != all[i].Path || paged[i].Offset != all[i].Offset || paged[i].EntryID == "a2" {
			t.Errorf("hit %d: page gives %s@%d (%s), the whole answer %s@%d", i, paged[i].Path, paged[i].Offset, paged[i].EntryID, all[i].Path, all[i].Offset)
		}
	}
	ss, _ := r.SearchSessionsF(context.Background(), q, pidex.SearchFilter{Limit: 3, Offset: 6})
	if len(ss) != 1 || ss[0].Hits != 2 {
		t.Errorf("the last page of sessions holds %+v, want one session of 2 hits", ss)
	}
}

// A phrase's totals count its confirmed matches only: the entries that
// hold its words apart are candidates of the index, not hits.
func TestPhraseTotals(t *testing.T) {
	e := newSearchEnv(t)
	for i := range 7 {
		e.file(fmt.Sprintf("--w-app--/s%d.jsonl", i), hdr(fmt.Sprintf("s%d", i), "/w/app"),
			userMsg("a1", "", fmt.Sprintf("giant pangolin number %d", i), fmt.Sprintf("2026-05-0%dT10:00:01.000Z", i+1)),
			userMsg("a2", "a1", "a pangolin, not giant", fmt.Sprintf("2026-05-0%dT10:00:02.000Z", i+1)))
	}
	e.file("--w-other--/o.jsonl", hdr("o", "/w/other"), userMsg("b1", "", "pangolin giant, apart", "2026-05-09T10:00:01.000Z"))
	e.refresh()
	r := newReader(e.ix.DB, nil)
	q, _ := fts.Parse(`"giant pangolin"`)
	for _, tt := range []struct {
		f    pidex.SearchFilter
		want pidex.SearchTotals
	}{
		{pidex.SearchFilter{Limit: 4}, pidex.SearchTotals{Hits: 7, Sessions: 7}},
		{pidex.SearchFilter{Where: pidex.Where{"project": "other"}, Limit: 4}, pidex.SearchTotals{}},
		{pidex.SearchFilter{Limit: 4, Active: true}, pidex.SearchTotals{Hits: 7, Sessions: 7}},
	} {
		got, err := r.SearchTotalsF(context.Background(), q, tt.f)
		if err != nil || got != tt.want {
			t.Errorf("SearchTotals(%+v) = %+v, %v; want %+v", tt.f, got, err, tt.want)
		}
	}
}

// Past its budget of lines read, a phrase's totals say "at least", and
// never fewer hits than a page past the offset needs.
func TestPhraseTotalsBudget(t *testing.T) {
	e := newSearchEnv(t)
	for i := range 9 {
		e.file(fmt.Sprintf("--w-app--/s%d.jsonl", i), hdr(fmt.Sprintf("s%d", i), "/w/app"),
			userMsg("a1", "", fmt.Sprintf("giant pangolin number %d", i), fmt.Sprintf("2026-05-0%dT10:00:01.000Z", i+1)),
			userMsg("a2", "a1", "a pangolin, not giant", fmt.Sprintf("2026-05-0%dT10:00:02.000Z", i+1)))
	}
	e.refresh()
	budget := func(n int64) *query.Reader {
		return query.New(sqlite.NewReader(e.ix.DB, sqlite.ReaderOptions{ConfirmBudget: n}), nil)
	}
	r := budget(1)
	q, _ := fts.Parse(`"giant pangolin"`)
	for _, f := range []pidex.SearchFilter{{Limit: 2}, {Limit: 2, Offset: 4}} {
		got, err := r.SearchTotalsF(context.Background(), q, f)
		if err != nil || !got.AtLeast || got.Hits != f.Offset+f.Limit+1 || got.Hits > 9 {
			t.Errorf("SearchTotals(%+v) past the budget = %+v, %v; want at least %d", f, got, err, f.Offset+f.Limit+1)
		}
	}
	if got, err := budget(1<<30).SearchTotalsF(context.Background(), q, pidex.SearchFilter{Limit: 2}); err != nil || got != (pidex.SearchTotals{Hits: 9, Sessions: 9}) {
		t.Errorf("SearchTotals within the budget = %+v, %v; want 9 in 9", got, err)
	}
}

// Past its budget of lines, a phrase's totals have confirmed the newest
// candidates first on both catalogs: the team catalog says the same "at
// least" as the local catalog it was pushed from, for every budget and
// page. The candidates' lengths differ from session to session, so
// another order (the shortest first, as before) counts other hits.
func TestPhraseTotalsOrder(t *testing.T) { onBackends(t, testPhraseTotalsOrder) }

func testPhraseTotalsOrder(t *testing.T, e *searchEnv) {
	for i := range 8 {
		ts := func(s int) string { return fmt.Sprintf("2026-05-0%dT10:00:0%d.000Z", i+1, s) }
		filler := strings.Repeat(" word", 60*((i*5)%3))
		e.file(fmt.Sprintf("--w-app--/s%d.jsonl", i), hdr(fmt.Sprintf("s%d", i), "/w/app"),
			userMsg("a1", "", "giant pangolin"+filler, ts(1)),
			userMsg("a2", "a1", "pangolin, giant"+strings.Repeat(" word", 20*(i%4)), ts(2)), // a candidate, not a hit
			userMsg("a3", "a2", "a giant pangolin again", ts(3)))
	}
	e.refresh()
	q, _ := fts.Parse(`"giant pangolin"`)
	local := func(budget int64) *query.Reader {
		return query.New(sqlite.NewReader(e.ix.DB, sqlite.ReaderOptions{ConfirmBudget: budget}), nil)
	}
	// The team catalog reads the newest files in batches (1 file, then
	// the rest; 3, then the rest; all at once): the order, and so the
	// count within a budget, must not depend on where a batch ends.
	batches := []int{0}
	if e.team != nil {
		batches = []int{0, 1, 3}
	}
	counts := map[int]bool{}
	for _, first := range batches {
		read := local
		if e.team != nil {
			read = func(budget int64) *query.Reader {
				return query.New(e.team.ReaderWith(postgres.ReaderOptions{ConfirmBudget: budget, FirstBatch: first}), nil)
			}
		}
		for _, budget := range []int64{1, 400, 900, 1500, 2500, 4000, 1 << 30} {
			for _, f := range []pidex.SearchFilter{{Limit: 2}, {Limit: 2, Offset: 3}} {
				want, err := local(budget).SearchTotalsF(context.Background(), q, f)
				if err != nil {
					t.Fatal(err)
				}
				got, err := read(budget).SearchTotalsF(context.Background(), q, f)
				if err != nil || got != want {
					t.Errorf("first batch %d, budget %d, %+v: %+v, %v; the local catalog says %+v", first, budget, f, got, err, want)
				}
				counts[want.Hits] = true
			}
		}
	}
	if !counts[16] || len(counts) < 4 {
		t.Errorf("the budgets should cut the count in several places and read all 16 hits at the end: %v", counts)
	}
}

// --sessions-only of a phrase confirms candidates in the page's order and
// stops once no later one can place a session on the page: every page is
// the slice of the whole answer, the counts are whole, an entry holding
// the words apart (the shortest candidate of each session) never counts,
// and ties on the best score go to the session modified last.
func TestPhraseSessionPages(t *testing.T) { onBackends(t, testPhraseSessionPages) }

func testPhraseSessionPages(t *testing.T, e *searchEnv) {
	filler := func(n int) string { return strings.Repeat(" word", n) }
	for i := range 6 {
		ts := func(s int) string { return fmt.Sprintf("2026-05-0%dT10:00:0%d.000Z", i+1, s) }
		lines := []string{hdr(fmt.Sprintf("s%d", i), "/w/app"),
			userMsg("d1", "", "pangolin giant", ts(1)), // a candidate, not a hit
			userMsg("a1", "d1", "giant pangolin"+filler(min(i, 4)), ts(2))}
		for h := range i % 3 { // more hits, longer
			lines = append(lines, userMsg(fmt.Sprintf("a%d", h+2), "a1", "a giant pangolin again"+filler(8+h), ts(3+h)))
		}
		e.file(fmt.Sprintf("--w-app--/s%d.jsonl", i), lines...)
	}
	e.refresh()
	r := e.searcher()
	q, _ := fts.Parse(`"giant pangolin"`)
	ctx := context.Background()
	for _, tt := range []struct {
		newest bool
		want   string // session: hits, in order
	}{
		{false, "s0:1 s1:2 s2:3 s3:1 s5:3 s4:2"},
		{true, "s5:3 s4:2 s3:1 s2:3 s1:2 s0:1"},
	} {
		whole, err := r.SearchSessionsF(ctx, q, pidex.SearchFilter{Limit: 100, Newest: tt.newest})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, s := range whole {
			got = append(got, fmt.Sprintf("%s:%d", s.SessionID, s.Hits))
		}
		if strings.Join(got, " ") != tt.want {
			t.Errorf("newest %v: %s, want %s", tt.newest, strings.Join(got, " "), tt.want)
		}
		for limit := 1; limit <= 4; limit++ {
			for off := 0; off <= 6; off++ {
				page, err := r.SearchSessionsF(ctx, q, pidex.SearchFilter{Limit: limit, Offset: off, Newest: tt.newest})
				if err != nil {
					t.Fatal(err)
				}
				want := whole[min(off, len(whole)):min(off+limit, len(whole))]
				if len(page) != len(want) {
					t.Fatalf("newest %v, limit %d offset %d: %d sessions, want %d", tt.newest, limit, off, len(page), len(want))
				}
				for i := range page {
					if page[i].SessionID != want[i].SessionID || page[i].Hits != want[i].Hits || page[i].FirstMessage != want[i].FirstMessage {
						t.Errorf("newest %v, limit %d offset %d: %+v, want %+v", tt.newest, limit, off, page[i], want[i])
					}
				}
			}
		}
	}
}

// The team catalog searches its newest files in batches, each batch's
// files grouped by machine. Read in batches of one file, then eight, then
// the rest, over two machines, every page and total equals the answer
// read in one batch (which the tests above hold to the local catalog's).
func TestNewestBatchesAcrossMachines(t *testing.T) {
	e := newSearchEnv(t)
	st, err := postgres.Open(context.Background(), pgtest.URL(t), postgres.Options{Migrate: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	for i := range 20 {
		ts := func(s int) string { return fmt.Sprintf("2026-05-%02dT10:00:0%d.000Z", i+1, s) }
		e.file(fmt.Sprintf("--w-app--/2026-05-%02d_s%d.jsonl", i+1, i), hdr(fmt.Sprintf("s%d", i), "/w/app"),
			userMsg("a1", "", "giant pangolin"+strings.Repeat(" word", i%7), ts(1)),
			userMsg("a2", "a1", "pangolin, giant"+strings.Repeat(" word", i%5), ts(2)),
			userMsg("a3", "a2", "a giant pangolin again", ts(3)))
	}
	e.refresh()
	for _, m := range []string{"m1", "m2"} {
		if _, err := st.Push(context.Background(), e.ix.DB, postgres.PushOptions{Machine: m, Roots: []string{e.root}}); err != nil {
			t.Fatal(err)
		}
	}
	whole := func(budget int64) *query.Reader {
		return query.New(st.ReaderWith(postgres.ReaderOptions{ConfirmBudget: budget}), nil)
	}
	batched := func(budget int64) *query.Reader {
		return query.New(st.ReaderWith(postgres.ReaderOptions{ConfirmBudget: budget, FirstBatch: 1}), nil)
	}
	ctx := context.Background()
	for _, text := range []string{`pangolin`, `"giant pangolin"`, `giant pangolin`} {
		q, _ := fts.Parse(text)
		for _, f := range []pidex.SearchFilter{{Limit: 3}, {Limit: 5, Offset: 7}, {Limit: 200}} {
			want, err := whole(0).SearchF(ctx, q, f)
			if err != nil || len(want) == 0 {
				t.Fatalf("%s %+v: %d hits, %v", text, f, len(want), err)
			}
			got, err := batched(0).SearchF(ctx, q, f)
			if err != nil || fmt.Sprint(hitKeys(got)) != fmt.Sprint(hitKeys(want)) {
				t.Errorf("%s %+v in batches: %v, %v; in one: %v", text, f, hitKeys(got), err, hitKeys(want))
			}
			for _, budget := range []int64{1, 300, 1000, 1 << 30} {
				want, err := whole(budget).SearchTotalsF(ctx, q, f)
				if err != nil {
					t.Fatal(err)
				}
				got, err := batched(budget).SearchTotalsF(ctx, q, f)
				if err != nil || got != want {
					t.Errorf("%s %+v, budget %d, in batches: %+v, %v; in one: %+v", text, f, budget, got, err, want)
				}
			}
		}
	}
}

// hitKeys are the hits' machines, files and offsets, in order.
func hitKeys(hits []pidex.Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = fmt.Sprintf("%s:%s:%d", h.Machine, filepath.Base(h.Path), h.Offset)
	}
	return out
}

// Matches tied on length and time are ordered by path, then machine, then
// offset, across a page's ends: the team catalog cuts its page on length
// and time before it reads the paths, and must keep the ties.
func TestPageTies(t *testing.T) { onBackends(t, testPageTies) }

func testPageTies(t *testing.T, e *searchEnv) {
	var paths []string // by path
	for i := range 6 {
		// The files' names (which order their ids, and so the rows) go
		// against their paths.
		rel := fmt.Sprintf("--w-app%d--/t%d.jsonl", i, 5-i)
		e.file(rel, hdr(fmt.Sprintf("t%d", i), "/w/app"), userMsg("a1", "", "kiwi fruit", "2026-05-01T10:00:01.000Z"))
		paths = append(paths, rel)
	}
	e.refresh()
	q, _ := fts.Parse("kiwi")
	// Unfiltered, and filtered (every entry is a user's, on its path): the
	// team catalog cuts both pages with their ties.
	for _, f := range []pidex.SearchFilter{{Limit: 2}, {Limit: 2, Offset: 1}, {Limit: 3, Offset: 3},
		{Limit: 2, Role: "user"}, {Limit: 2, Offset: 1, Active: true}, {Limit: 3, Offset: 3, Role: "user", Active: true}} {
		hits, err := e.searcher().SearchF(context.Background(), q, f)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, h := range hits {
			got = append(got, filepath.Base(h.Path))
		}
		var want []string
		for i := len(paths) - 1 - f.Offset; i >= 0 && len(want) < f.Limit; i-- {
			want = append(want, filepath.Base(paths[i]))
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%+v: %v, want %v (by path, last first)", f, got, want)
		}
	}
}

// A parent cycle (an entry its own parent, as a damaged file has it) ends
// the active branch's walk after as many steps as the session has
// entries, as Path's does: the search finds the cycle's entry once, and
// the active offsets list no more rows than the walk's steps (bounded by
// a million, the walk had listed a million).
func TestActiveWalkStopsAtACycle(t *testing.T) { onBackends(t, testActiveWalkStopsAtACycle) }

func testActiveWalkStopsAtACycle(t *testing.T, e *searchEnv) {
	e.file("--w-app--/cycle.jsonl", hdr("cycle", "/w/app"),
		userMsg("a1", "", "quokka here", "2026-05-01T10:00:01.000Z"),
		`{"type":"custom","id":"c1","parentId":"c1","timestamp":"2026-05-01T10:00:02.000Z","customType":"self-parent","data":{}}`,
		userMsg("a2", "c1", "quokka again", "2026-05-01T10:00:03.000Z"))
	e.refresh()
	q, _ := fts.Parse("quokka")
	hits, err := e.searcher().SearchF(context.Background(), q, pidex.SearchFilter{Limit: 10, Active: true})
	if err != nil || len(hits) != 1 || hits[0].EntryID != "a2" {
		t.Fatalf("--branch active: %v, %v; want a2 alone (a1 is off the path the cycle ends)", hits, err)
	}
	var rows int
	id := e.fileID("cycle.jsonl")
	if e.team != nil {
		err = e.team.DB().QueryRow(`SELECT count(*) FROM _active_offsets WHERE file_id = $1`, id).Scan(&rows)
	} else {
		err = e.ix.DB.Get(&rows, `SELECT count(*) FROM _active_offsets WHERE file_id = ?`, id)
	}
	if err != nil || rows > 4 {
		t.Errorf("%d active offsets for a session of 3 entries (%v), want at most 4", rows, err)
	}
}

// A first page ranks the newest matches within its filters (query.RankCap,
// lowered here to 3): the oldest session of the project holds the best
// match (the shortest entry), which the capped page leaves out and a
// later page, ranking every match, finds; a plain search takes the newest
// matches of the whole index. Both catalogs answer alike.
func TestRankCapWithinFilters(t *testing.T) { onBackends(t, testRankCapWithinFilters) }

func testRankCapWithinFilters(t *testing.T, e *searchEnv) {
	// Names order the sessions (the newest last); the text's length ranks
	// the matches (the shortest first). app1 is the oldest and the best.
	texts := map[string]string{
		"app1": "kiwi", "lib1": "kiwi a b c d e", "app2": "kiwi a b c", "lib2": "kiwi a",
		"app3": "kiwi a b c d", "lib3": "kiwi a b c d e f", "app4": "kiwi a b", "lib4": "kiwi a b c d e f g",
		"app5": "kiwi a b c d e f g h",
	}
	order := []string{"app1", "lib1", "app2", "lib2", "app3", "lib3", "app4", "lib4", "app5"}
	for i, name := range order {
		project := name[:3]
		rel := fmt.Sprintf("--w-%s--/2026-05-0%dT10-00-00-000Z_%s.jsonl", project, i+1, name)
		e.file(rel, hdr(name, "/w/"+project), userMsg(name+"-e1", "", texts[name], fmt.Sprintf("2026-05-0%dT10:00:01.000Z", i+1)))
	}
	e.refresh()
	rd := e.searcher()
	rd.SetRankCap(3)
	q, _ := fts.Parse("kiwi")
	for _, tc := range []struct {
		name string
		f    pidex.SearchFilter
		want string
	}{
		// The newest three of app: app5, app4, app3, by length.
		{"project", pidex.SearchFilter{Limit: 2, Where: pidex.Where{"project": "app"}}, "app4 app3"},
		// Past the cap: every match of app, ranked.
		{"project, a later page", pidex.SearchFilter{Limit: 2, Offset: 2, Where: pidex.Where{"project": "app"}}, "app2 app3"},
		{"project, every match", pidex.SearchFilter{Limit: 4, Where: pidex.Where{"project": "app"}}, "app1 app4 app2 app3"},
		// The newest three of the whole index: app5, lib4, app4.
		{"plain", pidex.SearchFilter{Limit: 2}, "app4 lib4"},
		{"active branch", pidex.SearchFilter{Limit: 2, Active: true}, "app4 lib4"},
		{"role", pidex.SearchFilter{Limit: 2, Role: "user"}, "app4 lib4"},
		// Within lib: lib4, lib3, lib2.
		{"project lib", pidex.SearchFilter{Limit: 1, Where: pidex.Where{"project": "lib"}}, "lib2"},
	} {
		hits, err := rd.SearchF(context.Background(), q, tc.f)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, h := range hits {
			got = append(got, h.SessionID)
		}
		if strings.Join(got, " ") != tc.want {
			t.Errorf("%s: %v, want %s", tc.name, got, tc.want)
		}
	}
}
