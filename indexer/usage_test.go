package indexer

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// The newer token breakdowns are stored, not only decoded: repricing
// needs the 1h cache writes and the reasoning tokens.
func TestUsageKeepsCacheWrite1hAndReasoning(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "p", "a.jsonl"), header+
		`{"type":"message","id":"a1","parentId":null,"timestamp":"2026-05-01T10:00:01.000Z","message":{"role":"assistant","content":[],"provider":"anthropic","model":"claude-x",`+
		`"usage":{"input":10,"output":50,"cacheRead":0,"cacheWrite":30,"cacheWrite1h":20,"reasoning":40,"totalTokens":90,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0.1}},"timestamp":1777629601000}}`+"\n")
	ix := newIndexer(t, root)
	refresh(t, ix)
	var got struct {
		CW1h      int64 `db:"cache_write_1h"`
		Reasoning int64 `db:"reasoning"`
	}
	if err := ix.DB.Get(&got, "SELECT cache_write_1h, reasoning FROM usage"); err != nil {
		t.Fatal(err)
	}
	if got.CW1h != 20 || got.Reasoning != 40 {
		t.Errorf("stored cacheWrite1h %d, reasoning %d; want 20, 40", got.CW1h, got.Reasoning)
	}
}

// A file another process already removed from the catalog is done, not
// an error (two refreshes racing over a deleted session file).
func TestRemovingAnAlreadyRemovedFileIsDone(t *testing.T) {
	ix := newIndexer(t, t.TempDir())
	stmts := newStmtCache(ix.DB.DB)
	defer stmts.close()
	b := &batch{remove: true}
	b.file.Path = "/gone/already.jsonl"
	if err := apply(context.Background(), stmts, b, &ix.seams); err != nil {
		t.Fatalf("removing a file that is not in the catalog: %v", err)
	}
}

// Absurd numbers stay finite: a cost of 1e308 twice saturates instead of
// becoming +Inf (which JSON cannot carry), and so do token counts (JSON
// numbers, summed as float64 like pi's JavaScript numbers).
func TestUsageSumsSaturate(t *testing.T) {
	root := t.TempDir()
	rec := func(id, parent string) string {
		return `{"type":"usage","id":"` + id + `","parentId":` + parent + `,"timestamp":"2026-05-01T10:00:01.000Z","kind":"x","provider":"p","model":"m",` +
			`"usage":{"input":1e308,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":1e308,"cost":{"total":1e308}}}` + "\n"
	}
	write(t, filepath.Join(root, "p", "a.jsonl"), header+rec("u1", "null")+rec("u2", `"u1"`))
	ix := newIndexer(t, root)
	refresh(t, ix)
	var got struct {
		Input float64 `db:"input"`
		Cost  float64 `db:"cost"`
	}
	if err := ix.DB.Get(&got, "SELECT input, cost FROM sessions"); err != nil {
		t.Fatal(err)
	}
	if got.Input != math.MaxFloat64 || math.IsInf(got.Cost, 0) || got.Cost != math.MaxFloat64 {
		t.Errorf("sums: input %g, cost %g; want saturated at the largest finite values", got.Input, got.Cost)
	}
}

// A file that cannot be read (a dangling or looping link here; a file
// without read permission alike) is a warning with its path, listed by
// `pidex warnings`, once: unchanged, it is not reported again; repaired,
// it is read.
func TestUnreadableFileReportedOnce(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "p", "ok.jsonl"), header+msg("a1", "", "user", "hello", 1))
	target := filepath.Join(t.TempDir(), "later.jsonl")
	if err := os.Symlink(target, filepath.Join(root, "p", "dangling.jsonl")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("loop.jsonl", filepath.Join(root, "p", "loop.jsonl")); err != nil {
		t.Fatal(err)
	}
	ix := newIndexer(t, root)
	st := refresh(t, ix)
	if len(st.Warnings) != 2 || len(st.Errors) != 0 || len(st.Pending) != 0 {
		t.Fatalf("first refresh: warnings %v, errors %v, pending %v", st.Warnings, st.Errors, st.Pending)
	}
	for _, w := range st.Warnings {
		if !strings.Contains(w.Message, "cannot read the file") {
			t.Errorf("warning %q", w)
		}
	}
	var listed int
	if err := ix.DB.Get(&listed, "SELECT count(*) FROM warnings"); err != nil || listed != 2 {
		t.Errorf("warnings table holds %d (%v), want 2", listed, err)
	}
	if st := refresh(t, ix); len(st.Warnings)+len(st.Errors) != 0 || st.Unchanged != 3 {
		t.Errorf("second refresh reported again: %+v", st)
	}
	write(t, target, header+msg("b1", "", "user", "now here", 2))
	if st := refresh(t, ix); st.Entries != 1 {
		t.Errorf("the repaired link was not read: %+v", st)
	}
	if err := ix.DB.Get(&listed, "SELECT count(*) FROM warnings"); err != nil || listed != 1 {
		t.Errorf("warnings after the repair: %d (%v), want 1 (the loop)", listed, err)
	}
}

