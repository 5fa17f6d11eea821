package main

import (
	"context"
	"database/sql"
	"os"
	"strconv"
	"testing"

	"github.com/pidex-dev/pidex/internal/pgtest"
)

// TestMeasure runs the measurement on PIDEX_BENCH_CORPUS (a sessions
// root; PIDEX_BENCH_MB bounds the text read) in a database of the
// throwaway cluster; skipped without a corpus.
func TestMeasure(t *testing.T) {
	root := os.Getenv("PIDEX_BENCH_CORPUS")
	if root == "" {
		t.Skip("PIDEX_BENCH_CORPUS not set")
	}
	limit, _ := strconv.Atoi(os.Getenv("PIDEX_BENCH_MB"))
	db, err := sql.Open("pgx", pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := Measure(context.Background(), db, Options{Corpus: root, MaxText: int64(limit) << 20, Tmp: t.TempDir()}, os.Stdout); err != nil {
		t.Fatal(err)
	}
}
