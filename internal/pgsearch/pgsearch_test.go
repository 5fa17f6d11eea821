package pgsearch

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/jmoiron/sqlx"
	_ "modernc.org/sqlite" // FTS5 is the reference

	"github.com/pidex-dev/pidex/internal/fts"
	"github.com/pidex-dev/pidex/internal/fts/ftstest"
)

func parse(t *testing.T, q string) fts.Node {
	t.Helper()
	n, err := fts.Parse(q)
	if err != nil {
		t.Fatalf("parse %q: %v", q, err)
	}
	return n
}

func TestToQuery(t *testing.T) {
	for q, want := range map[string]string{
		"error":             `'error'`,
		"parse_header":      `('parse' <-> 'header')`,
		"src/query/path.go": `('src' <-> 'query' <-> 'path' <-> 'go')`,
		`"two words"*`:      `('two' <-> 'words':*)`,
		"migrat*":           `'migrat':*`,
		"a b":               `('a' & 'b')`,
		"a OR b":            `('a' | 'b')`,
		"a b OR c":          `(('a' & 'b') | 'c')`,
		"a -b -(c OR d)":    `('a' & !'b' & !('c' | 'd'))`,
		"検索":                `'検索'`,
		"インデックス":            `('イン' <-> 'ンデ' <-> 'デッ' <-> 'ック' <-> 'クス')`,
		"検*":                `'検':*`,
		"Café":              `'cafe'`,
		"it's":              `('it' <-> 's')`,
	} {
		if got := ToQuery(parse(t, q), "t", "id", 2).TSQuery; got != want {
			t.Errorf("%q → %s, want %s", q, got, want)
		}
	}
	for q, want := range map[string]string{
		`"b c" -d`:        `(('b' & 'c') & !'d')`,
		`a -"b c"`:        `('a' & !'!')`,
		`a -(b OR "c d")`: `('a' & !('b' | '!'))`,
		`a -(b -"c d")`:   `('a' & !('b' & !('c' & 'd')))`,
		"parse_header*":   `('parse' & 'header':*)`,
	} {
		if got := ToQuery(parse(t, q), "t", "id", 2).Relaxed; got != want {
			t.Errorf("%q relaxed → %s, want %s", q, got, want)
		}
	}
	w := ToQuery(parse(t, "a -b"), "text_index", `file_id, "offset"`, 3)
	want := `SELECT file_id, "offset" FROM ((SELECT DISTINCT file_id, "offset" FROM text_index WHERE win AND ((exact AND tsv @@ $3::tsquery) OR (NOT exact AND tsv @@ $4::tsquery)))) p EXCEPT ((SELECT DISTINCT file_id, "offset" FROM text_index WHERE win AND ((exact AND tsv @@ $5::tsquery) OR (NOT exact AND tsv @@ $6::tsquery))))`
	if w.Windows != want || len(w.Args) != 4 {
		t.Errorf("windows:\n%s\nwant\n%s (%d args)", w.Windows, want, len(w.Args))
	}
}

// queries of every rule of the language, and of the ranking's corners
// (a phrase twice, an AND inside an OR, exclusions).
var queries = []string{
	"cafe", "CAFÉ", "parse_header", "session-manager.ts", "ERR_MODULE_NOT_FOUND", "src/query/path.go",
	`"quick brown fox"`, "quick fox", "migrat*", "cafe*", "zebra", "lighthouse OR cafeteria", "fox -brown",
	"quick -(brown OR menu)", "検索", "インデックス", "压缩", "数据库", "검색", "検*", "ン*", "header parse",
	`"header parse"`, `"a phrase"*`, "it's", "quoted", "ß", "ελληνικα", "ТЕКСТ", "the", "the the", "the OR fox",
	"(quick brown) OR the", "(quick menu) OR cafe", "th* -the", "a*", "e* OR i*", "quick -fox OR header",
}

