package fts_test

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/jmoiron/sqlx"

	"github.com/pidex-dev/pidex/internal/fts"
	"github.com/pidex-dev/pidex/internal/fts/ftstest"
)

var indexQueries = []string{
	"cafe", "CAFÉ", "parse_header", "session-manager.ts", "ERR_MODULE_NOT_FOUND", "src/query/path.go",
	`"quick brown fox"`, "quick fox", `"quick fox"`, "migrat*", "cafe*", "zebra", "lighthouse OR cafeteria",
	"fox -brown", "quick -(brown OR menu)", "検索", "インデックス", "压缩", "数据库", "검색", "検*", "ン*",
	"header parse", `"header parse"`, `"a phrase"*`, `"quick bro"*`, "it's", "ß", "ελληνικα", "ТЕКСТ", "the",
	"the the", `"the the"`, "the OR fox", "(quick brown) OR the", `fox -"quick brown"`, `-"quick brown" fox`,
	`fox -(the -"quick brown")`, `"brown quick" OR cafe`, "再構築", "테스트", "th* -the", "e* OR i*",
}

// IndexMatch's expression, run by an index without positions, finds
// every entry the query matches (and, when it says it is exact, no
// other); the Matcher answers what Eval on all the tokens answers.
func TestIndexMatchFindsEveryMatch(t *testing.T) {
	db, err := sqlx.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	db.MustExec(`CREATE VIRTUAL TABLE ti USING fts5(text, content = '', contentless_delete = 1, detail = none,
		tokenize = 'unicode61 remove_diacritics 2')`)
	texts := append([]string{}, ftstest.TokenTexts...)
	texts = append(texts, "the quick brown fox", "fox brown quick", "quick red brown fox", "the the end",
		"再構成してから構築します", "インデックスを再構築しました", "brownie quick", "quick brownie")
	r := rand.New(rand.NewPCG(20, 1))
	for range 300 {
		texts = append(texts, ftstest.RandomText(r))
	}
	toks := make([][]string, len(texts))
	for i, s := range texts {
		db.MustExec(`INSERT INTO ti (rowid, text) VALUES (?, ?)`, i+1, fts.Prepare(s))
		toks[i] = fts.Tokens(s)
	}
	loose := 0
	for _, q := range indexQueries {
		n, err := fts.Parse(q)
		if err != nil {
			t.Fatalf("parse %q: %v", q, err)
		}
		expr, exact := fts.IndexMatch(n)
		var got []int64
		if err := db.Select(&got, `SELECT rowid FROM ti WHERE ti MATCH ? ORDER BY rowid`, expr); err != nil {
			t.Fatalf("%q → %s: %v", q, expr, err)
		}
		m := fts.NewMatcher(n)
		var want []int64
		for i := range texts {
			e := fts.Eval(n, toks[i])
			if m.Match(texts[i]) != e {
				t.Errorf("%q on %q: Matcher %v, Eval %v", q, texts[i], !e, e)
			}
			if e {
				want = append(want, int64(i+1))
			}
		}
		for _, id := range want {
			if !slices.Contains(got, id) {
				t.Errorf("%q → %s: misses row %d (%q)", q, expr, id, texts[id-1])
			}
		}
		if exact && !slices.Equal(got, want) {
			t.Errorf("%q → %s (exact): rows %v, want %v", q, expr, got, want)
		}
		if !exact && len(got) > len(want) {
			loose++
		}
	}
	if loose == 0 {
		t.Error("no query found a candidate to drop: the test shows nothing")
	}
}

// The Matcher fed a text in pieces, cut anywhere (inside a token, a CJK
// run, a UTF-8 character), answers as it does given the text whole.
func TestMatcherInPieces(t *testing.T) {
	texts := append([]string{}, ftstest.TokenTexts...)
	texts = append(texts, "the quick brown fox", "quick red brown fox", "再構成してから構築します", "インデックスを再構築しました")
	r := rand.New(rand.NewPCG(39, 6))
	for range 200 {
		texts = append(texts, ftstest.RandomText(r))
	}
	for _, q := range indexQueries {
		n, err := fts.Parse(q)
		if err != nil {
			t.Fatal(err)
		}
		m := fts.NewMatcher(n)
		for _, text := range texts {
			want := fts.Eval(n, fts.Tokens(text))
			for range 4 {
				m.Reset()
				for rest := text; len(rest) > 0; {
					k := min(len(rest), 1+r.IntN(12))
					m.Feed(rest[:k])
					rest = rest[k:]
				}
				if got := m.Close(); got != want {
					t.Errorf("%q on %q in pieces: %v, Eval %v", q, text, got, want)
					break
				}
			}
		}
	}
}

// Matching a long text holds none of its tokens: 16 MB of tool output
// (3.2 million tokens, every one a word of the phrase) allocates
// kilobytes, not a string header a token (51 MB, more as the slice grew).
func TestMatcherHoldsNoTokens(t *testing.T) {
	text := strings.Repeat("line of tool output\n", 16<<20/20) + "the end"
	n, err := fts.Parse(`"tool output the end"`)
	if err != nil {
		t.Fatal(err)
	}
	m := fts.NewMatcher(n)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	ok := m.Match(text)
	runtime.ReadMemStats(&after)
	if !ok {
		t.Fatal("no match")
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
		t.Errorf("matching 16 MB allocated %d MB", alloc>>20)
	}
}
