package indexer

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/catalogtest"
	"github.com/pidex-dev/pidex/sqlite"
)

// fixture helpers ----------------------------------------------------------

const header = `{"type":"session","version":3,"id":"s-1","timestamp":"2026-05-01T10:00:00.000Z","cwd":"/w/app"}` + "\n"

func msg(id, parent, role, text string, ts int64) string {
	p := "null"
	if parent != "" {
		p = `"` + parent + `"`
	}
	usage := ""
	if role == "assistant" {
		usage = `,"provider":"anthropic","model":"claude-x","usage":{"input":10,"output":5,"cacheRead":1,"cacheWrite":2,"totalTokens":18,"cost":{"input":0.1,"output":0.2,"cacheRead":0,"cacheWrite":0,"total":0.3}}`
	}
	return fmt.Sprintf(`{"type":"message","id":%q,"parentId":%s,"timestamp":"2026-05-01T10:00:%02d.000Z","message":{"role":%q,"content":[{"type":"text","text":%q}],"timestamp":%d%s}}`+"\n",
		id, p, ts%60, role, text, 1777629600000+ts*1000, usage)
}

// openIndexer opens one more handle on the catalog at dbPath, as another
// process would.
func openIndexer(t *testing.T, dbPath, root string) *Indexer {
	t.Helper()
	db, err := sqlite.Open(context.Background(), dbPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return &Indexer{DB: db, Roots: []string{root}}
}

func newIndexer(t *testing.T, root string) *Indexer {
	t.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "c.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return &Indexer{DB: db, Roots: []string{root}}
}

func refresh(t *testing.T, ix *Indexer) *pidex.IndexStats {
	t.Helper()
	st, err := ix.Refresh(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func write(t *testing.T, path, content string)    { catalogtest.WriteFile(t, path, content) }
func appendTo(t *testing.T, path, content string) { catalogtest.AppendFile(t, path, content) }

func dump(t *testing.T, ix *Indexer) string { return catalogtest.Dump(t, ix.DB.DB) }

// assertSameAsFresh checks that the catalog equals one built from scratch
// over the same files: the heart of "incremental is correct".
func assertSameAsFresh(t *testing.T, ix *Indexer) {
	t.Helper()
	fresh := newIndexer(t, ix.Roots[0])
	refresh(t, fresh)
	if got, want := dump(t, ix), dump(t, fresh); got != want {
		t.Fatalf("incremental catalog differs from a fresh one:\n--- incremental\n%s\n--- fresh\n%s", got, want)
	}
}

// tests --------------------------------------------------------------------

func TestAppendReadsOnlyTheNewLines(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, "--w-app--", "a.jsonl")
	write(t, p, header+msg("a1", "", "user", "hello", 1)+msg("a2", "a1", "assistant", "hi", 2))
	ix := newIndexer(t, root)
	if st := refresh(t, ix); st.New != 1 || st.Entries != 2 {
		t.Fatalf("first refresh: %+v", st)
	}
	line := msg("a3", "a2", "user", "more", 3)
	appendTo(t, p, line)
	st := refresh(t, ix)
	if st.Appended != 1 || st.Entries != 1 || st.Bytes != int64(len(line)) {
		t.Fatalf("append: got appended=%d entries=%d bytes=%d, want 1, 1, %d", st.Appended, st.Entries, st.Bytes, len(line))
	}
	if st := refresh(t, ix); st.Unchanged != 1 || st.Bytes != 0 || st.Entries != 0 {
		t.Fatalf("unchanged refresh read something: %+v", st)
	}
	assertSameAsFresh(t, ix)
}

func TestTornLastLineWaitsUntilComplete(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, "p", "a.jsonl")
	full := msg("a2", "a1", "assistant", "hi", 2)
	write(t, p, header+msg("a1", "", "user", "hello", 1)+full[:20])
	ix := newIndexer(t, root)
	st := refresh(t, ix)
	if st.Entries != 1 || len(st.Pending) != 1 || len(st.Warnings) != 0 {
		t.Fatalf("torn tail: %+v", st)
	}
	appendTo(t, p, full[20:])
	st = refresh(t, ix)
	if st.Appended != 1 || st.Entries != 1 || len(st.Pending) != 0 {
		t.Fatalf("completed tail: %+v", st)
	}
	assertSameAsFresh(t, ix)
}

func TestUnterminatedLastLine(t *testing.T) {
	body := header + msg("a1", "", "user", "hello", 1)
	last := strings.TrimSuffix(msg("a2", "a1", "assistant", "hi", 2), "\n")
	tests := []struct {
		name          string
		then          string
		wantRewritten int
		wantEntries   int64 // added by the second refresh
	}{
		// pi itself repairs the file by appending the missing newline.
		{"newline appended", "\n" + msg("a3", "a2", "user", "x", 3), 0, 1},
		// An old pi glued the next entry onto the line: pi drops the
		// whole physical line, so pidex must forget a2 as well.
		{"entry glued on", msg("a3", "a2", "user", "x", 3), 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			p := filepath.Join(root, "p", "a.jsonl")
			write(t, p, body+last)
			ix := newIndexer(t, root)
			if st := refresh(t, ix); st.Entries != 2 || len(st.Pending) != 0 {
				t.Fatalf("complete unterminated line should be read: %+v", st)
			}
			appendTo(t, p, tt.then)
			st := refresh(t, ix)
			if st.Rewritten != tt.wantRewritten || st.Entries != tt.wantEntries {
				t.Fatalf("got rewritten=%d entries=%d, want %d, %d (%+v)", st.Rewritten, st.Entries, tt.wantRewritten, tt.wantEntries, st)
			}
			assertSameAsFresh(t, ix)
		})
	}
}

