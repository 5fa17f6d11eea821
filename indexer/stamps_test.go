package indexer

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/pidex-dev/pidex/sqlite"
)

// A refresh that changes nothing keeps the stamps it read from the rows
// as a blob, and later refreshes plan from the blob alone, seeing every
// append, new file and removal as the rows would; a change makes the blob
// stale until the next refresh that changes nothing; one catalog's blob
// serves indexers of different roots (each sees only its own files); a
// blob that does not read is read past.
func TestStampsBlob(t *testing.T) {
	ctx := context.Background()
	root, other := t.TempDir(), t.TempDir()
	a := filepath.Join(root, "--w-app--", "a.jsonl")
	b := filepath.Join(root, "--w-app--", "b.jsonl")
	c := filepath.Join(other, "--w-lib--", "c.jsonl")
	for _, p := range []string{a, b, c} {
		write(t, p, header+msg("u1", "", "user", "hello", 1))
		old(t, p)
	}
	ix := newIndexer(t, root)
	ixOther := &Indexer{DB: ix.DB, Roots: []string{other}}
	rowReads := 0
	ix.onStampRows = func() { rowReads++ }
	ixOther.onStampRows = ix.onStampRows
	blob := func() bool {
		t.Helper()
		c, err := ix.DB.LoadCache(ctx, ix.DB.DB, sqlite.CacheStamps)
		if err != nil {
			t.Fatal(err)
		}
		return c.Data != nil
	}
	step := func(name string, ix *Indexer, wantRowReads int, wantBlob bool, check func(new, appended, removed, unchanged int) bool) {
		t.Helper()
		rowReads = 0
		st := refresh(t, ix)
		if rowReads != wantRowReads || blob() != wantBlob || !check(st.New, st.Appended, st.Removed, st.Unchanged) {
			t.Fatalf("%s: %d row reads (want %d), blob %v (want %v), stats %+v", name, rowReads, wantRowReads, blob(), wantBlob, st)
		}
	}
	step("cold", ix, 1, false, func(n, _, _, _ int) bool { return n == 2 })
	step("other root, cold", ixOther, 1, false, func(n, _, _, _ int) bool { return n == 1 })
	step("nothing changed: the rows' stamps kept", ix, 1, true, func(_, _, _, u int) bool { return u == 2 })
	step("from the blob", ix, 0, true, func(_, _, _, u int) bool { return u == 2 })
	step("the other root from the same blob", ixOther, 0, true, func(_, _, _, u int) bool { return u == 1 })

	appendTo(t, a, msg("a1", "u1", "assistant", "hi", 2))
	old(t, a)
	step("an append seen from the blob", ix, 0, false, func(_, ap, _, u int) bool { return ap == 1 && u == 1 })
	step("stale blob: the rows again, kept", ix, 1, true, func(_, _, _, u int) bool { return u == 2 })

	d := filepath.Join(root, "--w-app--", "d.jsonl")
	write(t, d, header+msg("u1", "", "user", "new", 1))
	old(t, d)
	step("a new file seen from the blob", ix, 0, false, func(n, _, _, _ int) bool { return n == 1 })
	step("kept again", ix, 1, true, func(_, _, _, u int) bool { return u == 3 })
	if err := os.Remove(b); err != nil {
		t.Fatal(err)
	}
	step("a removal seen from the blob", ix, 0, false, func(_, _, r, u int) bool { return r == 1 && u == 2 })
	step("kept again", ix, 1, true, func(_, _, _, u int) bool { return u == 2 })

	if _, err := ix.DB.ExecContext(ctx, `UPDATE read_caches SET data = x'07' WHERE name = 'stamps'`); err != nil {
		t.Fatal(err)
	}
	step("a blob that does not read: the rows", ix, 1, true, func(_, _, _, u int) bool { return u == 2 })
}

// old sets a file's times well in the past: its stamp is not racy (a
// racy stamp has its content checked on the next refresh, which is a
// change of its own).
func old(t *testing.T, path string) {
	t.Helper()
	past := time.Now().Add(-time.Hour)
	if err := os.Chtimes(path, past, past); err != nil {
		t.Fatal(err)
	}
}

// The blob is in path order, which a no-change refresh relies on
// (unchangedAll); a blob that is not reads as none.
func TestStampsBlobOrder(t *testing.T) {
	st := func(p, root string) rootStamp {
		return rootStamp{fileStamp: fileStamp{Path: p, Kind: FileSession, fileStat: fileStat{Size: 1}}, root: root}
	}
	sorted := []rootStamp{st("/r/a", "/r"), st("/s/b", "/s"), st("/s/c", "/s")}
	got, err := decodeStampsUnder(encodeStamps(sorted), []string{"/s"})
	if err != nil || len(got) != 2 || got[0].Path != "/s/b" || got[1].Path != "/s/c" {
		t.Fatalf("in order: %+v, %v", got, err)
	}
	for _, bad := range [][]rootStamp{
		{st("/r/b", "/r"), st("/r/a", "/r")},
		{st("/r/a", "/r"), st("/r/a", "/r")},
		{st("/s/b", "/s"), st("/r/a", "/r")}, // out of order in a root not asked for
	} {
		if got, err := decodeStampsUnder(encodeStamps(bad), []string{"/r", "/s"}); !errors.Is(err, errStampsOrder) {
			t.Errorf("%v: %+v, %v; want errStampsOrder", bad, got, err)
		}
	}
}
