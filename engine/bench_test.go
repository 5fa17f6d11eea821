package engine

import (
	"context"
	"os"
	"testing"
)

// BenchmarkRefreshUnchanged is a refresh that finds nothing changed, on
// a current catalog (PIDEX_BENCH_DB) of a corpus (PIDEX_BENCH_CORPUS), the
// work every read command starts with: for profiles (BENCHMARKS.md).
func BenchmarkRefreshUnchanged(b *testing.B) {
	db, root := os.Getenv("PIDEX_BENCH_DB"), os.Getenv("PIDEX_BENCH_CORPUS")
	if db == "" || root == "" {
		b.Skip("PIDEX_BENCH_DB and PIDEX_BENCH_CORPUS name a current catalog and its corpus")
	}
	ctx := context.Background()
	e, err := Open(ctx, Options{DBPath: db, Roots: []string{root}})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	for b.Loop() {
		st, err := e.Refresh(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if st.New+st.Appended+st.Rewritten+st.Removed != 0 {
			b.Fatalf("the catalog was not current: %+v", st)
		}
	}
}

// BenchmarkOpen opens and closes an engine on a current catalog
// (PIDEX_BENCH_DB): the fixed cost every command pays before its work.
func BenchmarkOpen(b *testing.B) {
	db := os.Getenv("PIDEX_BENCH_DB")
	if db == "" {
		b.Skip("PIDEX_BENCH_DB names a current catalog")
	}
	ctx := context.Background()
	for b.Loop() {
		e, err := Open(ctx, Options{DBPath: db, Roots: []string{b.TempDir()}})
		if err != nil {
			b.Fatal(err)
		}
		e.Close()
	}
}
