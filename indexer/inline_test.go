package indexer

import (
	"path/filepath"
	"testing"

	"github.com/pidex-dev/pidex/internal/fts"
)

// An append's text goes in with its entries only while the catalog holds
// what the refresh planned from: the file's text complete up to where the
// append starts. Here the file is left, between the plan and the write,
// at the same offset and generation with its text not done (written by
// hand: nothing in pidex moves a text cursor back without a new
// generation). The append's text must then be left to the text pass,
// which indexes the whole file; written inline, it would move the text
// cursor past the earlier entries, whose text would never be indexed.
func TestInlineTextOnlyWhereThePlanHolds(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "p", "s.jsonl")
	write(t, path, header+msg("a", "", "user", "alpha", 1))
	dbPath := filepath.Join(t.TempDir(), "c.sqlite")
	ix, other := openIndexer(t, dbPath, root), openIndexer(t, dbPath, root)
	refresh(t, ix)
	indexText(t, ix)
	appendTo(t, path, msg("b", "a", "assistant", "bravo", 2))
	ix.beforeApply = func(*batch) {
		ix.beforeApply = nil
		var id int64
		if err := other.DB.Get(&id, "SELECT id FROM files WHERE path = ?", path); err != nil {
			t.Fatal(err)
		}
		lo, hi := id<<fts.LineBits, (id+1)<<fts.LineBits
		tx := other.DB.MustBegin()
		for _, q := range []string{
			"DELETE FROM text_index WHERE rowid >= ? AND rowid < ?",
			"UPDATE text_totals SET rows = rows - (SELECT count(*) FROM text_sizes WHERE id >= ?1 AND id < ?2), tokens = tokens - (SELECT COALESCE(sum(n), 0) FROM text_sizes WHERE id >= ?1 AND id < ?2)",
			"DELETE FROM text_sizes WHERE id >= ? AND id < ?",
		} {
			tx.MustExec(q, lo, hi)
		}
		tx.MustExec("UPDATE files SET text_offset = 0 WHERE id = ?", id)
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	refresh(t, ix)
	indexText(t, ix)
	for _, word := range []string{"alpha", "bravo"} {
		var n int
		if err := ix.DB.Get(&n, "SELECT count(*) FROM text_index WHERE text_index MATCH ?", word); err != nil || n != 1 {
			t.Errorf("%s: %d rows in the text index (%v), want 1", word, n, err)
		}
	}
	assertSameAsFresh(t, ix)
}
