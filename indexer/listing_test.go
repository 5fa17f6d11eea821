package indexer

import (
	"os"
	"path/filepath"
	"testing"
)

// listedAhead is a listing of ix's roots made now and finished.
func listedAhead(t *testing.T, roots []string) *Listing {
	t.Helper()
	l := StartListing(roots)
	<-l.done
	return l
}

// A listing made ahead that agrees with the catalog is the refresh's own:
// a file written after it is seen by the next refresh, as one written just
// after any listing.
func TestListingTakenWhenNothingChanged(t *testing.T) {
	root := t.TempDir()
	a := filepath.Join(root, "p", "a.jsonl")
	write(t, a, header+msg("a1", "", "user", "hello", 1))
	old(t, a)
	ix := newIndexer(t, root)
	refresh(t, ix)
	ix.Listing = listedAhead(t, ix.Roots)
	write(t, filepath.Join(root, "p", "b.jsonl"), header+msg("b1", "", "user", "bye", 1))
	if st := refresh(t, ix); st.Files != 1 || st.Unchanged != 1 || st.New != 0 || st.Wrote {
		t.Fatalf("refresh with a listing made before b: %+v, want a alone, unchanged", st)
	}
	if ix.Listing != nil {
		t.Fatal("the listing was not taken")
	}
	if st := refresh(t, ix); st.Files != 2 || st.New != 1 {
		t.Fatalf("the next refresh: %+v, want b new", st)
	}
	assertSameAsFresh(t, ix)
}

// countListings counts the refreshes' listings of their folders.
func countListings(ix *Indexer) *int {
	n := 0
	ix.onListRoots = func() { n++ }
	return &n
}

// A listing made ahead that disagrees with the catalog may be stale:
// another process refreshed since. The refresh stats again what the
// listing shows changed, or lists again where a file it did not see is
// there, and neither reads a file again from scratch nor removes one it
// did not see.
func TestStaleListingListsAgain(t *testing.T) {
	for _, tc := range []struct {
		name     string
		change   func(t *testing.T, dir string) // after the listing, before the other process's refresh
		files    int
		listings int // by the refresh with the early listing
	}{
		{"appended", func(t *testing.T, dir string) {
			appendTo(t, filepath.Join(dir, "a.jsonl"), msg("a2", "a1", "assistant", "hi", 2))
		}, 2, 0},
		{"new file", func(t *testing.T, dir string) {
			write(t, filepath.Join(dir, "b.jsonl"), header+msg("b1", "", "user", "bye", 1))
		}, 3, 1},
		{"removed", func(t *testing.T, dir string) {
			if err := os.Remove(filepath.Join(dir, "a.jsonl")); err != nil {
				t.Fatal(err)
			}
		}, 1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			dir := filepath.Join(root, "p")
			for _, name := range []string{"a.jsonl", "c.jsonl"} {
				write(t, filepath.Join(dir, name), header+msg("a1", "", "user", "hello "+name, 1))
				old(t, filepath.Join(dir, name))
			}
			ix := newIndexer(t, root)
			refresh(t, ix)
			l := listedAhead(t, ix.Roots)
			tc.change(t, dir)
			other := openIndexer(t, ix.DB.Path, root)
			refresh(t, other)
			ix.Listing = l
			listings := countListings(ix)
			st := refresh(t, ix)
			if st.Files != tc.files || st.New+st.Appended+st.Rewritten+st.Removed != 0 || st.Unchanged != tc.files || len(st.Warnings) != 0 {
				t.Fatalf("refresh after another process's, with a listing from before: %+v; want %d files, all unchanged", st, tc.files)
			}
			if *listings != tc.listings {
				t.Errorf("%d listings of the folders, want %d", *listings, tc.listings)
			}
			assertSameAsFresh(t, ix)
		})
	}
}

// A listing made ahead that shows what changed since the last refresh (pi
// appending its session, starting one, a session deleted) spares the
// refresh a second listing: the files it shows changed are stat'ed again,
// and the refresh sees what a listing of its own would.
func TestListingRechecked(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "p")
	for _, name := range []string{"a.jsonl", "c.jsonl", "d.jsonl"} {
		write(t, filepath.Join(dir, name), header+msg("a1", "", "user", "hello "+name, 1))
		old(t, filepath.Join(dir, name))
	}
	ix := newIndexer(t, root)
	refresh(t, ix)
	appendTo(t, filepath.Join(dir, "a.jsonl"), msg("a2", "a1", "assistant", "hi", 2))
	write(t, filepath.Join(dir, "b.jsonl"), header+msg("b1", "", "user", "bye", 1))
	write(t, filepath.Join(dir, "e.jsonl"), header+msg("e1", "", "user", "brief", 1))
	if err := os.Remove(filepath.Join(dir, "c.jsonl")); err != nil {
		t.Fatal(err)
	}
	ix.Listing = listedAhead(t, ix.Roots)
	// Gone between the listing and the refresh: not read, not reported.
	if err := os.Remove(filepath.Join(dir, "e.jsonl")); err != nil {
		t.Fatal(err)
	}
	listings := countListings(ix)
	st := refresh(t, ix)
	if st.Files != 3 || st.Appended != 1 || st.New != 1 || st.Removed != 1 || st.Unchanged != 1 || len(st.Warnings) != 0 || *listings != 0 {
		t.Fatalf("refresh with a listing that shows an append, a new file and a removal: %+v, %d listings; want a appended, b new, c removed, d unchanged, no listing", st, *listings)
	}
	assertSameAsFresh(t, ix)
}

