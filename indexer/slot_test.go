package indexer

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pidex-dev/pidex"
)

// slotLine is omp's title slot for title: 256 bytes with the newline
// (session-title-slot.ts serializeTitleSlot).
func slotLine(t *testing.T, title, updated string) string {
	t.Helper()
	mk := func(pad string) string {
		b, _ := json.Marshal(struct {
			Type      string `json:"type"`
			V         int    `json:"v"`
			Title     string `json:"title"`
			Source    string `json:"source"`
			UpdatedAt string `json:"updatedAt"`
			Pad       string `json:"pad"`
		}{"title", 1, title, "user", updated, pad})
		return string(b) + "\n"
	}
	s := mk(strings.Repeat(" ", 256-len(mk(""))))
	if len(s) != 256 {
		t.Fatalf("slot of %d bytes", len(s))
	}
	return s
}

// omp rewrites the title slot in place (bytes 0-255, every later offset
// unchanged) after appending a title_change entry: the refresh reads the
// slot and the appended line, never the file again, and a slot rewritten
// alone (no append) reads the slot only. An in-place edit elsewhere is
// still a rewrite.
func TestTitleSlotRewrittenInPlace(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "-proj", "2026-10-05T09-14-07-412Z_s-1.jsonl")
	body := header + msg("a1", "", "user", "fix the upload retry", 1) + msg("a2", "a1", "assistant", "on it", 2)
	write(t, path, slotLine(t, "", "2026-10-05T09:14:07.412Z")+body)
	ix := newIndexer(t, root)
	ix.Roots = []string{"omp:" + root}
	refresh(t, ix)
	checked := 0
	ix.onCheckContent = func(string) { checked++ }
	name := func() *string {
		var n *string
		if err := ix.DB.Get(&n, "SELECT name FROM sessions"); err != nil {
			t.Fatal(err)
		}
		return n
	}
	var source string
	if err := ix.DB.Get(&source, "SELECT source FROM sessions"); err != nil || source != pidex.SourceOmp {
		t.Fatalf("source %q (%v)", source, err)
	}
	if n := name(); n != nil {
		t.Fatalf("name %q before any title", *n)
	}
	setSlot := func(title string, mtime time.Time) {
		t.Helper()
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteAt([]byte(slotLine(t, title, "2026-10-05T09:15:15.491Z")), 0); err != nil {
			t.Fatal(err)
		}
		f.Close()
		if err := os.Chtimes(path, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	offsets := func() string { return dumpOffsets(t, ix) }
	before := offsets()

	// setSessionName: title_change appended, then the slot rewritten.
	change := `{"type":"title_change","id":"t1","parentId":"a2","timestamp":"2026-10-05T09:15:15.491Z","title":"Flaky upload retry on CI","source":"auto"}` + "\n"
	appendTo(t, path, change)
	setSlot("Flaky upload retry on CI", time.Now().Add(-time.Hour))
	st := refresh(t, ix)
	if st.Rewritten != 0 || st.Appended != 1 || st.Bytes != int64(len(change)) || checked != 0 {
		t.Errorf("title change: %d rewritten, %d appended, %d bytes read (want %d), %d content checks", st.Rewritten, st.Appended, st.Bytes, len(change), checked)
	}
	if n := name(); n == nil || *n != "Flaky upload retry on CI" {
		t.Errorf("name after the title change: %v", n)
	}
	if got := offsets(); !strings.HasPrefix(got, before) {
		t.Errorf("the entries moved:\n%s\nbefore:\n%s", got, before)
	}

	// The slot alone rewritten (the append was seen by an earlier refresh).
	setSlot("Upload retry: RequestTimeout", time.Now().Add(-time.Minute))
	st = refresh(t, ix)
	if st.Rewritten != 0 || st.Bytes != 0 || checked != 0 {
		t.Errorf("slot alone: %d rewritten, %d bytes read, %d content checks", st.Rewritten, st.Bytes, checked)
	}
	if n := name(); n == nil || *n != "Upload retry: RequestTimeout" {
		t.Errorf("name after the slot rewrite: %v", n)
	}
	assertSameAsFresh(t, ix)

	// A same-size edit after the slot is still found (here by the head
	// fingerprint, which starts after the slot).
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(b), "fix the upload retry", "fix the upload RETRY", 1)
	write(t, path, edited)
	if err := os.Chtimes(path, time.Now().Add(-30*time.Second), time.Now().Add(-30*time.Second)); err != nil {
		t.Fatal(err)
	}
	st = refresh(t, ix)
	if st.Rewritten != 1 {
		t.Errorf("edit after the slot: %d rewritten", st.Rewritten)
	}
	assertSameAsFresh(t, ix)

	// Deeper than both fingerprints, a same-size edit is found by the
	// content sum, which starts after the slot.
	var long strings.Builder
	long.WriteString(slotLine(t, "Long", "2026-10-05T09:15:15.491Z") + header)
	for i := range 80 {
		long.WriteString(msg("m"+jsonNum(int64(i)), "", "user", "message number "+jsonNum(int64(1000+i)), int64(i)))
	}
	write(t, path, long.String())
	refresh(t, ix)
	checked = 0
	write(t, path, strings.Replace(long.String(), "message number 1040", "message NUMBER 1040", 1))
	if err := os.Chtimes(path, time.Now().Add(-20*time.Second), time.Now().Add(-20*time.Second)); err != nil {
		t.Fatal(err)
	}
	if st = refresh(t, ix); st.Rewritten != 1 || checked != 1 {
		t.Errorf("deep edit of a slotted file: %d rewritten, %d content checks", st.Rewritten, checked)
	}
	assertSameAsFresh(t, ix)

	// A slot that is no longer one (another length: the file was written
	// anew) is a rewrite.
	write(t, path, `{"type":"title","v":1,"title":"x","updatedAt":"2026-10-05T09:15:15.491Z","pad":""}`+"\n"+body)
	if st = refresh(t, ix); st.Rewritten != 1 {
		t.Errorf("a new slot length: %d rewritten", st.Rewritten)
	}
	assertSameAsFresh(t, ix)
}

func dumpOffsets(t *testing.T, ix *Indexer) string {
	t.Helper()
	var rows []struct {
		Offset int64  `db:"offset"`
		ID     string `db:"id"`
	}
	if err := ix.DB.Select(&rows, "SELECT offset, id FROM entries ORDER BY offset"); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, r := range rows {
		b.WriteString(r.ID + "@" + jsonNum(r.Offset) + "\n")
	}
	return b.String()
}

func jsonNum(n int64) string { b, _ := json.Marshal(n); return string(b) }
