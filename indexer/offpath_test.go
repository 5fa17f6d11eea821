package indexer

import (
	"path/filepath"
	"testing"
)

// offPathAgrees checks off_path against the catalog's own SQL walk of the
// active paths (_active_offsets, the edges view's rule): an entry is in
// off_path exactly when the walk from its session's leaf does not reach
// it. It returns how many entries are off their paths.
func offPathAgrees(t *testing.T, ix *Indexer) int {
	t.Helper()
	var wrong, off, stray int
	err := ix.DB.Get(&wrong, `SELECT count(*) FROM entries e JOIN sessions s ON s.file_id = e.file_id
		WHERE EXISTS (SELECT 1 FROM off_path o WHERE o.file_id = e.file_id AND o.offset = e.offset)
		   = EXISTS (SELECT 1 FROM _active_offsets a WHERE a.file_id = e.file_id AND a.offset = e.offset)`)
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.DB.Get(&stray, `SELECT count(*) FROM off_path o
		WHERE NOT EXISTS (SELECT 1 FROM entries e WHERE e.file_id = o.file_id AND e.offset = o.offset)`); err != nil {
		t.Fatal(err)
	}
	if err := ix.DB.Get(&off, `SELECT count(*) FROM off_path`); err != nil {
		t.Fatal(err)
	}
	if wrong != 0 || stray != 0 {
		t.Fatalf("off_path: %d entries disagree with the walk of _active_offsets, %d rows name no entry", wrong, stray)
	}
	return off
}

// The entries off the path, kept at index time, are those the SQL walk
// does not reach: over the test corpus (branches, forks, compactions, a
// session whose entry is its own parent, an id written twice), file by
// file and as a bulk load, and after appends that move the leaf to
// another branch and back.
func TestOffPathIsWhatTheWalkMisses(t *testing.T) {
	root := filepath.Join("..", "testdata", "sessions")
	for _, bulk := range []int{0, 1} { // file by file, and as a bulk load
		ix := newIndexer(t, root)
		ix.bulkNew = bulk
		refresh(t, ix)
		if off := offPathAgrees(t, ix); off == 0 {
			t.Fatalf("bulk %d: no entry off its path: the corpus has abandoned branches", bulk)
		}
	}

	dir := t.TempDir()
	p := filepath.Join(dir, "--w-app--", "a.jsonl")
	write(t, p, header+msg("a1", "", "user", "one", 1)+msg("a2", "a1", "assistant", "two", 2)+msg("a3", "a2", "user", "three", 3))
	ix := newIndexer(t, dir)
	refresh(t, ix)
	if off := offPathAgrees(t, ix); off != 0 {
		t.Fatalf("a linear session has %d entries off its path", off)
	}
	steps := []struct {
		line string
		off  int
	}{
		{msg("b3", "a2", "user", "branch", 4), 1},             // a3 abandoned
		{msg("b4", "b3", "assistant", "on the branch", 5), 1}, // the path grows
		{msg("c4", "a3", "assistant", "back", 6), 2},          // b3, b4 abandoned; a3 back on it
		{msg("a2", "a1", "assistant", "two again", 7), 5},     // a2 written again: the old one hidden, c4's path ends at a2
	}
	for i, s := range steps {
		appendTo(t, p, s.line)
		if st := refresh(t, ix); st.Appended != 1 {
			t.Fatalf("step %d: %+v, want an append", i, st)
		}
		if off := offPathAgrees(t, ix); off != s.off {
			t.Errorf("step %d: %d entries off the path, want %d", i, off, s.off)
		}
	}
	assertSameAsFresh(t, ix)
}
