package ftsbench

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/pidex-dev/pidex/internal/fts"
)

// TestDistinct measures what the text pass's single writer saves when
// FTS5 is given each entry's distinct tokens (fts.Distinct) instead of
// its prepared text (issue 20, BENCHMARKS.md): the same entries into the
// same table, one writer each way, and what Distinct costs the readers.
// PIDEX_BENCH_MB bounds the text (default 400).
//
//	PIDEX_BENCH_CORPUS=/work/scratch/corpus/r3000 go test ./bench/ftsbench -run Distinct -v -timeout 30m
func TestDistinct(t *testing.T) {
	all := texts(t, envInt("PIDEX_BENCH_MB", 400)<<20)
	start := time.Now()
	prepared := make([]string, len(all))
	in := 0
	for i, s := range all {
		prepared[i] = fts.Prepare(s)
		in += len(prepared[i])
	}
	t.Logf("Prepare: %.1f s", time.Since(start).Seconds())
	start = time.Now()
	var d fts.Distinct
	distinct := make([]string, len(all))
	out, tokens := 0, 0
	for i, s := range all {
		b, n := d.Append(nil, s)
		distinct[i] = string(b)
		out, tokens = out+len(b), tokens+n
	}
	t.Logf("Distinct (Prepare included): %.1f s; %d MB of %d tokens → %d MB", time.Since(start).Seconds(), in>>20, tokens, out>>20)
	for _, c := range []struct {
		name  string
		texts []string
	}{{"prepared text", prepared}, {"distinct tokens", distinct}} {
		start := time.Now()
		if err := writeShard(filepath.Join(t.TempDir(), "x.sqlite"), c.texts); err != nil {
			t.Fatal(err)
		}
		t.Logf("one writer, %s: %.1f s", c.name, time.Since(start).Seconds())
	}
}
