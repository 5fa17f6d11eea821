package migrations

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jmoiron/sqlx"
	"github.com/pressly/goose/v3"
	_ "modernc.org/sqlite"

	"github.com/pidex-dev/pidex/internal/fts"
	"github.com/pidex-dev/pidex/internal/fts/ftstest"
)

// 00014 keeps a catalog's text index: each entry's size in tokens is
// read from FTS5's docsize varint, one to four bytes, in SQL. Entries
// of up to 300,000 tokens, indexed as pidex indexed them before 00014
// (the prepared text itself), get the sizes and totals fts.Tokens counts.
func TestTextSizesFromDocsize(t *testing.T) {
	ctx := context.Background()
	db, err := sqlx.Open("sqlite", "file:"+filepath.Join(t.TempDir(), "c.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	p, err := goose.NewProvider(goose.DialectSQLite3, db.DB, FS)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.UpTo(ctx, 13); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(5, 6))
	texts := append([]string{"", "!!!"}, ftstest.TokenTexts...)
	for _, n := range []int{1, 126, 127, 128, 129, 16383, 16384, 16385, 300000} {
		texts = append(texts, strings.Repeat("w ", n))
	}
	for range 50 {
		texts = append(texts, ftstest.RandomText(r))
	}
	want := map[int64]int{}
	rows, tokens := 0, 0
	for i, s := range texts {
		id := int64(i+1)<<fts.LineBits | 7
		db.MustExec(`INSERT INTO text_index (rowid, text) VALUES (?, ?)`, id, fts.Prepare(s))
		want[id] = len(fts.Tokens(s))
		rows, tokens = rows+1, tokens+want[id]
	}
	if _, err := p.UpTo(ctx, 14); err != nil {
		t.Fatal(err)
	}
	var got []struct{ ID, N int64 }
	if err := db.Select(&got, `SELECT id, n FROM text_sizes ORDER BY id`); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("%d sizes for %d rows", len(got), len(want))
	}
	for _, g := range got {
		if int(g.N) != want[g.ID] {
			t.Errorf("row %d: size %d, want %d", g.ID, g.N, want[g.ID])
		}
	}
	var tot struct{ Rows, Tokens int }
	if err := db.Get(&tot, `SELECT rows, tokens FROM text_totals`); err != nil {
		t.Fatal(err)
	}
	if tot.Rows != rows || tot.Tokens != tokens {
		t.Errorf("totals %+v, want %d rows of %d tokens", tot, rows, tokens)
	}
}
