package fts

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/jmoiron/sqlx"

	"github.com/pidex-dev/pidex/internal/fts/ftstest"
)

func distinctTexts() []string {
	texts := append([]string{}, ftstest.TokenTexts...)
	texts = append(texts, "", "   ", "!!! ???", strings.Repeat("err nil return ", 3000),
		strings.Repeat("Ünïcödé ÜNÏCÖDÉ unicode ", 50), "全文検索 全文検索 全文", "x")
	var many strings.Builder // more distinct tokens than the table starts with
	for i := range 5000 {
		many.WriteString("tok")
		many.WriteString(strings.Repeat("q", i%7))
		many.WriteByte(byte('a' + i%26))
		many.WriteByte(byte('a' + i/26%26))
		many.WriteString(" tok ")
	}
	texts = append(texts, many.String())
	r := rand.New(rand.NewPCG(3, 4))
	for range 300 {
		texts = append(texts, ftstest.RandomText(r))
	}
	return texts
}

// One Distinct over many entries gives each entry's Tokens, each once in
// order of first occurrence, and their full count.
func TestDistinctIsTokensOnce(t *testing.T) {
	var d Distinct
	for _, text := range distinctTexts() {
		all := Tokens(text)
		var want []string
		for _, tk := range all {
			if !slices.Contains(want, tk) {
				want = append(want, tk)
			}
		}
		out, n := d.Append([]byte("prefix "), text)
		got := strings.Fields(strings.TrimPrefix(string(out), "prefix "))
		if !slices.Equal(got, want) || n != len(all) {
			t.Fatalf("text %.80q:\n got  %d %.200q\n want %d %.200q", text, n, got, len(all), want)
		}
	}
}

// The index built from each entry's distinct tokens holds the same terms
// for the same rows as the index built from the text itself: every token
// FTS5 reads back from Append's output is itself (folding is idempotent,
// a folded character is still a token character).
func TestDistinctIndexesAsText(t *testing.T) {
	db, err := sqlx.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, tb := range []string{"a", "b"} {
		db.MustExec(`CREATE VIRTUAL TABLE ` + tb + ` USING fts5(text, content = '', detail = none, tokenize = 'unicode61 remove_diacritics 2');
			CREATE VIRTUAL TABLE ` + tb + `_v USING fts5vocab(` + tb + `, row);`)
	}
	var d Distinct
	for i, text := range distinctTexts() {
		out, _ := d.Append(nil, text)
		db.MustExec(`INSERT INTO a (rowid, text) VALUES (?, ?)`, i+1, Prepare(text))
		db.MustExec(`INSERT INTO b (rowid, text) VALUES (?, ?)`, i+1, string(out))
	}
	var diff []string
	if err := db.Select(&diff, `SELECT term || ' ' || doc FROM (SELECT term, doc FROM a_v EXCEPT SELECT term, doc FROM b_v
		UNION ALL SELECT term, -doc FROM b_v EXCEPT SELECT term, -doc FROM a_v) LIMIT 10`); err != nil {
		t.Fatal(err)
	}
	if len(diff) > 0 {
		t.Fatalf("terms and row counts differ: %q", diff)
	}
}

// What makes the above hold for every character, not just the texts
// tried: a token character folds to a token character that folds to
// itself.
func TestFoldIsIdempotent(t *testing.T) {
	for r := rune(0); r <= utf8.MaxRune; r++ {
		if !utf8.ValidRune(r) || !isToken(r) {
			continue
		}
		f := foldRune(r)
		if f != 0 && (!isToken(f) || foldRune(f) != f) {
			t.Errorf("U+%04X folds to U+%04X (token %v), which folds to U+%04X", r, f, isToken(f), foldRune(f))
		}
	}
}

func BenchmarkDistinct(b *testing.B) {
	texts := distinctTexts()
	size := 0
	for _, s := range texts {
		size += len(s)
	}
	b.SetBytes(int64(size))
	var d Distinct
	var buf []byte
	for b.Loop() {
		for _, s := range texts {
			buf, _ = d.Append(buf[:0], s)
		}
	}
}
