package fts

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/jmoiron/sqlx"

	"github.com/pidex-dev/pidex/internal/fts/ftstest"
)

// FTS5 holds the ground truth of local search: on the same texts, Tokens
// are FTS5's tokens, in order, and their number is the row's size in
// tokens that bm25 reads (docsize).
func TestTokensEqualFTS5(t *testing.T) {
	db, err := sqlx.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	db.MustExec(`CREATE VIRTUAL TABLE full_text USING fts5(text, tokenize = 'unicode61 remove_diacritics 2');
		CREATE VIRTUAL TABLE vocab USING fts5vocab(full_text, instance);`)
	texts := append([]string{}, ftstest.TokenTexts...)
	r := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		texts = append(texts, ftstest.RandomText(r))
	}
	bad := 0
	for i, text := range texts {
		db.MustExec(`INSERT INTO full_text (rowid, text) VALUES (?, ?)`, i+1, Prepare(text))
		var want []string
		if err := db.Select(&want, `SELECT term FROM vocab WHERE doc = ? ORDER BY offset`, i+1); err != nil {
			t.Fatal(err)
		}
		got := Tokens(text)
		if !slices.Equal(got, want) && bad < 10 {
			bad++
			t.Errorf("text %q:\n go    %q\n fts5  %q", text, got, want)
		}
		// The docsize record holds the row's token count (a varint after
		// nothing else, for one column).
		var size []byte
		if err := db.Get(&size, `SELECT sz FROM full_text_docsize WHERE id = ?`, i+1); err != nil {
			t.Fatal(err)
		}
		if n, _ := uvarint(size); n != uint64(len(got)) && bad < 10 {
			bad++
			t.Errorf("text %q: %d tokens, FTS5's docsize %d", text, len(got), n)
		}
	}
}

// uvarint reads an SQLite varint.
func uvarint(b []byte) (uint64, int) {
	var v uint64
	for i := 0; i < len(b) && i < 9; i++ {
		if i == 8 {
			return v<<8 | uint64(b[i]), 9
		}
		v = v<<7 | uint64(b[i]&0x7f)
		if b[i]&0x80 == 0 {
			return v, i + 1
		}
	}
	return v, len(b)
}
