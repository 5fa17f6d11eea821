package query_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/indexer"
	"github.com/pidex-dev/pidex/internal/catalogtest"
	"github.com/pidex-dev/pidex/internal/fts"
	"github.com/pidex-dev/pidex/internal/pgtest"
	"github.com/pidex-dev/pidex/postgres"
	"github.com/pidex-dev/pidex/query"
	"github.com/pidex-dev/pidex/sqlite"
)

// line builders for search fixtures
func hdr(id, cwd string) string {
	return fmt.Sprintf(`{"type":"session","version":3,"id":%q,"timestamp":"2026-05-01T10:00:00.000Z","cwd":%q}`, id, cwd)
}

func userMsg(id, parent, text, ts string) string {
	return fmt.Sprintf(`{"type":"message","id":%q,"parentId":%s,"timestamp":%q,"message":{"role":"user","content":[{"type":"text","text":%q}]}}`,
		id, parentJSON(parent), ts, text)
}

func asstMsg(id, parent, model, text, thinking string) string {
	return fmt.Sprintf(`{"type":"message","id":%q,"parentId":%s,"timestamp":"2026-05-01T10:00:02.000Z","message":{"role":"assistant","content":[{"type":"thinking","thinking":%q},{"type":"text","text":%q},{"type":"toolCall","id":"c1","name":"read","arguments":{"path":"src/query/path.go"}}],"provider":"anthropic","model":%q}}`,
		id, parentJSON(parent), thinking, text, model)
}

func toolResult(id, parent, text string) string {
	return fmt.Sprintf(`{"type":"message","id":%q,"parentId":%s,"timestamp":"2026-05-01T10:00:03.000Z","message":{"role":"toolResult","toolCallId":"c1","toolName":"read","content":[{"type":"text","text":%q}],"isError":false}}`,
		id, parentJSON(parent), text)
}

func bash(id, parent, command, output string) string {
	return fmt.Sprintf(`{"type":"message","id":%q,"parentId":%s,"timestamp":"2026-05-01T10:00:04.000Z","message":{"role":"bashExecution","command":%q,"output":%q,"exitCode":0}}`,
		id, parentJSON(parent), command, output)
}

func compaction(id, parent, summary string) string {
	return fmt.Sprintf(`{"type":"compaction","id":%q,"parentId":%s,"timestamp":"2026-05-01T10:00:05.000Z","summary":%q,"firstKeptEntryId":%q,"tokensBefore":100}`,
		id, parentJSON(parent), summary, parent)
}

func labelEntry(id, parent, target, label string) string {
	return fmt.Sprintf(`{"type":"label","id":%q,"parentId":%s,"timestamp":"2026-05-01T10:00:06.000Z","targetId":%q,"label":%q}`,
		id, parentJSON(parent), target, label)
}

func nameEntry(id, parent, name string) string {
	return fmt.Sprintf(`{"type":"session_info","id":%q,"parentId":%s,"timestamp":"2026-05-01T10:00:07.000Z","name":%q}`,
		id, parentJSON(parent), name)
}

func parentJSON(p string) string {
	if p == "" {
		return "null"
	}
	return `"` + p + `"`
}

func TestMain(m *testing.M) { pgtest.Main(m) }

type searchEnv struct {
	t    *testing.T
	root string
	ix   *indexer.Indexer
	// team, when set, is a team catalog in PostgreSQL that every refresh
	// pushes the catalog into, and that searches read: the same tests hold
	// the same answers on both backends.
	team *postgres.Store
}

func newSearchEnv(t *testing.T) *searchEnv {
	t.Helper()
	root := t.TempDir()
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "c.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return &searchEnv{t: t, root: root, ix: &indexer.Indexer{DB: db, Roots: []string{root}}}
}

