package indexer

import (
	"context"
	"math"
	"path/filepath"
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
	if err := apply(context.Background(), stmts, b); err != nil {
		t.Fatalf("removing a file that is not in the catalog: %v", err)
	}
}

// Absurd numbers stay finite: a cost of 1e308 twice saturates instead of
// becoming +Inf (which JSON cannot carry), token sums do not wrap around.
func TestUsageSumsSaturate(t *testing.T) {
	root := t.TempDir()
	rec := func(id, parent string) string {
		return `{"type":"usage","id":"` + id + `","parentId":` + parent + `,"timestamp":"2026-05-01T10:00:01.000Z","kind":"x","provider":"p","model":"m",` +
			`"usage":{"input":5000000000000000000,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":5000000000000000001,"cost":{"total":1e308}}}` + "\n"
	}
	write(t, filepath.Join(root, "p", "a.jsonl"), header+rec("u1", "null")+rec("u2", `"u1"`))
	ix := newIndexer(t, root)
	refresh(t, ix)
	var got struct {
		Input int64   `db:"input"`
		Cost  float64 `db:"cost"`
	}
	if err := ix.DB.Get(&got, "SELECT input, cost FROM sessions"); err != nil {
		t.Fatal(err)
	}
	if got.Input != math.MaxInt64 || math.IsInf(got.Cost, 0) || got.Cost != math.MaxFloat64 {
		t.Errorf("sums: input %d, cost %g; want saturated at the largest finite values", got.Input, got.Cost)
	}
}
