package indexer

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/catalogtest"
	"github.com/pidex-dev/pidex/internal/fts"
)

// bigSession writes a session of n entries (more than one batch of
// metadata), so a refresh can stop after its first batch.
func bigSession(t *testing.T, p string, n int) {
	var b strings.Builder
	b.WriteString(header)
	parent := ""
	for i := range n {
		id := fmt.Sprintf("e%05d", i)
		b.WriteString(msg(id, parent, []string{"user", "assistant"}[i%2], fmt.Sprintf("word%d", i), int64(i)))
		parent = id
	}
	write(t, p, b.String())
}

// textState is a file's text cursor, ingested offset and text rows.
func textState(t *testing.T, ix *Indexer) (cursor, offset, rows int64) {
	t.Helper()
	err := ix.DB.QueryRow(`SELECT text_offset, offset, (SELECT count(*) FROM text_index) FROM files WHERE kind = 'session'`).Scan(&cursor, &offset, &rows)
	if err != nil {
		t.Fatal(err)
	}
	return
}

// Two processes fill one file's text at once: B planned its text while A
// had ingested only the file's first batch, A then ingests the rest and
// plans the whole file; B writes first, so A's batch (from offset 0)
// finds the cursor moved and is skipped. A's text pass must still end
// with the whole file indexed (it used to end at B's offset, without a
// word: two concurrent first indexes left the text index at 15%).
func TestConcurrentTextPassesFinish(t *testing.T) {
	root := t.TempDir()
	bigSession(t, filepath.Join(root, "p", "big.jsonl"), batchEntries+500)
	db := filepath.Join(t.TempDir(), "c.sqlite")
	a, b := openIndexer(t, db, root), openIndexer(t, db, root)
	stop := errors.New("stopped after the first batch")
	a.afterApply = func(*batch) error { return stop }
	if _, err := a.Refresh(context.Background()); !errors.Is(err, stop) {
		t.Fatalf("first refresh: %v", err)
	}
	a.afterApply = nil

	planned, release, bDone := make(chan struct{}), make(chan struct{}), make(chan error, 1)
	b.beforeText = func() {
		b.beforeText = nil
		close(planned)
		<-release
	}
	go func() {
		_, err := b.IndexText(context.Background())
		bDone <- err
	}()
	<-planned // B planned the text of the first batch's entries only
	refresh(t, a)
	a.beforeText = func() {
		a.beforeText = nil
		close(release)
		if err := <-bDone; err != nil { // B writes first
			t.Errorf("B's text pass: %v", err)
		}
	}
	st, err := a.IndexText(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Errors) != 0 {
		t.Errorf("A's text pass: errors %v", st.Errors)
	}
	cursor, offset, rows := textState(t, a)
	if cursor != offset || rows != int64(batchEntries+500) {
		t.Errorf("text cursor %d of %d, %d rows: want the whole file, %d rows", cursor, offset, rows, batchEntries+500)
	}
}

// A pass that keeps finding its files changed by others says so.
func TestTextPassThatCannotCatchUpSaysSo(t *testing.T) {
	root := t.TempDir()
	bigSession(t, filepath.Join(root, "p", "big.jsonl"), 20)
	ix := newIndexer(t, root)
	refresh(t, ix)
	other := openIndexer(t, ix.DB.Path, root)
	ix.beforeText = func() { // another process rewrites the file before every write
		if _, err := other.DB.Exec(`UPDATE files SET generation = generation + 1`); err != nil {
			t.Error(err)
		}
	}
	st, err := ix.IndexText(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Errors) != 1 || !strings.Contains(st.Errors[0], "text index not caught up") {
		t.Errorf("errors %q, want one saying the text is not caught up", st.Errors)
	}
}

