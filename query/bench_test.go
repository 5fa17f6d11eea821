package query_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/sqlite"
)

// BenchmarkList lists every session of a current catalog: the library
// side of `pidex list`. It uses the catalog at $PIDEX_BENCH_DB when set
// (for example one built over bench/gencorpus's 3,000 sessions), else the
// testdata corpus.
func BenchmarkList(b *testing.B) {
	ctx := context.Background()
	db := benchDB(b)
	n := 0
	for b.Loop() {
		ss, err := newReader(db, nil).ListF(ctx, pidex.ListFilter{})
		if err != nil {
			b.Fatal(err)
		}
		n = len(ss)
	}
	b.ReportMetric(float64(n), "sessions")
}

// BenchmarkCost is `pidex cost --by day` and `--by day,model` without the
// process around it, on $PIDEX_BENCH_DB or the testdata corpus.
func BenchmarkCost(b *testing.B) {
	ctx := context.Background()
	db := benchDB(b)
	for _, by := range [][]string{{"day"}, {"day", "model"}, {"session"}} {
		b.Run(strings.Join(by, ","), func(b *testing.B) {
			for b.Loop() {
				if _, err := newReader(db, nil).CostF(ctx, pidex.CostFilter{By: by}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// benchDB opens the catalog at $PIDEX_BENCH_DB, else indexes testdata.
func benchDB(b *testing.B) *sqlite.DB {
	p := os.Getenv("PIDEX_BENCH_DB")
	if p == "" {
		return corpus(b)
	}
	db, err := sqlite.Open(context.Background(), p)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	return db
}