// A listing of other roots is not taken.
func TestListingOfOtherRootsIgnored(t *testing.T) {
	root, other := t.TempDir(), t.TempDir()
	ix := newIndexer(t, root)
	refresh(t, ix)
	ix.Listing = listedAhead(t, []string{other})
	write(t, filepath.Join(root, "p", "a.jsonl"), header+msg("a1", "", "user", "hello", 1))
	if st := refresh(t, ix); st.New != 1 {
		t.Fatalf("refresh with another root's listing: %+v, want a new", st)
	}
}

func TestUnchangedAll(t *testing.T) {
	st := fileStat{Size: 10, MtimeNs: 5, Dev: 1, Ino: 2}
	cand := func(p string) candidate { return candidate{Path: p, fileStat: st} }
	stamp := func(p string) fileStamp { return fileStamp{Path: p, Kind: FileSession, fileStat: st} }
	stored := []fileStamp{stamp("/r/a"), stamp("/r/b")}
	with := func(f func(*fileStamp)) []fileStamp {
		s := stamp("/r/b")
		f(&s)
		return []fileStamp{stamp("/r/a"), s}
	}
	irregular := cand("/r/b")
	irregular.irregular = "a FIFO"
	grown := cand("/r/b")
	grown.Size++
	for _, tc := range []struct {
		name   string
		cands  []candidate
		stored []fileStamp
		want   bool
	}{
		{"the same", []candidate{cand("/r/a"), cand("/r/b")}, stored, true},
		{"none", nil, nil, true},
		{"one gone", []candidate{cand("/r/a")}, stored, false},
		{"one new", []candidate{cand("/r/a"), cand("/r/b"), cand("/r/c")}, stored, false},
		{"one listed twice, one gone", []candidate{cand("/r/a"), cand("/r/a")}, stored, false},
		{"out of order", []candidate{cand("/r/b"), cand("/r/a")}, stored, false},
		{"another in place of one", []candidate{cand("/r/a"), cand("/r/c")}, stored, false},
		{"grown", []candidate{cand("/r/a"), grown}, stored, false},
		{"racy", []candidate{cand("/r/a"), cand("/r/b")}, with(func(s *fileStamp) { s.Racy = true }), false},
		{"unreadable", []candidate{cand("/r/a"), cand("/r/b")}, with(func(s *fileStamp) { s.Kind = FileUnreadable }), false},
		{"another inode", []candidate{cand("/r/a"), cand("/r/b")}, with(func(s *fileStamp) { s.Ino++ }), false},
		{"irregular", []candidate{cand("/r/a"), irregular}, stored, false},
	} {
		if got := unchangedAll(tc.cands, tc.stored); got != tc.want {
			t.Errorf("%s: unchangedAll = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// recheck gives up where one stat cannot mend a listing: a stored file it
// did not see that is there, a path listed twice, a link.
func TestRecheckGivesUp(t *testing.T) {
	dir := t.TempDir()
	a, b, link := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl"), filepath.Join(dir, "l.jsonl")
	for _, p := range []string{a, b} {
		write(t, p, header)
	}
	if err := os.Symlink(a, link); err != nil {
		t.Fatal(err)
	}
	stat := func(p string) fileStat {
		fi, err := os.Lstat(p)
		if err != nil {
			t.Fatal(err)
		}
		return statOf(fi)
	}
	cand := func(p string) candidate { return candidate{Path: p, fileStat: stat(p)} }
	stamp := func(p string) fileStamp { return fileStamp{Path: p, Kind: FileSession, fileStat: stat(p)} }
	for _, tc := range []struct {
		name   string
		cands  []candidate
		stored []fileStamp
		want   bool
	}{
		{"b new", []candidate{cand(a), cand(b)}, []fileStamp{stamp(a)}, true},
		{"b stored, not listed, there", []candidate{cand(a)}, []fileStamp{stamp(a), stamp(b)}, false},
		{"listed twice", []candidate{cand(a), cand(a)}, []fileStamp{stamp(a)}, false},
		{"a link, new", []candidate{cand(a), {Path: link, fileStat: stat(a)}}, []fileStamp{stamp(a)}, false},
		{"a gone file stored", []candidate{cand(a)}, []fileStamp{stamp(a), {Path: filepath.Join(dir, "gone.jsonl"), Kind: FileSession}}, true},
	} {
		out, ok := recheck(listed{cands: tc.cands}, tc.stored)
		if ok != tc.want {
			t.Errorf("%s: recheck ok = %v (%+v), want %v", tc.name, ok, out.cands, tc.want)
		}
	}
}