// onBackends runs a search test on the local catalog, then on a team
// catalog in PostgreSQL that the local one is pushed into (skipped, saying
// so, where no PostgreSQL can be had).
func onBackends(t *testing.T, test func(t *testing.T, e *searchEnv)) {
	t.Run("sqlite", func(t *testing.T) { test(t, newSearchEnv(t)) })
	t.Run("postgres", func(t *testing.T) {
		e := newSearchEnv(t)
		st, err := postgres.Open(context.Background(), pgtest.URL(t), postgres.Options{Migrate: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		e.team = st
		test(t, e)
	})
}

// searcher reads the backend the env's searches read. The team catalog
// reads its newest files one, then the rest (the batches a large catalog
// reads, on a few files); TestPhraseTotalsOrder reads them whole too.
func (e *searchEnv) searcher() *query.Reader {
	if e.team != nil {
		return query.New(e.team.ReaderWith(postgres.ReaderOptions{FirstBatch: 1}), nil)
	}
	return newReader(e.ix.DB, nil)
}

// fileID is the id of the file whose path ends with suffix, in the
// backend the env reads.
func (e *searchEnv) fileID(suffix string) int64 {
	e.t.Helper()
	var id int64
	var err error
	if e.team != nil {
		err = e.team.DB().QueryRow(`SELECT id FROM files WHERE path LIKE '%' || $1`, suffix).Scan(&id)
	} else {
		err = e.ix.DB.Get(&id, "SELECT id FROM files WHERE path LIKE '%' || ?", suffix)
	}
	if err != nil {
		e.t.Fatal(err)
	}
	return id
}

func (e *searchEnv) file(rel string, lines ...string) string {
	p := filepath.Join(e.root, rel)
	catalogtest.WriteFile(e.t, p, strings.Join(lines, "\n")+"\n")
	return p
}

func (e *searchEnv) refresh() {
	e.t.Helper()
	if _, err := e.ix.Refresh(context.Background()); err != nil {
		e.t.Fatal(err)
	}
	st, err := e.ix.IndexText(context.Background())
	if err != nil || len(st.Errors) > 0 {
		e.t.Fatalf("text pass: %v %v", err, st.Errors)
	}
	e.push()
}

// push mirrors the catalog into the team catalog, if the env has one.
func (e *searchEnv) push() {
	e.t.Helper()
	if e.team == nil {
		return
	}
	ps, err := e.team.Push(context.Background(), e.ix.DB, postgres.PushOptions{Machine: "m1", Roots: []string{e.root}})
	if err != nil || len(ps.Skipped) > 0 {
		e.t.Fatalf("push: %v %v", err, ps)
	}
}

// sessions returns the session ids matching q (with the filter), sorted.
func (e *searchEnv) sessions(q string, f pidex.SearchFilter) []string {
	e.t.Helper()
	n, err := fts.Parse(q)
	if err != nil {
		e.t.Fatalf("parse %q: %v", q, err)
	}
	f.Limit = 1000
	ss, err := e.searcher().SearchSessionsF(context.Background(), n, f)
	if err != nil {
		e.t.Fatalf("search %q: %v", q, err)
	}
	var ids []string
	for _, s := range ss {
		ids = append(ids, s.SessionID)
	}
	sort.Strings(ids)
	return ids
}

func TestSearchMatching(t *testing.T) { onBackends(t, testSearchMatching) }

func testSearchMatching(t *testing.T, e *searchEnv) {
	e.file("--w-app--/a.jsonl",
		hdr("sa", "/w/app"),
		userMsg("a1", "", "The Café au lait bug: parse_header fails with ERR_MODULE_NOT_FOUND in session-manager.ts", "2026-05-01T10:00:01.000Z"),
		asstMsg("a2", "a1", "claude-opus", "I will run the migration again and then check the quick brown fox.", "thinking about zebra stripes"),
		toolResult("a3", "a2", "package query // lives in src/query/path.go"),
		bash("a4", "a3", "go test ./indexer", "FAIL indexer_gopher 0.3s"),
		compaction("a5", "a4", "Summary: we fixed the lighthouse keeper issue."),
		labelEntry("a6", "a5", "a2", "checkpoint-walrus"),
		nameEntry("a7", "a6", "Penguin refactor"),
	)
	e.file("--w-jp--/b.jsonl",
		hdr("sb", "/w/jp"),
		userMsg("b1", "", "全文検索エンジンのインデックスを再構築しました。", "2026-05-02T10:00:01.000Z"),
		asstMsg("b2", "b1", "gpt-x", "数据库压缩完成，测试通过。", "한국어검색테스트"),
	)
	e.file("--w-other--/c.jsonl",
		hdr("sc", "/w/other"),
		userMsg("c1", "", "cafeteria menu, a quick fox, nothing else; header parse", "2026-06-01T10:00:01.000Z"),
	)
	e.refresh()
	all := pidex.SearchFilter{}
	tests := []struct {
		q    string
		want string
	}{
		{"cafe", "sa"}, {"CAFÉ", "sa"}, {"café", "sa"}, // case and diacritics
		{"parse_header", "sa"}, {"session-manager.ts", "sa"}, {"ERR_MODULE_NOT_FOUND", "sa"}, // identifiers as typed
		{"src/query/path.go", "sa sb"},      // a path, in tool calls and a tool result
		{`"quick brown fox"`, "sa"},         // a phrase
		{"quick fox", "sa sc"},              // both words, anywhere
		{`"quick fox"`, "sc"},               // the phrase only where adjacent
		{"migrat*", "sa"},                   // a prefix
		{"cafe*", "sa sc"},                  // prefix across words
		{"zebra", "sa"},                     // thinking
		{"gopher", "sa"},                    // bash output (indexer_gopher is two words)
		{"lighthouse", "sa"},                // compaction summary
		{"walrus", "sa"}, {"penguin", "sa"}, // label, session name
		{"read", "sa sb"},                             // tool call name
		{"lighthouse OR cafeteria", "sa sc"},          // OR
		{"fox -brown", "sc"},                          // exclusion
		{"quick -(brown OR menu)", ""},                // excluded group
		{"検索", "sb"}, {"インデックス", "sb"}, {"再構築", "sb"}, // Japanese, 2, 6 and 3 characters
		{"压缩", "sb"}, {"数据库", "sb"}, {"测试通过", "sb"}, // Chinese
		{"검색", "sb"}, // Korean
		{"索エ", "sb"}, // across a script change inside the run
		{"エンジン", "sb"}, {"ンジ", "sb"}, {"検*", "sb"}, {"ン*", "sb"},
		{"構築再", ""}, // order matters
		{"header parse", "sa sc"}, {"parse header", "sa sc"}, {`"header parse"`, "sc"},
	}
	for _, tt := range tests {
		got := strings.Join(e.sessions(tt.q, all), " ")
		if got != tt.want {
			t.Errorf("search %q = [%s], want [%s]", tt.q, got, tt.want)
		}
	}
}

func TestSearchFiltersAndBranches(t *testing.T) { onBackends(t, testSearchFiltersAndBranches) }

func testSearchFiltersAndBranches(t *testing.T, e *searchEnv) {
	e.file("--w-app--/a.jsonl",
		hdr("sa", "/w/app"),
		userMsg("a1", "", "aardvark in the user text", "2026-05-01T10:00:01.000Z"),
		asstMsg("a2", "a1", "claude-opus", "aardvark from the assistant", "x"),
		toolResult("a3", "a2", "aardvark in a tool result"),
		compaction("a4", "a3", "aardvark in a summary"),
		// a branch from a1, abandoned: the leaf continues from a4
		userMsg("b1", "a1", "okapi only on the abandoned branch", "2026-05-03T10:00:01.000Z"),
		userMsg("a5", "a4", "back on the main branch with the narwhal", "2026-05-04T10:00:01.000Z"),
	)
	fork := e.file("--w-lib--/fork.jsonl",
		hdr("sf", "/w/lib"),
		userMsg("a1", "", "aardvark in the user text", "2026-05-01T10:00:01.000Z"),
		userMsg("b1", "a1", "okapi only on the abandoned branch", "2026-05-03T10:00:01.000Z"),
	)
	_ = fork
	e.refresh()
	ids := func(q string, f pidex.SearchFilter) string { return strings.Join(e.sessions(q, f), " ") }
	hits := func(q string, f pidex.SearchFilter) []pidex.Hit {
		n, _ := fts.Parse(q)
		f.Limit = 100
		hs, err := e.searcher().SearchF(context.Background(), n, f)
		if err != nil {
			t.Fatal(err)
		}
		return hs
	}
	roles := func(hs []pidex.Hit) string {
		var r []string
		for _, h := range hs {
			r = append(r, h.Role)
		}
		sort.Strings(r)
		return strings.Join(r, " ")
	}
	check := func(what, got, want string) {
		t.Helper()
		if got != want {
			t.Errorf("%s: got [%s], want [%s]", what, got, want)
		}
	}
	check("all branches: the fork and the abandoned branch", ids("okapi", pidex.SearchFilter{}), "sa sf")
	check("--branch active", ids("okapi", pidex.SearchFilter{Active: true}), "sf") // in the fork, b1 is the leaf
	check("--branch active keeps the current path", ids("narwhal aardvark", pidex.SearchFilter{Active: true}), "")
	check("--branch active, main path", ids("narwhal", pidex.SearchFilter{Active: true}), "sa")
	check("--project", ids("aardvark", pidex.SearchFilter{Where: pidex.Where{"project": "lib"}}), "sf")
	check("--cwd", ids("aardvark", pidex.SearchFilter{Where: pidex.Where{"cwd": "/w/app"}}), "sa")
	check("--role user", roles(hits("aardvark", pidex.SearchFilter{Role: "user"})), "user user")
	check("--role assistant", roles(hits("aardvark", pidex.SearchFilter{Role: "assistant"})), "assistant")
	check("--role tool", roles(hits("aardvark", pidex.SearchFilter{Role: "tool"})), "toolResult")
	check("--role summary", roles(hits("aardvark", pidex.SearchFilter{Role: "summary"})), "compaction")
	check("--model", roles(hits("aardvark", pidex.SearchFilter{Where: pidex.Where{"model": "OPUS"}})), "assistant")
	since := time.UnixMilli(1777802400000) // 2026-05-03T10:00:00Z
	check("--since", ids("aardvark OR narwhal", pidex.SearchFilter{Since: since.Add(time.Millisecond)}), "sa")
	// The totals within a lower time bound (SearchPlan.Recent: a team
	// catalog counts them newest file first).
	totals := func(q string, f pidex.SearchFilter) string {
		n, _ := fts.Parse(q)
		got, err := e.searcher().SearchTotalsF(context.Background(), n, f)
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("%d in %d", got.Hits, got.Sessions)
	}
	check("totals", totals("aardvark OR narwhal OR okapi", pidex.SearchFilter{}), "8 in 2")
	check("--since totals", totals("aardvark OR narwhal OR okapi", pidex.SearchFilter{Since: since.Add(time.Millisecond)}), "3 in 2")
	check("--until", ids("aardvark OR okapi", pidex.SearchFilter{Until: since}), "sa sf")
	check("--session", ids("aardvark", pidex.SearchFilter{FileID: e.fileID("fork.jsonl")}), "sf")

	hs := hits("narwhal", pidex.SearchFilter{})
	if len(hs) != 1 || hs[0].EntryID != "a5" || hs[0].Line != 7 || hs[0].Snippet == "" || len(hs[0].Highlights) != 1 {
		t.Fatalf("hit: %+v", hs)
	}
	if got := []rune(hs[0].Snippet)[hs[0].Highlights[0][0]:hs[0].Highlights[0][1]]; string(got) != "narwhal" {
		t.Errorf("highlight covers %q", string(got))
	}
	newest := hits("aardvark OR okapi", pidex.SearchFilter{Newest: true})
	for i := 1; i < len(newest); i++ {
		if *newest[i].Timestamp > *newest[i-1].Timestamp {
			t.Errorf("--sort newest out of order at %d", i)
		}
	}
}

// A page asked for after its totals, by the same reader, shows what a
// push added in between (a team reader's page takes the newest matches
// its totals gathered within a time bound only while the catalog has not
// changed).
func TestPageAfterTotalsSeesAPush(t *testing.T) { onBackends(t, testPageAfterTotalsSeesAPush) }

func testPageAfterTotalsSeesAPush(t *testing.T, e *searchEnv) {
	e.file("--w-app--/a.jsonl", hdr("sa", "/w/app"), userMsg("a1", "", "a quokka", "2026-05-01T10:00:01.000Z"))
	e.file("--w-app--/b.jsonl", hdr("sb", "/w/app"), userMsg("b1", "", "two quokkas, one quokka", "2026-05-02T10:00:01.000Z"))
	e.refresh()
	r := e.searcher()
	q, _ := fts.Parse("quokka")
	f := pidex.SearchFilter{Since: time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC), Limit: 10}
	page := func(want int) {
		t.Helper()
		if _, err := r.SearchTotalsF(context.Background(), q, f); err != nil {
			t.Fatal(err)
		}
		hs, err := r.SearchF(context.Background(), q, f)
		if err != nil || len(hs) != want {
			t.Fatalf("page after totals: %d hits (%v), want %d", len(hs), err, want)
		}
	}
	page(2)
	if _, err := r.SearchTotalsF(context.Background(), q, f); err != nil {
		t.Fatal(err)
	}
	e.file("--w-app--/c.jsonl", hdr("sc", "/w/app"), userMsg("c1", "", "a third quokka", "2026-05-03T10:00:01.000Z"))
	e.refresh()
	hs, err := r.SearchF(context.Background(), q, f)
	if err != nil || len(hs) != 3 {
		t.Fatalf("the page after a push, its totals before it: %d hits (%v), want 3", len(hs), err)
	}
	page(3)
	// Totals of another bound say nothing of this page.
	later := f
	later.Since = time.Date(2026, 5, 3, 0, 0, 0, 0, time.UTC)
	if _, err := r.SearchTotalsF(context.Background(), q, later); err != nil {
		t.Fatal(err)
	}
	if hs, err := r.SearchF(context.Background(), q, f); err != nil || len(hs) != 3 {
		t.Fatalf("the page after another bound's totals: %d hits (%v), want 3", len(hs), err)
	}
}

// The text index follows the files: an append adds the new lines' text, a
// rewrite replaces it, a removal drops it.
func TestSearchIncremental(t *testing.T) { onBackends(t, testSearchIncremental) }

func testSearchIncremental(t *testing.T, e *searchEnv) {
	p := e.file("--w-app--/a.jsonl", hdr("sa", "/w/app"), userMsg("a1", "", "first quokka", "2026-05-01T10:00:01.000Z"))
	e.refresh()
	check := func(q, want string) {
		t.Helper()
		if got := strings.Join(e.sessions(q, pidex.SearchFilter{}), " "); got != want {
			t.Errorf("search %q = [%s], want [%s]", q, got, want)
		}
	}
	check("quokka", "sa")
	catalogtest.AppendFile(t, p, userMsg("a2", "a1", "then a wombat appeared", "2026-05-01T10:00:02.000Z")+"\n")
	// The metadata refresh alone: an append to a file whose text is caught
	// up carries its text in the same transaction as its entries.
	if _, err := e.ix.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	e.push()
	check("wombat", "sa")
	e.refresh()
	check("quokka", "sa")
	var text, off int64
	if err := e.ix.DB.QueryRow("SELECT text_offset, offset FROM files").Scan(&text, &off); err != nil || text != off {
		t.Errorf("text cursor %d, offset %d (%v)", text, off, err)
	}
	e.file("--w-app--/a.jsonl", hdr("sa", "/w/app"), userMsg("x1", "", "rewritten: only a platypus now", "2026-05-01T10:00:01.000Z"))
	e.refresh()
	check("platypus", "sa")
	check("quokka", "")
	check("wombat", "")
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	e.refresh()
	check("platypus", "")
	var rows int
	if err := e.ix.DB.Get(&rows, "SELECT count(*) FROM text_index('platypus OR quokka OR wombat')"); err != nil || rows != 0 {
		t.Errorf("index rows left after removal: %d (%v)", rows, err)
	}
	if e.team != nil {
		if err := e.team.DB().QueryRow(`SELECT (SELECT count(*) FROM text_index) + (SELECT count(*) FROM files)`).Scan(&rows); err != nil || rows != 0 {
			t.Errorf("team catalog rows left after removal: %d (%v)", rows, err)
		}
	}
}

// Every query the language accepts runs in FTS5 without an SQLite error.
func FuzzSearchQuery(f *testing.F) {
	for _, s := range []string{"a", `"a b"*`, "a OR b", "-x y", "(a OR b) -c", "検索", "NEAR(a)", `a"`, "x* y*", "c++ OR c#"} {
		f.Add(s)
	}
	db, err := sqlite.Open(context.Background(), filepath.Join(f.TempDir(), "c.sqlite"))
	if err != nil {
		f.Fatal(err)
	}
	defer db.Close()
	db.MustExec("INSERT INTO text_index (rowid, text) VALUES (1, 'hello world 全文 文検 検索 索')")
	f.Fuzz(func(t *testing.T, q string) {
		n, err := fts.Parse(q)
		if err != nil {
			if !errors.Is(err, pidex.ErrUsage) {
				t.Fatalf("Parse(%q): %v is not a usage error", q, err)
			}
			return
		}
		var c int
		expr, _ := fts.IndexMatch(n) // what the catalog's index runs
		if err := db.Get(&c, "SELECT count(*) FROM text_index WHERE text_index MATCH ?", expr); err != nil {
			t.Fatalf("Parse(%q) → %s: %v", q, expr, err)
		}
	})
}

// Pages of a search (Offset) are the slices of the whole answer, for hits
// and for sessions.
func TestSearchPages(t *testing.T) { onBackends(t, testSearchPages) }

func testSearchPages(t *testing.T, e *searchEnv) {
	for i := range 7 {
		e.file(fmt.Sprintf("--w-app--/s%d.jsonl", i), hdr(fmt.Sprintf("s%d", i), "/w/app"),
			userMsg("a1", "", fmt.Sprintf("pangolin number %d", i), fmt.Sprintf("2026-05-0%dT10:00:01.000Z", i+1)),
			userMsg("a2", "a1", "and another pangolin", fmt.Sprintf("2026-05-0%dT10:00:02.000Z", i+1)))
	}
	e.refresh()
	r := e.searcher()
	q, _ := fts.Parse("pangolin")
	all, err := r.SearchF(context.Background(), q, pidex.SearchFilter{Limit: 100})
	if err != nil || len(all) != 14 {
		t.Fatalf("%d hits (%v), want 14", len(all), err)
	}
	paged := pagesOfFour(t, r, q, len(all))
	for i := range all {
		if paged[i].Path != all[i].Path || paged[i].Offset != all[i].Offset {
			t.Errorf("hit %d: page gives %s@%d, the whole answer %s@%d", i, paged[i].Path, paged[i].Offset, all[i].Path, all[i].Offset)
		}
	}
	ss, _ := r.SearchSessionsF(context.Background(), q, pidex.SearchFilter{Limit: 3, Offset: 6})
	if len(ss) != 1 {
		t.Errorf("the last page of sessions holds %d, want 1", len(ss))
	}
}

// Every query within the parser's bounds runs in FTS5: the worst shapes at
// fts.MaxDepth, MaxTerms and MaxExclusions, and random queries within
// them, reach neither "parser stack overflow" nor "expression tree is too
// large". 300 random queries here; PIDEX_QUERIES=N for N.
func TestQueryBoundsReachNoSQLiteLimit(t *testing.T) {
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "c.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.MustExec("INSERT INTO text_index (rowid, text) VALUES (1, 'a b x y z')")
	nest := func(open, inner, close string) string {
		return strings.Repeat(open, fts.MaxDepth) + inner + strings.Repeat(close, fts.MaxDepth)
	}
	negs := func(n int, what string) string { return strings.Repeat(" -"+what, n) }
	queries := []string{
		nest("(x OR ", "a", ")"),
		nest("(x ", "a", ")"),
		nest("x -(y ", "a", ")"),
		nest("(x OR y -z ", "a", ")"),
		strings.Repeat("(x OR (y ", fts.MaxDepth/2) + "a" + strings.Repeat("))", fts.MaxDepth/2),
		nest("(x OR ", "a"+negs(fts.MaxExclusions, "b"), ")"),
		nest("x -(y OR ", "a", ")") + negs(fts.MaxExclusions-fts.MaxDepth, "b"),
		"a" + negs(fts.MaxExclusions, "x"),
		"a" + negs(fts.MaxExclusions, "(x OR y)"),
		"a" + negs(fts.MaxExclusions, "(x OR (y OR (z OR b)))"),
		strings.Repeat("w ", fts.MaxTerms),
		strings.Repeat("w OR ", fts.MaxTerms-1) + "a",
		strings.Repeat("(a b) OR ", fts.MaxTerms/2-1) + "(a b)",
		strings.Repeat(`"a b" `, fts.MaxTerms),
	}
	// Random queries at the bounds.
	n := 300
	if v := os.Getenv("PIDEX_QUERIES"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil {
			t.Fatal(err)
		}
	}
	rng := rand.New(rand.NewPCG(16, 9))
	for range n {
		g := &queryGen{rng: rng}
		queries = append(queries, g.group(0))
	}
	for _, q := range queries {
		n, err := fts.Parse(q)
		if err != nil {
			if errors.Is(err, pidex.ErrUsage) && strings.Contains(err.Error(), "at most") {
				continue // the generator may pass a bound: the parser refuses it, fine
			}
			t.Fatalf("Parse(%.60q…): %v", q, err)
		}
		var c int
		expr, _ := fts.IndexMatch(n) // what the catalog's index runs
		if err := db.Get(&c, "SELECT count(*) FROM text_index WHERE text_index MATCH ?", expr); err != nil {
			t.Fatalf("Parse(%.60q…) → %.80s…: %v", q, expr, err)
		}
	}
}

// queryGen writes random queries that stay near the parser's bounds.
type queryGen struct {
	rng         *rand.Rand
	terms, negs int
}

func (g *queryGen) group(depth int) string {
	var parts []string
	for i := range 1 + g.rng.IntN(4) {
		if g.terms >= fts.MaxTerms-2 {
			break
		}
		item := "a"
		switch r := g.rng.IntN(10); {
		case r < 6 && depth < fts.MaxDepth:
			item = "(" + g.group(depth+1) + ")"
		case r < 8:
			item = `"a b"`
		}
		g.terms++
		if i > 0 && g.negs < fts.MaxExclusions && g.rng.IntN(3) == 0 {
			g.negs++
			item = "-" + item
		}
		if i > 0 && g.rng.IntN(3) == 0 {
			parts = append(parts, "OR")
			item = strings.TrimPrefix(item, "-")
		}
		parts = append(parts, item)
	}
	if len(parts) == 0 {
		parts = append(parts, "a")
	}
	return strings.Join(parts, " ")
}

// A session named, then removed by another process (or a rebuild) before
// the next read of it, is "not found", not a failure: serve's requests in
// the stress test got a 500 ("load session: sql: no rows in result set")
// between a watcher's refreshes.
func TestSessionGoneAfterItWasNamed(t *testing.T) {
	e := newSearchEnv(t)
	p := e.file("--w--/a.jsonl", hdr("gone1", "/w"), userMsg("u1", "", "hello", "2026-05-01T10:00:01.000Z"))
	e.refresh()
	rd := newReader(e.ix.DB, nil)
	ref, err := rd.Resolve(context.Background(), "gone1", "")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	e.refresh()
	ctx := context.Background()
	_, err1 := rd.Info(ctx, ref)
	_, err2 := rd.TreeOf(ctx, ref.FileID)
	_, err3 := rd.PathOf(ctx, ref.FileID, "")
	_, _, _, err4 := rd.Rebuild(ctx, ref, query.ContextSpec{})
	for i, err := range []error{err1, err2, err3, err4} {
		if !errors.Is(err, pidex.ErrNotFound) {
			t.Errorf("read %d of a session gone since it was named: %v, want not found", i+1, err)
		}
	}
}

// pagesOfFour reads q's hits four at a time, past the end of the whole
// answer of n hits, and checks the pages hold n in all.
func pagesOfFour(t *testing.T, r *query.Reader, q fts.Node, n int) []pidex.Hit {
	t.Helper()
	var paged []pidex.Hit
	for off := 0; off < n+6; off += 4 {
		page, err := r.SearchF(context.Background(), q, pidex.SearchFilter{Limit: 4, Offset: off})
		if err != nil {
			t.Fatal(err)
		}
		paged = append(paged, page...)
	}
	if len(paged) != n {
		t.Fatalf("pages hold %d hits, the whole answer %d", len(paged), n)
	}
	return paged
}
