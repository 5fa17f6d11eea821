package query_test

import (
	"context"
	"runtime"
	"strings"
	"testing"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/query"
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
	previews, err := query.Previews(ref.Path, entries(t, e, fileID))
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
	rows, err := query.New(e.ix.DB, nil).Entries(context.Background(), fileID)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}