// The sizes search ranks by follow the text index through every change
// to a file: a cold pass, an append carried with its entries, a rewrite
// and a removal leave text_sizes holding each indexed entry's full token
// count (repeats included) and text_totals their sums.
func TestTextSizesFollowTheFiles(t *testing.T) {
	root := t.TempDir()
	a, b := filepath.Join(root, "p", "a.jsonl"), filepath.Join(root, "p", "b.jsonl")
	write(t, a, header+msg("a1", "", "user", "alpha alpha beta", 1)+msg("a2", "a1", "assistant", "Gamma gamma GAMMA delta", 2))
	write(t, b, header+msg("b1", "", "user", "one two two", 1))
	ix := openIndexer(t, filepath.Join(t.TempDir(), "c.sqlite"), root)
	ctx := context.Background()
	check := func(step string, want map[string]int) {
		t.Helper()
		var got []struct {
			ID string `db:"id"`
			N  int    `db:"n"`
		}
		if err := ix.DB.SelectContext(ctx, &got, `SELECT e.id, s.n FROM text_sizes s JOIN entries e ON `+fts.RowIDSQL("e.file_id", "e.line")+` = s.id ORDER BY e.id`); err != nil {
			t.Fatal(err)
		}
		m := map[string]int{}
		for _, g := range got {
			m[g.ID] = g.N
		}
		if fmt.Sprint(m) != fmt.Sprint(want) {
			t.Errorf("%s: sizes %v, want %v", step, m, want)
		}
		catalogtest.TextSizesHold(t, ix.DB.DB)
	}
	index := func() {
		t.Helper()
		if _, err := ix.Refresh(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := ix.IndexText(ctx); err != nil {
			t.Fatal(err)
		}
	}
	index()
	check("cold", map[string]int{"a1": 3, "a2": 4, "b1": 3})
	appendTo(t, b, msg("b2", "b1", "assistant", "three three three three", 3))
	if _, err := ix.Refresh(ctx); err != nil { // the append's text goes in with its entries
		t.Fatal(err)
	}
	check("append", map[string]int{"a1": 3, "a2": 4, "b1": 3, "b2": 4})
	write(t, a, header+msg("a9", "", "user", "rewritten", 1))
	index()
	check("rewrite", map[string]int{"a9": 1, "b1": 3, "b2": 4})
	if err := os.Remove(b); err != nil {
		t.Fatal(err)
	}
	index()
	check("removal", map[string]int{"a9": 1})
}

// A file removed while a text pass had its text planned, and a new file
// given its id (SQLite reuses the largest rowid once it is gone) with the
// same generation and an empty cursor: the planned text is the old file's
// and must not land in the new one's rows (it did: the old words were
// found in the new session, and the new one's own text then collided with
// them in text_sizes, which the stress test met as "UNIQUE constraint
// failed: text_sizes.id").
func TestTextOfARemovedFileSkippedWhenItsIDIsReused(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "p")
	// z alone: the writer's first batch is its, read before the hook
	// below removes the file.
	write(t, filepath.Join(dir, "z.jsonl"), header+msg("z1", "", "user", "zulu", 1)+msg("z2", "z1", "assistant", "zulu again", 2))
	ix := newIndexer(t, root)
	refresh(t, ix) // metadata only: the text is behind
	var zID int64
	if err := ix.DB.Get(&zID, `SELECT id FROM files WHERE path LIKE '%z.jsonl'`); err != nil {
		t.Fatal(err)
	}
	other := openIndexer(t, ix.DB.Path, root)
	ix.beforeText = func() { // another process, between the plan and the write
		ix.beforeText = nil
		if err := os.Remove(filepath.Join(dir, "z.jsonl")); err != nil {
			t.Error(err)
		}
		refresh(t, other)
		write(t, filepath.Join(dir, "n.jsonl"), header+msg("n1", "", "user", "november", 1))
		refresh(t, other)
		var nID int64
		if err := other.DB.Get(&nID, `SELECT id FROM files WHERE path LIKE '%n.jsonl'`); err != nil || nID != zID {
			t.Errorf("the new file's id %d (%v), want the removed one's, %d: the case is not made", nID, err, zID)
		}
	}
	if _, err := ix.IndexText(context.Background()); err != nil {
		t.Fatal(err)
	}
	for word, want := range map[string]int{"zulu": 0, "november": 1} {
		var n int
		if err := ix.DB.Get(&n, `SELECT count(*) FROM text_index WHERE text_index MATCH ?`, word); err != nil || n != want {
			t.Errorf("%s: %d rows (%v), want %d", word, n, err, want)
		}
	}
	var sizes int
	if err := ix.DB.Get(&sizes, `SELECT count(*) FROM text_sizes`); err != nil || sizes != 1 {
		t.Errorf("%d text sizes (%v), want 1 (n1)", sizes, err)
	}
}

// A session removed after its text was planned is no error of the input:
// the pass says nothing of it (it said "open session file: no such file"),
// and the next refresh removes its rows.
func TestTextOfAFileRemovedSinceItsPlanIsNoError(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, "p", "gone.jsonl")
	write(t, p, header+msg("g1", "", "user", "golf", 1))
	ix := newIndexer(t, root)
	refresh(t, ix)
	jobs, err := ix.textJobs(context.Background(), []string{root})
	if err != nil || len(jobs) != 1 {
		t.Fatalf("text jobs %+v, %v; want the one file", jobs, err)
	}
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	st := &pidex.TextStats{Errors: []string{}}
	if _, err := ix.textPass(context.Background(), jobs, st); err != nil || len(st.Errors) != 0 {
		t.Fatalf("text pass over a removed file: %v, errors %q; want none", err, st.Errors)
	}
	if st := refresh(t, ix); st.Removed != 1 {
		t.Fatalf("the next refresh: %+v, want the file removed", st)
	}
}

