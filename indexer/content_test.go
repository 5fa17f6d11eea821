package indexer

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pidex-dev/pidex/sqlite"
)

// editInPlace replaces old with new (as long) in the file, keeping its
// inode, and sets its mtime.
func editInPlace(t *testing.T, p, old, new string, mtime time.Time) {
	t.Helper()
	if len(old) != len(new) {
		t.Fatal("not a same-size edit")
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	at := strings.Index(string(b), old)
	if at < 0 {
		t.Fatalf("%q not in the file", old)
	}
	f, err := os.OpenFile(p, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte(new), int64(at)); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := os.Chtimes(p, mtime, mtime); err != nil {
		t.Fatal(err)
	}
}

// secretSession is a session of 80 messages, one holding a secret in the
// middle, far from the fingerprinted first bytes and last bytes.
func secretSession(t *testing.T, p string, mtime time.Time) {
	var b strings.Builder
	b.WriteString(header)
	parent := ""
	for i := range 80 {
		id := fmt.Sprintf("m%02d", i)
		text := fmt.Sprintf("message %d padded to be long enough for the test, and so on and so forth", i)
		if i == 40 {
			text = "the password is hunter2"
		}
		b.WriteString(msg(id, parent, "user", text, int64(i)))
		parent = id
	}
	write(t, p, b.String())
	if err := os.Chtimes(p, mtime, mtime); err != nil {
		t.Fatal(err)
	}
}

func matches(t *testing.T, ix *Indexer, word string) int {
	t.Helper()
	if _, err := ix.IndexText(context.Background()); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := ix.DB.Get(&n, `SELECT count(*) FROM text_index WHERE text_index MATCH ?`, word); err != nil {
		t.Fatal(err)
	}
	return n
}

// A session edited in place with a same-length replacement (same inode,
// same size) is read again: search no longer finds the old text. It used
// to stay "unchanged" forever.
func TestSameSizeEditIsNoticed(t *testing.T) {
	hourAgo := time.Now().Add(-time.Hour).Truncate(time.Second)
	ahead := time.Now().Add(time.Minute).Truncate(time.Second)
	for _, tt := range []struct {
		name          string
		first, edited time.Time
	}{
		// The editor's write moved the mtime.
		{"new mtime", hourAgo, hourAgo.Add(time.Second)},
		// The edit came in the same clock tick as the stat pidex stored
		// (a coarse mtime): the stat is equal, but it was racy.
		{"same stat", ahead, ahead},
	} {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			p := filepath.Join(root, "p", "a.jsonl")
			secretSession(t, p, tt.first)
			ix := newIndexer(t, root)
			refresh(t, ix)
			if n := matches(t, ix, "hunter2"); n != 1 {
				t.Fatalf("before the edit: %d matches for the secret", n)
			}
			editInPlace(t, p, "hunter2", "XXXXXXX", tt.edited)
			if st := refresh(t, ix); st.Rewritten != 1 {
				t.Errorf("the edit was not noticed: %+v", st)
			}
			if n := matches(t, ix, "hunter2"); n != 0 {
				t.Errorf("after the edit: %d matches for the old secret", n)
			}
			if n := matches(t, ix, "XXXXXXX"); n != 1 {
				t.Errorf("after the edit: %d matches for the new text", n)
			}
			assertSameAsFresh(t, ix)
		})
	}
}

// The check costs nothing in the common cases: an append is read from its
// offset only, and an unchanged file with a settled stat is one stat.
func TestContentCheckedOnlyWithoutGrowth(t *testing.T) {
	hourAgo := time.Now().Add(-time.Hour)
	root := t.TempDir()
	p := filepath.Join(root, "p", "a.jsonl")
	secretSession(t, p, hourAgo)
	checked := 0
	ix := newIndexer(t, root)
	ix.onCheckContent = func(string) { checked++ }
	refresh(t, ix)
	if st := refresh(t, ix); st.Unchanged != 1 || checked != 0 {
		t.Errorf("unchanged, settled file: %+v, %d content checks", st, checked)
	}
	appendTo(t, p, msg("m80", "m79", "user", "one more", 80))
	if st := refresh(t, ix); st.Appended != 1 || checked != 0 {
		t.Errorf("append: %+v, %d content checks", st, checked)
	}
	touch := time.Now().Add(-time.Minute)
	if err := os.Chtimes(p, touch, touch); err != nil {
		t.Fatal(err)
	}
	if st := refresh(t, ix); st.Unchanged != 1 || st.Rewritten != 0 || checked != 1 {
		t.Errorf("touched: %+v, %d content checks (want 1, and the file unchanged)", st, checked)
	}
	assertSameAsFresh(t, ix)
}