// Token counts are JavaScript numbers: a fractional count is summed as
// written, with no warning, and the line's usage is kept (an int64 field
// used to reject it: 20,000 warnings on a 3,000-session corpus).
func TestFractionalTokensAreSummed(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "p", "a.jsonl"), header+
		`{"type":"message","id":"a1","parentId":null,"timestamp":"2026-05-01T10:00:01.000Z","message":{"role":"assistant","content":[],"provider":"p","model":"m",`+
		`"usage":{"input":10.5,"output":0.25,"cacheRead":0,"cacheWrite":0,"totalTokens":10.75,"cost":{"total":0.5}},"timestamp":1777629601000}}`+"\n"+
		`{"type":"message","id":"a2","parentId":"a1","timestamp":"2026-05-01T10:00:02.000Z","message":{"role":"assistant","content":[],"provider":"p","model":"m",`+
		`"usage":{"input":1,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":3,"cost":{"total":0.25}},"timestamp":1777629602000}}`+"\n")
	ix := newIndexer(t, root)
	st := refresh(t, ix)
	if len(st.Warnings) != 0 {
		t.Fatalf("warnings: %v", st.Warnings)
	}
	var got struct {
		Input, Output, Total float64
		Rows                 int64
	}
	if err := ix.DB.QueryRow(`SELECT s.input, s.output, s.total_tokens, (SELECT count(*) FROM usage) FROM sessions s`).
		Scan(&got.Input, &got.Output, &got.Total, &got.Rows); err != nil {
		t.Fatal(err)
	}
	if got.Input != 11.5 || got.Output != 2.25 || got.Total != 13.75 || got.Rows != 2 {
		t.Errorf("got %+v; want input 11.5, output 2.25, total 13.75 from 2 usage rows", got)
	}
}

// A bulk load derives the cost columns and rollup once at its end; the
// result equals deriving them batch by batch, and a bulk load stopped
// before its end is finished by the next refresh.
func TestBulkDerivationEqualsIncremental(t *testing.T) {
	root := filepath.Join("..", "testdata", "sessions")
	scoped := newIndexer(t, root)
	refresh(t, scoped)
	bulk := newIndexer(t, root)
	bulk.bulkNew = 1
	refresh(t, bulk)
	if got, want := dump(t, bulk), dump(t, scoped); got != want {
		t.Fatalf("bulk derivation differs:\n--- bulk\n%s\n--- batch by batch\n%s", got, want)
	}
	var copies int
	if err := bulk.DB.Get(&copies, `SELECT count(*) FROM usage WHERE is_copy = 1`); err != nil || copies == 0 {
		t.Fatalf("no fork copies marked (%d, %v): the test corpus has two forks", copies, err)
	}

	stopped := newIndexer(t, root)
	stopped.bulkNew = 1
	stopped.afterApply = func(b *batch) error {
		if b.last {
			return errors.New("stop")
		}
		return nil
	}
	if _, err := stopped.Refresh(context.Background()); err == nil {
		t.Fatal("the stopped refresh did not fail")
	}
	stopped.afterApply = nil
	stopped.bulkNew = 1000 // the rest is not a bulk load: only the mark repairs the first file
	refresh(t, stopped)
	if got, want := dump(t, stopped), dump(t, scoped); got != want {
		t.Fatalf("after a stopped bulk load:\n--- got\n%s\n--- want\n%s", got, want)
	}
}