// The reference matcher answers what FTS5 answers.
func TestEvalEqualsFTS5(t *testing.T) {
	db, err := sqlx.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	db.MustExec(`CREATE VIRTUAL TABLE text_index USING fts5(text, content = '', contentless_delete = 1,
		tokenize = 'unicode61 remove_diacritics 2')`)
	texts := append([]string{}, ftstest.TokenTexts...)
	r := rand.New(rand.NewPCG(5, 6))
	for range 200 {
		texts = append(texts, ftstest.RandomText(r))
	}
	toks := make([][]string, len(texts))
	for i, s := range texts {
		db.MustExec(`INSERT INTO text_index (rowid, text) VALUES (?, ?)`, i+1, fts.Prepare(s))
		toks[i] = fts.Tokens(s)
	}
	matched := 0
	for _, q := range queries {
		n := parse(t, q)
		var got []int64
		if err := db.Select(&got, `SELECT rowid FROM text_index WHERE text_index MATCH ? ORDER BY rowid`, n.Match()); err != nil {
			t.Fatalf("%q: %v", q, err)
		}
		var ids []int64
		for i := range texts {
			if Eval(n, toks[i]) {
				ids = append(ids, int64(i+1))
			}
		}
		if !slices.Equal(got, ids) {
			t.Errorf("%q (%s): fts5 %v, reference %v", q, n.Match(), got, ids)
		}
		matched += len(got)
	}
	if matched < 100 {
		t.Errorf("only %d matches compared", matched)
	}
}

// An entry's search rows hold every token at its position: placing each
// row's lexemes at its First gives the entry's tokens back, for entries of
// one row and of windows (past 16,383 tokens, a word more than 256 times
// in a window, windows halved).
func TestRowsPlaceEveryToken(t *testing.T) {
	var cases [][]string
	r := rand.New(rand.NewPCG(9, 9))
	words := []string{"the", "it's", `back\slash`, "検索", "a", "gamma", "delta"}
	for _, n := range []int{1, 50, 16383, 16384, 20000, 40000} {
		toks := make([]string, n)
		for i := range toks {
			toks[i] = words[r.IntN(len(words))]
			if r.IntN(5) == 0 {
				toks[i] = fmt.Sprintf("w%d", r.IntN(n+1))
			}
		}
		cases = append(cases, toks)
	}
	rep := make([]string, 0, 9000)
	for range 9000 {
		rep = append(rep, "gamma") // one word, far more than 256 times
	}
	cases = append(cases, rep)
	for _, toks := range cases {
		rows := ToRows(toks)
		buf := make([]string, len(toks))
		for _, row := range rows {
			if !row.Exact {
				t.Fatalf("%d tokens: a lossy row", len(toks))
			}
			Place(buf, row.Literal(), int64(row.First))
		}
		for i := range toks {
			if buf[i] != toks[i] {
				t.Fatalf("%d tokens (%d rows): position %d holds %q, the entry %q", len(toks), len(rows), i, buf[i], toks[i])
			}
		}
	}
}