// A cold text pass writes its rows in rowid order across files and
// batches, and sizes and cursors at commit, so FTS5 keeps them in one
// in-memory segment and flushes it once (textPass). Each file here is
// many batches, read by two readers at once: taken as they came, the
// batches of two files interleaved and FTS5 flushed a segment at each
// turn (245 segments, merged as they piled up, for a cold pass of the
// 3,000-session corpus).
func TestColdTextPassIsOneSegment(t *testing.T) {
	root := t.TempDir()
	for i := range 12 {
		var b strings.Builder
		b.WriteString(header)
		parent := ""
		for k := range 40 {
			id := fmt.Sprintf("f%02de%02d", i, k)
			b.WriteString(msg(id, parent, "user", fmt.Sprintf("word%d common text of file%d line%d", k, i, k), int64(k)))
			parent = id
		}
		write(t, filepath.Join(root, "p", fmt.Sprintf("s%02d.jsonl", i)), b.String())
	}
	ix := openIndexer(t, filepath.Join(t.TempDir(), "c.sqlite"), root)
	ix.Workers = 3 // two readers
	// Files larger than the read-ahead too: each waits for the writer to
	// finish those before it.
	ix.textBatchBytes, ix.textAhead, ix.textIdle = 300, 2000, time.Minute
	ctx := context.Background()
	if _, err := ix.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	st, err := ix.IndexText(ctx)
	if err != nil || len(st.Errors) > 0 || st.Files != 12 || st.Entries != 12*40 {
		t.Fatalf("text pass: %+v, %v", st, err)
	}
	var segs, rows int
	if err := ix.DB.QueryRow(`SELECT count(DISTINCT segid) FROM text_index_idx`).Scan(&segs); err != nil {
		t.Fatal(err)
	}
	if err := ix.DB.QueryRow(`SELECT count(*) FROM text_index WHERE text_index MATCH 'common'`).Scan(&rows); err != nil {
		t.Fatal(err)
	}
	if segs != 1 || rows != 12*40 {
		t.Errorf("%d segments, %d rows match 'common'; want 1 and %d", segs, rows, 12*40)
	}
	catalogtest.TextSizesHold(t, ix.DB.DB)
}

// A cold text pass ends with the catalog compacted (its pages packed, none
// free); a pass that adds a little to a larger index leaves it be.
func TestColdTextPassCompacts(t *testing.T) {
	root := t.TempDir()
	for i := range 4 {
		bigSession(t, filepath.Join(root, "p", fmt.Sprintf("s%d.jsonl", i)), 300)
	}
	ix := openIndexer(t, filepath.Join(t.TempDir(), "c.sqlite"), root)
	ix.compactRows = 100
	ctx := context.Background()
	vacuumed := func() bool {
		var free, pages int
		if err := ix.DB.QueryRow(`PRAGMA freelist_count`).Scan(&free); err != nil {
			t.Fatal(err)
		}
		if err := ix.DB.QueryRow(`SELECT count(*) FROM dbstat WHERE name = 'entries' AND pagetype = 'leaf' AND unused > 1024`).Scan(&pages); err != nil {
			t.Fatal(err)
		}
		return free == 0 && pages <= 1
	}
	// The same as a bulk load, whose text index is built beside the
	// catalog and adopted (sidetext.go): the metadata compacted first, the
	// index copied in packed, the write-ahead log emptied.
	side := openIndexer(t, filepath.Join(t.TempDir(), "c.sqlite"), root)
	side.compactRows, side.bulkNew, side.SideText = 100, 1, true
	refresh(t, side)
	if st := indexText(t, side); st.Files != 4 {
		t.Fatalf("text pass after a bulk load: %+v", st)
	}
	var free, loose int
	if err := side.DB.QueryRow(`PRAGMA freelist_count`).Scan(&free); err != nil {
		t.Fatal(err)
	}
	if err := side.DB.QueryRow(`SELECT count(*) FROM dbstat WHERE name IN ('entries', 'text_index_data', 'text_sizes') AND pagetype = 'leaf' AND unused > 1024`).Scan(&loose); err != nil {
		t.Fatal(err)
	}
	if free != 0 || loose > 3 {
		t.Fatalf("the adopted side index left %d free pages, %d half-empty", free, loose)
	}
	if fi, err := os.Stat(side.DB.Path + "-wal"); err == nil && fi.Size() > 0 {
		t.Fatalf("the write-ahead log holds %d bytes after the adoption", fi.Size())
	}
	if _, err := ix.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.IndexText(ctx); err != nil {
		t.Fatal(err)
	}
	if !vacuumed() {
		t.Fatal("the cold pass left free or half-empty pages")
	}
	if err := os.Remove(filepath.Join(root, "p", "s0.jsonl")); err != nil {
		t.Fatal(err)
	}
	bigSession(t, filepath.Join(root, "p", "s4.jsonl"), 150)
	if _, err := ix.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.IndexText(ctx); err != nil {
		t.Fatal(err)
	}
	free = 0
	if err := ix.DB.QueryRow(`PRAGMA freelist_count`).Scan(&free); err != nil || free == 0 {
		t.Errorf("a pass of a third of the index compacted it (%d free pages, %v)", free, err)
	}
}