// A .jsonl that is not a regular file (a FIFO, and on Linux a link to
// /proc/self/mem, which opens but does not read) is an unreadable file:
// listed in the warnings table, reported once, never opened if it would
// block. Before, the FIFO was skipped in silence and the link was an
// error on every refresh that `pidex warnings` did not list.
func TestNonRegularSessionFilesAreUnreadable(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no FIFOs")
	}
	root := t.TempDir()
	write(t, filepath.Join(root, "p", "ok.jsonl"), header+msg("a1", "", "user", "hello", 1))
	if err := mkfifo(filepath.Join(root, "p", "fifo.jsonl")); err != nil {
		t.Fatal(err)
	}
	want := 1
	if runtime.GOOS == "linux" {
		if err := os.Symlink("/proc/self/mem", filepath.Join(root, "p", "mem.jsonl")); err != nil {
			t.Fatal(err)
		}
		want++
	}
	ix := newIndexer(t, root)
	st := refresh(t, ix)
	if len(st.Warnings) != want || len(st.Errors) != 0 {
		t.Fatalf("first refresh: warnings %v, errors %v; want %d warnings, no error", st.Warnings, st.Errors, want)
	}
	var listed []string
	if err := ix.DB.Select(&listed, "SELECT f.path || ': ' || w.message FROM warnings w JOIN files f ON f.id = w.file_id ORDER BY 1"); err != nil {
		t.Fatal(err)
	}
	if len(listed) != want || !strings.Contains(listed[0], "fifo.jsonl: cannot read the file: it is a named pipe (FIFO)") {
		t.Errorf("warnings table: %q", listed)
	}
	for range 2 {
		if st := refresh(t, ix); len(st.Warnings)+len(st.Errors) != 0 || st.Unchanged != want+1 {
			t.Errorf("a later refresh reported them again: %+v", st)
		}
	}
	if err := ix.DB.Select(&listed, "SELECT message FROM warnings"); err != nil || len(listed) != want {
		t.Errorf("warnings table after more refreshes: %q (%v)", listed, err)
	}
}

// toolResult is a tool result with usage of its own and no model (LLM work
// inside a tool): the model it is counted under comes from its ancestors.
func toolResult(id, parent string, ts int64) string {
	return fmt.Sprintf(`{"type":"message","id":%q,"parentId":%q,"timestamp":"2026-05-01T10:00:%02d.000Z","message":{"role":"toolResult","toolCallId":"c","toolName":"t","content":[{"type":"text","text":"r"}],"isError":false,"timestamp":%d,`+
		`"usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"total":0.01}}}}`+"\n", id, parent, ts%60, 1777629600000+ts*1000)
}

// Attributing records without a model reads each entry above them once,
// whatever the tree's shape: 400 tool results under a two-entry parent
// cycle (each record used to walk 100,000 steps round it: 128 s and
// 1.28 GB for a 172 KB file), and 2,000 tool results hanging off a chain
// of 2,000 user messages (each walked the whole chain above it: 2 million
// steps). The answers are the ones the rules give: no model on the path,
// the last one before the record in the file.
func TestAttributionIsLinear(t *testing.T) {
	var cycle strings.Builder
	cycle.WriteString(header)
	cycle.WriteString(`{"type":"model_change","id":"m0","parentId":null,"timestamp":"2026-05-01T10:00:00.000Z","provider":"p","modelId":"early"}` + "\n")
	cycle.WriteString(msg("x", "y", "user", "x", 1) + msg("y", "x", "user", "y", 2))
	for i := range 400 {
		cycle.WriteString(toolResult(fmt.Sprintf("t%d", i), "x", int64(i)))
	}
	var chain strings.Builder
	chain.WriteString(header)
	chain.WriteString(`{"type":"model_change","id":"m0","parentId":null,"timestamp":"2026-05-01T10:00:00.000Z","provider":"p","modelId":"top"}` + "\n")
	parent := "m0"
	for i := range 2000 {
		id := fmt.Sprintf("u%d", i)
		chain.WriteString(msg(id, parent, "user", "step", int64(i)) + toolResult(fmt.Sprintf("t%d", i), id, int64(i)))
		parent = id
	}
	for _, tt := range []struct {
		name, body, model string
		records, entries  int
	}{
		{"two-entry cycle", cycle.String(), "early", 400, 2},
		{"long chain", chain.String(), "top", 2000, 2001},
	} {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			write(t, filepath.Join(root, "p", "a.jsonl"), tt.body)
			records, entries := 0, 0
			ix := newIndexer(t, root)
			ix.onAttribute = func(r, e int) { records += r; entries += e }
			refresh(t, ix)
			if records != tt.records || entries > tt.entries {
				t.Errorf("attribution derived %d records reading %d entries; want %d records, at most %d entries", records, entries, tt.records, tt.entries)
			}
			var models []string
			if err := ix.DB.Select(&models, `SELECT DISTINCT attr_provider || '/' || attr_model FROM usage`); err != nil {
				t.Fatal(err)
			}
			if len(models) != 1 || models[0] != "p/"+tt.model {
				t.Errorf("attributed to %q, want p/%s", models, tt.model)
			}
		})
	}
}
