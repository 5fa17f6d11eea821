package main

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/pidex-dev/pidex/internal/fts"
	"github.com/pidex-dev/pidex/internal/fts/ftstest"
	"github.com/pidex-dev/pidex/internal/pgsearch"
	"github.com/pidex-dev/pidex/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

var probeQueries = []string{
	"cafe", "CAFÉ", "café", "parse_header", "session-manager.ts", "ERR_MODULE_NOT_FOUND", "src/query/path.go",
	`"quick brown fox"`, "quick fox", `"quick fox"`, "migrat*", "cafe*", "zebra", "gopher", "lighthouse",
	"walrus", "penguin", "lighthouse OR cafeteria", "fox -brown", "quick -(brown OR menu)",
	"検索", "インデックス", "再構築", "压缩", "数据库", "测试通过", "검색", "索エ", "エンジン", "ンジ", "検*", "ン*", "構築再",
	"header parse", "parse header", `"header parse"`, `"a phrase"*`, "it's", "quoted", "back\\slash", "a'quote",
	"full", "latin", "ελληνικα", "σισυφος", "ТЕКСТ", "ss", "ß", "fi", "no", "ñ", "½", "2", "use", "ｶﾀｶﾅ", "カタカナ", "長音", "々",
	"dot", "middle", "q -r*", `"zebra stripes" -"quick brown"`, "(a OR b) -c", "th* -the",
}

func parse(t *testing.T, q string) fts.Node {
	t.Helper()
	n, err := fts.Parse(q)
	if err != nil {
		t.Fatalf("parse %q: %v", q, err)
	}
	return n
}