// Matching and bm25's frequencies on the Sparse stream of an entry's
// search rows, reduced to the query's words (as ts_filter reduces them),
// equal those on the entry's tokens, for entries of one row and of
// windows.
func TestSparseEqualsTokens(t *testing.T) {
	r := rand.New(rand.NewPCG(10, 11))
	vocab := []string{"alpha", "beta", "gamma", "delta", "the", "a"}
	queries := []string{"alpha", `"alpha beta"`, `"beta alpha beta"`, "alpha -gamma", "(alpha beta) OR delta", "alp*",
		`"the a"*`, "gamma delta -\"delta gamma\"", "the OR a OR zeta", "b* g*", `"alpha alpha"`}
	for _, n := range []int{3, 40, 5000, 17000, 30000} {
		toks := make([]string, n)
		for i := range toks {
			toks[i] = vocab[r.IntN(len(vocab))]
			if r.IntN(3) == 0 {
				toks[i] = fmt.Sprintf("x%d", r.IntN(50))
			}
		}
		rows := ToRows(toks)
		for _, qs := range queries {
			q := parse(t, qs)
			keep := func(w string) bool {
				for _, p := range Phrases(q) {
					tt := fts.TermTokens(p)
					for k, x := range tt {
						if w == x || (p.Prefix && k == len(tt)-1 && strings.HasPrefix(w, x)) {
							return true
						}
					}
				}
				return false
			}
			var sp Sparse
			for _, row := range rows {
				pos := map[string][]string{}
				var order []string
				eachPosition(row.Literal(), func(p int64, w string) {
					if keep(w) {
						if pos[w] == nil {
							order = append(order, w)
						}
						pos[w] = append(pos[w], fmt.Sprint(p))
					}
				})
				var lit []string
				for _, w := range order {
					lit = append(lit, "'"+w+"':"+strings.Join(pos[w], ","))
				}
				sp.Place(strings.Join(lit, " "), int64(row.First))
			}
			stream := sp.Stream()
			if Eval(q, stream) != Eval(q, toks) {
				t.Errorf("%d tokens, %q: matches %v on the stream, %v on the tokens", n, qs, Eval(q, stream), Eval(q, toks))
			}
		}
	}
}

// Place writes the lexemes of a tsvector literal into buf at their
// positions shifted by at (position p goes to buf[at+p-1]); positions past
// buf are dropped.
func Place(buf []string, tsv string, at int64) {
	eachPosition(tsv, func(pos int64, word string) {
		if at+pos <= int64(len(buf)) {
			buf[at+pos-1] = word
		}
	})
}

// A loose query is what the local index runs (fts.IndexMatch): the same
// expression, and each token of a phrase a term of that one token.
func TestLooseTokens(t *testing.T) {
	for _, q := range append(slices.Clone(queries), `a -(b OR "c d")`, `x -"y z" -w`, "parse_header*", "インデックス OR 検索") {
		n := parse(t, q)
		l, exact := fts.Loose(n)
		want, wantExact := fts.IndexMatch(n)
		got, _ := fts.IndexMatch(l)
		if exact != wantExact {
			t.Errorf("%q: exact %v, IndexMatch says %v", q, exact, wantExact)
		}
		norm := strings.NewReplacer(`"`, "", "(", "", ")", "").Replace
		if norm(got) != norm(want) {
			t.Errorf("%q: loose %s, IndexMatch %s", q, got, want)
		}
		for _, term := range Phrases(l) {
			if toks := fts.TermTokens(term); len(toks) > 1 {
				t.Errorf("%q: loose term %q has %d tokens", q, term.Text, len(toks))
			}
		}
	}
}

// A row that cannot keep its positions holds each distinct lexeme once,
// sorted as PostgreSQL keeps them.
func TestStrippedRow(t *testing.T) {
	r := stripped([]string{"b", "it's", "a", "b", "ab"})
	if got, want := r.Literal(), `'a' 'ab' 'b' 'it''s'`; got != want || r.Exact {
		t.Fatalf("stripped row %s (exact %v), want %s", got, r.Exact, want)
	}
}

// BenchmarkToRows builds the search rows of prose-like entries, as a push
// does for each entry (go test -bench ToRows ./internal/pgsearch).
func BenchmarkToRows(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	words := strings.Fields("the a of to and in is it for that on with as this be was are error test file func return value")
	var entries [][]string
	for _, n := range []int{12, 60, 200, 900, 5000} {
		toks := make([]string, n)
		for i := range toks {
			toks[i] = words[r.IntN(len(words))]
			if r.IntN(3) == 0 {
				toks[i] = fmt.Sprintf("w%d", r.IntN(4*n))
			}
		}
		entries = append(entries, toks)
	}
	b.ResetTimer()
	for range b.N {
		for _, toks := range entries {
			ToRows(toks)
		}
	}
}
