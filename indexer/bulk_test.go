package indexer

import (
	"strings"
	"testing"
)

// Every chunk of a bulk insert is bulkRows or a power of two, so that a
// writer prepares at most 9 statements per table; the chunks cover the
// rows exactly, in order.
func TestChunkRows(t *testing.T) {
	for _, n := range []int{0, 1, 2, 3, 7, 100, 255, 256, 257, 511, 512, 1000, 4096 + 77} {
		var sizes []int
		for start := 0; start < n; {
			size := chunkRows(n - start)
			if size < 1 || size > n-start {
				t.Fatalf("n=%d: chunk of %d with %d rows left", n, size, n-start)
			}
			if size != bulkRows && size&(size-1) != 0 {
				t.Fatalf("n=%d: chunk of %d is neither bulkRows nor a power of two", n, size)
			}
			sizes = append(sizes, size)
			start += size
		}
		distinct := map[int]bool{}
		for _, s := range sizes {
			distinct[s] = true
		}
		if len(distinct) > 9 {
			t.Fatalf("n=%d: %d statement shapes %v", n, len(distinct), sizes)
		}
	}
}

func TestBulkQuery(t *testing.T) {
	q := bulkQuery("INSERT INTO t (a, b)", 2, 3)
	if want := "INSERT INTO t (a, b) VALUES (?,?),(?,?),(?,?)"; q != want {
		t.Fatalf("got %q, want %q", q, want)
	}
	if again := bulkQuery("INSERT INTO t (a, b)", 2, 3); again != q {
		t.Fatal("a second call made another text")
	}
	if n := strings.Count(bulkQuery("INSERT INTO u (x)", 1, bulkRows), "?"); n != bulkRows {
		t.Fatalf("%d placeholders, want %d", n, bulkRows)
	}
}
