package query_test

import (
	"context"
	"maps"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/query"
	"github.com/pidex-dev/pidex/sqlite"
)

// A tree over a session with one huge line does not read the line: its
// preview gives its size, and memory does not grow with it.
func TestPreviewsSkipHugeLines(t *testing.T) {
	e := newSearchEnv(t)
	huge := strings.Repeat("x", 24<<20)
	p := e.file("--w--/a.jsonl", hdr("s1", "/w"), userMsg("a1", "", "hello", "2026-05-01T10:00:01.000Z"),
		toolResult("a2", "a1", huge), userMsg("a3", "a2", "after", "2026-05-01T10:00:04.000Z"))
	if _, err := e.ix.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	var fileID int64
	if err := e.ix.DB.Get(&fileID, "SELECT id FROM files"); err != nil {
		t.Fatal(err)
	}
	ref := pidex.SessionRef{FileID: fileID, Path: p}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	previews, err := query.PreviewsOf(context.Background(), sqlite.NewReader(e.ix.DB, sqlite.ReaderOptions{}), ref, entries(t, e, fileID))
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4<<20 {
		t.Errorf("previews allocated %d MB for a 24 MB line", alloc>>20)
	}
	var got []string
	for _, v := range previews {
		got = append(got, v)
	}
	all := strings.Join(got, "|")
	if !strings.Contains(all, "hello") || !strings.Contains(all, "after") || !strings.Contains(all, "MB line, not previewed") {
		t.Errorf("previews %.200q", all)
	}
}

func entries(t *testing.T, e *searchEnv, fileID int64) []pidex.Entry {
	t.Helper()
	rows, err := newReader(e.ix.DB, nil).EntriesOf(context.Background(), fileID)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// The previews kept at ingest are the previews read back from the file,
// for every entry of every test session (short lines, lines cut before
// they are decoded, a line too long to preview, every kind), and a tree
// reads them without the file: the file's lines are not read at all.
func TestKeptPreviewsAreReadBackPreviews(t *testing.T) {
	e := newSearchEnv(t)
	long := strings.Repeat("a long tool output line ", 400) // ~9.6 KB: cut before decoding
	p := e.file("--w--/a.jsonl", hdr("s1", "/w"), userMsg("a1", "", "hello there", "2026-05-01T10:00:01.000Z"),
		asstMsg("a2", "a1", "m", "an answer with\nnew lines", "thinking first"),
		toolResult("a3", "a2", long), bash("a4", "a3", "go test ./...", "ok"),
		compaction("a5", "a4", "Summary: it works."), labelEntry("a6", "a5", "a2", "mark"), nameEntry("a7", "a6", "Named"),
		toolResult("a8", "a7", strings.Repeat("y", 2<<20)), // past PreviewMaxLine
		userMsg("a9", "a8", "全文検索の最後", "2026-05-01T10:00:09.000Z"))
	if _, err := e.ix.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	var fileID int64
	if err := e.ix.DB.Get(&fileID, "SELECT id FROM files"); err != nil {
		t.Fatal(err)
	}
	rows := entries(t, e, fileID)
	ref := pidex.SessionRef{FileID: fileID, Path: p}
	local := sqlite.NewReader(e.ix.DB, sqlite.ReaderOptions{})
	want, err := query.PreviewsOf(context.Background(), local, ref, rows) // read back from the file
	if err != nil {
		t.Fatal(err)
	}
	kept, err := local.Kept(ref).Previews(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(kept) != len(rows)-1 { // all but the 2 MB line
		t.Errorf("%d previews kept for %d entries (one too long)", len(kept), len(rows))
	}
	for _, r := range rows {
		if k, ok := kept[r.Offset]; ok && (k.Text != want[r.Offset] || k.Length != r.Length) {
			t.Errorf("entry %s: kept %q (%d bytes), read back %q (%d bytes)", r.ID, k.Text, k.Length, want[r.Offset], r.Length)
		}
	}
	// The file gone, the tree's previews come from the catalog alone.
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	got, err := newReader(e.ix.DB, nil).Previews(context.Background(), ref)
	if err != nil {
		t.Fatalf("previews without the file: %v", err)
	}
	if !maps.Equal(got, want) {
		t.Errorf("previews from the catalog %v, from the file %v", got, want)
	}
}