func TestRewriteIsReingested(t *testing.T) {
	base := header + msg("a1", "", "user", "hello", 1) + msg("a2", "a1", "assistant", "hi", 2)
	tests := []struct {
		name    string
		rewrite func(t *testing.T, p string)
	}{
		{"shrunk", func(t *testing.T, p string) { write(t, p, header+msg("a1", "", "user", "hello", 1)) }},
		{"same size, header changed", func(t *testing.T, p string) { write(t, p, strings.Replace(base, `"s-1"`, `"s-2"`, 1)) }},
		{"rewritten longer (migration)", func(t *testing.T, p string) {
			write(t, p, strings.Replace(base, `"a1"`, `"b1"`, 2)+msg("a3", "a2", "user", "x", 3))
		}},
		{"replaced by rename", func(t *testing.T, p string) {
			tmp := p + ".tmp"
			write(t, tmp, base+msg("a3", "a2", "user", "x", 3))
			if err := os.Rename(tmp, p); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			p := filepath.Join(root, "p", "a.jsonl")
			write(t, p, base)
			ix := newIndexer(t, root)
			refresh(t, ix)
			tt.rewrite(t, p)
			if st := refresh(t, ix); st.Rewritten != 1 {
				t.Fatalf("not detected as a rewrite: %+v", st)
			}
			assertSameAsFresh(t, ix)
		})
	}
}

func TestDeletedFileIsRemoved(t *testing.T) {
	root := t.TempDir()
	a, b := filepath.Join(root, "p", "a.jsonl"), filepath.Join(root, "p", "b.jsonl")
	write(t, a, header+msg("a1", "", "user", "hello", 1))
	write(t, b, header+msg("b1", "", "user", "bye", 1))
	ix := newIndexer(t, root)
	refresh(t, ix)
	if err := os.Remove(a); err != nil {
		t.Fatal(err)
	}
	if st := refresh(t, ix); st.Removed != 1 {
		t.Fatalf("removal not seen: %+v", st)
	}
	for _, table := range rowTables {
		var n int
		if err := ix.DB.Get(&n, "SELECT count(*) FROM "+table+" WHERE file_id NOT IN (SELECT id FROM files)"); err != nil || n != 0 {
			t.Fatalf("%s keeps %d rows of the removed file (%v)", table, n, err)
		}
	}
	assertSameAsFresh(t, ix)
}

