package query_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/pidex-dev/pidex/indexer"
	"github.com/pidex-dev/pidex/internal/view"
	"github.com/pidex-dev/pidex/sqlite"
)

// Before the text pass the coverage counts what is indexed of what is
// ingested, and search says so; after it, nothing is behind and nothing
// is said.
func TestTextCoverage(t *testing.T) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "c.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ix := &indexer.Indexer{DB: db, Roots: []string{sessionsRoot}}
	if _, err := ix.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	abs, err := indexer.AbsRoots(ix.Roots)
	if err != nil {
		t.Fatal(err)
	}
	rd := newReader(db, abs)
	indexed, total, err := rd.TextCoverage(ctx)
	if err != nil || total == 0 || indexed >= total || view.Coverage(indexed, total) == "" {
		t.Fatalf("before the text pass: %d of %d (%v)", indexed, total, err)
	}
	var sum int64
	if err := db.GetContext(ctx, &sum, `SELECT sum(offset) FROM files WHERE kind = 'session'`); err != nil || sum != total {
		t.Fatalf("total %d, the files' offsets sum to %d (%v)", total, sum, err)
	}
	if _, err := ix.IndexText(ctx); err != nil {
		t.Fatal(err)
	}
	indexed, total, err = rd.TextCoverage(ctx)
	if err != nil || indexed != total || view.Coverage(indexed, total) != "" {
		t.Fatalf("after the text pass: %d of %d (%v)", indexed, total, err)
	}
}