// A file rewritten while it is being read (a fork copied over it between
// the read and the fingerprints): the fingerprints are those of the bytes
// read, so the next refresh sees the rewrite and reads the file again. The
// fingerprints used to be read from the file afterwards, of the new
// content, and the next refresh appended the new content's rest to the
// old content's rows.
func TestRewriteDuringReadIsNoticed(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, "p", "a.jsonl")
	old := header + msg("a1", "", "user", "first version", 1)
	write(t, p, old)
	rewritten := strings.Replace(old, `"s-1"`, `"s-2"`, 1) + msg("a2", "a1", "user", "and more", 2)
	ix := newIndexer(t, root)
	ix.beforeFingerprint = func(string) {
		ix.beforeFingerprint = nil
		write(t, p, rewritten)
	}
	refresh(t, ix)
	if st := refresh(t, ix); st.Rewritten != 1 {
		t.Errorf("the rewrite during the read was not noticed: %+v", st)
	}
	assertSameAsFresh(t, ix)
}

// An `index --full` swap between a batch's plan and its write makes the
// batch back off (the file's generation moved), even when the rebuilt
// catalog has the file at the same offset and, as rebuilt catalogs
// start again, the same generation: the batch was planned on rows that
// are gone (its session row loaded by a file id that now names another
// file).
func TestBatchPlannedBeforeASwapBacksOff(t *testing.T) {
	root := t.TempDir()
	gone := filepath.Join(root, "p", "0-gone.jsonl")
	a := filepath.Join(root, "p", "a.jsonl")
	write(t, gone, header+msg("g1", "", "user", "soon gone", 1))
	write(t, a, header+msg("a1", "", "user", "hello", 1))
	ix := newIndexer(t, root)
	refresh(t, ix)
	if err := os.Remove(gone); err != nil {
		t.Fatal(err)
	}
	refresh(t, ix) // live: a.jsonl has file id 2; a rebuild gives it 1
	side := newIndexer(t, root)
	refresh(t, side)
	touch := time.Now().Add(-time.Minute)
	if err := os.Chtimes(a, touch, touch); err != nil { // a job for a.jsonl: touched
		t.Fatal(err)
	}
	committed := 0
	other := openIndexer(t, ix.DB.Path, root) // the process running index --full
	ix.beforeApply = func(*batch) {
		ix.beforeApply = nil
		side.DB.MustExec("PRAGMA wal_checkpoint(TRUNCATE)")
		if err := sqlite.ReplaceFrom(context.Background(), other.DB, side.DB.Path); err != nil {
			t.Error(err)
		}
	}
	ix.afterApply = func(*batch) error { committed++; return nil }
	refresh(t, ix)
	if committed != 0 {
		t.Errorf("%d batch(es) planned before the swap were written after it", committed)
	}
	ix.afterApply = nil
	refresh(t, ix)
	assertSameAsFresh(t, ix)
}

// A file appended to between its stat and its read (pi writing while a
// refresh runs) is read to its end, so the append is ingested by the
// refresh that planned the file as unchanged (touched). It must count as
// appended: a watcher tells its listeners (serve's pages, push --watch)
// only of refreshes that changed something, and counted unchanged, the
// append reached none of them until the file changed again.
func TestAppendAfterStatCounts(t *testing.T) {
	hourAgo := time.Now().Add(-time.Hour)
	root := t.TempDir()
	p := filepath.Join(root, "p", "a.jsonl")
	secretSession(t, p, hourAgo)
	ix := newIndexer(t, root)
	refresh(t, ix)
	touch := time.Now().Add(-time.Minute)
	if err := os.Chtimes(p, touch, touch); err != nil {
		t.Fatal(err)
	}
	// Planned as touched (the stat moved, the size did not): the content
	// check runs after the stat, and the append lands then.
	ix.onCheckContent = func(string) { appendTo(t, p, msg("m80", "m79", "user", "one more", 80)) }
	st := refresh(t, ix)
	ix.onCheckContent = nil
	if st.Appended != 1 || st.Unchanged != 0 || st.Entries != 1 || !st.Changed() {
		t.Errorf("appended after the stat: %+v, want it appended with its entry", st)
	}
	if st := refresh(t, ix); st.Changed() || st.Entries != 0 {
		t.Errorf("next refresh: %+v, want nothing new", st)
	}
	assertSameAsFresh(t, ix)
}