// A crash (here: an error after the first committed batch) leaves the
// catalog consistent; the next refresh continues from the stored offset
// without duplicating or skipping anything.
func TestCrashBetweenBatchesNoDupNoGap(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, "p", "big.jsonl")
	var b strings.Builder
	b.WriteString(header)
	n := batchEntries*2 + 100
	parent := ""
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("e%05d", i)
		b.WriteString(msg(id, parent, []string{"user", "assistant"}[i%2], "t", int64(i)))
		parent = id
	}
	write(t, p, b.String())
	ix := newIndexer(t, root)
	crash := errors.New("simulated crash")
	batches := 0
	ix.afterApply = func(*batch) error {
		batches++
		if batches == 1 {
			return crash
		}
		return nil
	}
	if _, err := ix.Refresh(context.Background()); !errors.Is(err, crash) {
		t.Fatalf("want the simulated crash, got %v", err)
	}
	var got int
	if err := ix.DB.Get(&got, "SELECT count(*) FROM entries"); err != nil || got != batchEntries {
		t.Fatalf("after crash: %d entries stored (%v), want the first batch of %d", got, err, batchEntries)
	}
	ix.afterApply = nil
	st := refresh(t, ix)
	if st.Appended != 1 || st.Entries != int64(n-batchEntries) {
		t.Fatalf("resume: %+v", st)
	}
	var lines struct{ N, Min, Max int64 }
	if err := ix.DB.Get(&lines, "SELECT count(*) AS n, min(line) AS min, max(line) AS max FROM entries"); err != nil {
		t.Fatal(err)
	}
	if lines.N != int64(n) || lines.Min != 2 || lines.Max != int64(n+1) {
		t.Fatalf("entries: %+v, want %d contiguous lines 2..%d", lines, n, n+1)
	}
	assertSameAsFresh(t, ix)
}

func TestNotSessionReportedOnce(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, "p", "transcript.jsonl")
	write(t, p, msg("a1", "", "user", "no header here", 1))
	ix := newIndexer(t, root)
	if st := refresh(t, ix); len(st.NotSessions) != 1 || st.Entries != 0 {
		t.Fatalf("first refresh: %+v", st)
	}
	appendTo(t, p, header)
	if st := refresh(t, ix); len(st.NotSessions) != 0 || st.Entries != 0 {
		t.Fatalf("second refresh reported it again or read it: %+v", st)
	}
	var n int
	if err := ix.DB.Get(&n, "SELECT count(*) FROM sessions"); err != nil || n != 0 {
		t.Fatalf("a non-session became a session: %d (%v)", n, err)
	}
}

func TestMalformedLineIsAWarningWithFileAndLine(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, "p", "a.jsonl")
	write(t, p, header+msg("a1", "", "user", "hello", 1)+"{\"type\":\"message\",\"id\":\"bad\\*\"}\n"+msg("a3", "bad", "user", "orphan", 3))
	ix := newIndexer(t, root)
	st := refresh(t, ix)
	if len(st.Warnings) != 1 || st.Warnings[0].Line != 3 || st.Warnings[0].Path != p {
		t.Fatalf("warnings: %+v", st.Warnings)
	}
	if st.Entries != 2 {
		t.Fatalf("entries: %d, want the 2 good lines", st.Entries)
	}
}

func TestEmptyFileThenWritten(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, "p", "a.jsonl")
	write(t, p, "")
	ix := newIndexer(t, root)
	if st := refresh(t, ix); st.New != 1 || st.Entries != 0 {
		t.Fatalf("empty: %+v", st)
	}
	appendTo(t, p, header+msg("a1", "", "user", "hello", 1))
	if st := refresh(t, ix); st.Entries != 1 {
		t.Fatalf("after write: %+v", st)
	}
	assertSameAsFresh(t, ix)
}