// The reference matcher answers what FTS5 answers.
func TestEvalEqualsFTS5(t *testing.T) {
	ctx := context.Background()
	docs := testDocs()
	db, err := openFTS5(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := loadFTS5(ctx, db, docs); err != nil {
		t.Fatal(err)
	}
	for _, q := range testQueries() {
		n := parse(t, q)
		want := evalAll(n, docs)
		got, err := SearchFTS5(ctx, db, n, 0)
		if err != nil {
			t.Fatalf("%q: %v", q, err)
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%q (%s): fts5 %v, reference %v", q, n.Match(), got, want)
		}
	}
}

func evalAll(n fts.Node, docs []Doc) []int64 {
	var out []int64
	for _, d := range docs {
		if pgsearch.Eval(n, fts.Tokens(d.Text)) {
			out = append(out, d.ID)
		}
	}
	return out
}

func testQueries() []string {
	qs := append([]string{}, probeQueries...)
	qs = append(qs, `"alpha beta"`, `"beta alpha"`, "alpha -beta", `"gamma delta"`, "hexhash*",
		`"filler needle"`, "needle -\"needle filler\"", "lexeme0 lexeme99999", `"lexeme7 lexeme8"`, "lexeme3 -lexeme40000",
		"hexhash"+strings.Repeat("0123456789abcdef", 200), "hexhash"+strings.Repeat("0123456789abcdef", 199)+"*",
		"hexhash"+strings.Repeat("0123456789abcdef", 150), `"beta omega"`, longPhrase(1, 70), longPhrase(4050, 4095)+" alpha", "f4094 -\"alpha beta\"", "lexeme3 -\"lexeme40000 lexeme40001\"")
	return qs
}

// testDocs: the fixed texts, random ones, and entries over PostgreSQL's
// tsvector limits (more than 16,383 tokens; a word more than 256 times
// before a phrase; a word longer than 2,047 bytes; more than 1 MB of
// distinct words).
func testDocs() []Doc {
	var docs []Doc
	add := func(s string) { docs = append(docs, Doc{ID: int64(len(docs) + 1), Text: s}) }
	for _, s := range ftstest.TokenTexts {
		add(s)
	}
	r := rand.New(rand.NewPCG(3, 4))
	for range 100 {
		add(ftstest.RandomText(r))
	}
	long := strings.Repeat("filler ", 20000) + "alpha beta " + strings.Repeat("filler ", 10)
	add(long)                                            // a phrase past position 16,383
	add(strings.Repeat("gamma ", 300) + "gamma delta")   // the phrase after the 256th gamma
	add(strings.Repeat("beta alpha ", 9000) + " needle") // beta alpha, never alpha beta
	add("hexhash" + strings.Repeat("0123456789abcdef", 200) + " and alpha beta")
	var b strings.Builder
	for i := range 120000 {
		fmt.Fprintf(&b, "lexeme%d ", i)
	}
	add(b.String()) // over 1 MB of distinct lexemes: several rows
	b.Reset()
	for i := range 4095 {
		fmt.Fprintf(&b, "f%d ", i)
	}
	add(b.String() + "alpha beta omega") // a phrase across the first window's end
	add("needle filler and more")
	add("lexeme3 alone")
	return docs
}

// longPhrase is the phrase "f<from> … f<to>".
func longPhrase(from, to int) string {
	var w []string
	for i := from; i <= to; i++ {
		w = append(w, fmt.Sprintf("f%d", i))
	}
	return `"` + strings.Join(w, " ") + `"`
}

func load(t *testing.T, ctx context.Context, db *sql.DB, docs []Doc) {
	t.Helper()
	if _, err := db.ExecContext(ctx, schemaSQL); err != nil {
		t.Fatal(err)
	}
	toks := make([][]string, len(docs))
	for i, d := range docs {
		toks[i] = fts.Tokens(d.Text)
	}
	ts, _ := rowsTS(docs, toks)
	for table, data := range map[string]string{"ts": ts, "tg": rowsTG(docs, toks), "texts": rowsText(docs)} {
		if err := copyIn(ctx, db, table, data); err != nil {
			t.Fatalf("copy %s: %v", table, err)
		}
	}
}

// Both PostgreSQL designs answer every query as the reference matcher
// (and so as FTS5) does, including the entries over the tsvector limits.
func TestPostgresEqualsReference(t *testing.T) {
	ctx := context.Background()
	db, err := sql.Open("pgx", pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	docs := testDocs()
	load(t, ctx, db, docs)
	var parts, lossy int
	if err := db.QueryRow(`SELECT max(part) + 1, count(*) FILTER (WHERE NOT exact) FROM ts`).Scan(&parts, &lossy); err != nil || parts < 2 || lossy != 0 {
		t.Fatalf("want entries split into windows, and no lossy window (%d, %d, %v)", parts, lossy, err)
	}
	confirmed := 0
	for _, q := range testQueries() {
		n := parse(t, q)
		want := evalAll(n, docs)
		got, c, err := SearchTS(ctx, db, n, 0)
		if err != nil {
			t.Fatalf("%q: %v", q, err)
		}
		confirmed += c
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("tsvector %q (%s): %v, reference %v", q, pgsearch.ToQuery(n, "ts", "id", 2).TSQuery, got, want)
		}
		got, err = SearchTG(ctx, db, n, 0)
		if err != nil {
			t.Fatalf("%q: %v", q, err)
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("pg_trgm %q: %v, reference %v", q, got, want)
		}
	}
	if confirmed == 0 {
		t.Error("no hit was confirmed against its text (a long phrase, a word too long for a lexeme)")
	}
}

// Why a lossy row needs the relaxed query: on a tsvector without positions
// a phrase is false (so an excluded phrase true), whatever the text.
func TestStrippedPhraseIsFalse(t *testing.T) {
	db, err := sql.Open("pgx", pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for q, want := range map[string]bool{
		`'a' <-> 'b'`:          false,
		`'b' <-> 'a'`:          false,
		`!('a' <-> 'b')`:       true,
		`'a' & !('b' <-> 'a')`: true,
		`'a' & !'b'`:           false,
		`'a' & 'b'`:            true,
		`'c' <-> 'a'`:          false,
		`'a':* <-> 'b'`:        false,
	} {
		var got bool
		if err := db.QueryRow(`SELECT strip('a:1 b:2'::tsvector) @@ $1::tsquery`, q).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("stripped 'a b' @@ %s = %v, want %v", q, got, want)
		}
	}
	// And with positions, the limits: the 257th position of a lexeme is
	// dropped, a position past 16,383 is stored as 16,383.
	var n int
	if err := db.QueryRow(`SELECT length(array_to_string(array_agg(p), ','))-length(replace(array_to_string(array_agg(p), ','), ',', ''))+1
		FROM (SELECT unnest(positions) AS p FROM unnest($1::tsvector)) x`, strings.TrimSpace(strings.Repeat("'x':1 ", 1)+" 'x':"+positions(300))).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n > 256 {
		t.Errorf("a lexeme kept %d positions: the limit moved (256)", n)
	}
}

func positions(n int) string {
	var s []string
	for i := range n {
		s = append(s, fmt.Sprint(i+1))
	}
	return strings.Join(s, ",")
}
