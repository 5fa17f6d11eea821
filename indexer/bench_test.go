package indexer

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pidex-dev/pidex/sqlite"
)

// BenchmarkColdIndex indexes a corpus into an empty catalog. It uses
// $PIDEX_BENCH_CORPUS when set (for example a corpus from bench/gencorpus),
// else a small generated one. Reports MB/s (SetBytes) and entries/s.
func BenchmarkColdIndex(b *testing.B) {
	root := os.Getenv("PIDEX_BENCH_CORPUS")
	if root == "" {
		root = b.TempDir()
		smallCorpus(b, root, 200, 200)
	}
	var size int64
	filepath.Walk(root, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			size += fi.Size()
		}
		return nil
	})
	b.SetBytes(size)
	b.ResetTimer()
	var entries int64
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		db, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "c.sqlite"))
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		st, err := (&Indexer{DB: db, Roots: []string{root}}).Refresh(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		entries += st.Entries
		b.StopTimer()
		db.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(entries)/b.Elapsed().Seconds(), "entries/s")
}

// smallCorpus writes files × lines synthetic sessions (for the default run
// of the benchmark; realistic corpora come from bench/gencorpus).
func smallCorpus(b *testing.B, root string, files, lines int) {
	for f := 0; f < files; f++ {
		var sb strings.Builder
		sb.WriteString(header)
		parent := ""
		for i := 0; i < lines; i++ {
			id := string(rune('a'+f%26)) + strings.Repeat("0", 3) + itoa(i)
			sb.WriteString(msg(id, parent, []string{"user", "assistant"}[i%2], strings.Repeat("lorem ipsum ", 40), int64(i)))
			parent = id
		}
		p := filepath.Join(root, "--p"+itoa(f%10)+"--", "s"+itoa(f)+".jsonl")
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(sb.String()), 0o644); err != nil {
			b.Fatal(err)
		}
	}
}

func itoa(i int) string { return strconv.Itoa(i) }