// Two refreshes of one catalog at once (two pidex processes) and a reader
// during both: WAL lets the reader through, IMMEDIATE transactions and the
// offset check keep the writers from duplicating or losing rows.
func TestConcurrentRefreshesAndReader(t *testing.T) {
	root := t.TempDir()
	for f := 0; f < 20; f++ {
		var b strings.Builder
		b.WriteString(header)
		parent := ""
		for i := 0; i < 300; i++ {
			id := fmt.Sprintf("f%02de%04d", f, i)
			b.WriteString(msg(id, parent, []string{"user", "assistant"}[i%2], "text", int64(i)))
			parent = id
		}
		write(t, filepath.Join(root, "p", fmt.Sprintf("s%02d.jsonl", f)), b.String())
	}
	dbPath := filepath.Join(t.TempDir(), "c.sqlite")
	a, b, reader := openIndexer(t, dbPath, root), openIndexer(t, dbPath, root), openIndexer(t, dbPath, root)
	errs := make(chan error, 3)
	for _, ix := range []*Indexer{a, b} {
		go func() { _, err := ix.Refresh(context.Background()); errs <- err }()
	}
	go func() {
		var err error
		for i := 0; i < 50 && err == nil; i++ {
			var n int
			err = reader.DB.Get(&n, "SELECT count(*) FROM entries")
		}
		errs <- err
	}()
	for i := 0; i < 3; i++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	var n int
	if err := a.DB.Get(&n, "SELECT count(*) FROM entries"); err != nil || n != 20*300 {
		t.Fatalf("%d entries (%v), want %d", n, err, 20*300)
	}
	assertSameAsFresh(t, a)
}

// pidex only ever reads session files: after indexing the whole testdata
// corpus (torn tails, missing final newlines, empty files — all things pi
// itself would "repair" on open), every file has its bytes and mtime.
func TestIndexingNeverWritesSessionFiles(t *testing.T) {
	src := "../testdata/sessions"
	root := t.TempDir()
	type snap struct {
		data  string
		mtime int64
	}
	before := map[string]snap{}
	err := filepath.Walk(src, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		dst := filepath.Join(root, rel)
		write(t, dst, string(b))
		if err := os.Chmod(dst, 0o444); err != nil { // as users' files may be: reading must suffice
			return err
		}
		st, _ := os.Stat(dst)
		before[rel] = snap{string(b), st.ModTime().UnixNano()}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	ix := newIndexer(t, root)
	refresh(t, ix)
	refresh(t, ix)
	after := 0
	filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		after++
		rel, _ := filepath.Rel(root, p)
		b, _ := os.ReadFile(p)
		if s, ok := before[rel]; !ok || s.data != string(b) || s.mtime != fi.ModTime().UnixNano() {
			t.Errorf("%s changed (or appeared) while indexing", rel)
		}
		return nil
	})
	if after != len(before) {
		t.Errorf("%d files after indexing, %d before", after, len(before))
	}
}

// A real session captured twice (testdata/sessions/--real--: the earlier
// snapshot is a byte prefix of the later file, malformed line and orphan
// included): growing the one into the other is read as an append of
// exactly the new bytes, and ends where indexing the later file from
// scratch ends.
func TestRealSnapshotGrowsByAppend(t *testing.T) {
	early, err := os.ReadFile("../testdata/sessions/--real--/gjcfork-inline-agent-design.earlier-snapshot.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	late, err := os.ReadFile("../testdata/sessions/--real--/gjcfork-inline-agent-design.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(late), string(early)) {
		t.Fatal("fixture changed: the snapshot is no longer a prefix")
	}
	root := t.TempDir()
	p := filepath.Join(root, "--real--", "s.jsonl")
	write(t, p, string(early))
	ix := newIndexer(t, root)
	first := refresh(t, ix)
	appendTo(t, p, string(late[len(early):]))
	st := refresh(t, ix)
	if st.Appended != 1 || st.Rewritten != 0 || st.Bytes != int64(len(late)-len(early)) {
		t.Fatalf("growth: appended=%d rewritten=%d bytes=%d, want 1, 0, %d", st.Appended, st.Rewritten, st.Bytes, len(late)-len(early))
	}
	if len(first.Warnings) != 1 || first.Warnings[0].Line != 118 {
		t.Fatalf("the snapshot's malformed line 118 should be reported once: %+v", first.Warnings)
	}
	assertSameAsFresh(t, ix)
}
