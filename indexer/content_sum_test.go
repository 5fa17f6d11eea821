package indexer

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/pidex-dev/pidex/jsonl"
)

// readerSum is the content sum as ingest makes it: jsonl.Reader's lines,
// each added whole.
func readerSum(t *testing.T, b []byte, off, lines int64) (contentSum, int64) {
	t.Helper()
	r := jsonl.NewReader(bytes.NewReader(b), off, lines)
	sum := contentSum{known: true}
	for {
		l, err := r.Next()
		if errors.Is(err, io.EOF) {
			return sum, r.Offset()
		}
		if err != nil {
			t.Fatal(err)
		}
		sum.add(l)
	}
}

// sumLines, the content check's stream, sums what ingest's reader sums:
// blank lines (ASCII and Unicode white space, a character split by the
// read buffer), CRLF, lines longer than the buffer, a last line without
// a newline.
func TestSumLinesAsTheReader(t *testing.T) {
	long := `{"a":"` + strings.Repeat("x", 300<<10) + `"}`
	// U+3000 (3 bytes) across the 256 KiB buffer's edge in a blank line.
	split := strings.Repeat(" ", 256<<10-1) + "\u3000 \u00a0\t"
	cases := []string{
		"",
		"{}\n",
		"{}",
		"{}\n{\"b\":1}",
		"{}\n  \n\t\r\n{}\r\n",
		"{}\n\u00a0\u2003\n{}\n",
		"{}\n" + long + "\n{}\n",
		long,
		"{}\n" + split + "\n{}\n",
		split + "\n" + long + "\r\n",
		"{}\n   ",
		"{}\n\n\n",
		"{}\n\xe3\x80\n{}\n", // a cut U+3000: not white space
	}
	rng := rand.New(rand.NewPCG(39, 6))
	pieces := []string{"{}", `{"x":"y z"}`, " ", "\t", "\r", "\u00a0", "\u3000", "\n", "\n", "\n", long[:1000]}
	for range 300 {
		var b strings.Builder
		for range rng.IntN(30) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		b.WriteString("\n")
		cases = append(cases, b.String())
	}
	for i, c := range cases {
		for _, start := range [][2]int64{{0, 0}, {4096, 1}} {
			want, wantEnd := readerSum(t, []byte(c), start[0], start[1])
			got, end, err := sumLines(strings.NewReader(c), start[0], start[1])
			if err != nil {
				t.Fatal(err)
			}
			if got != want || end != wantEnd {
				t.Errorf("case %d (%.60q…, from %d): sum %08x end %d, the reader's %08x end %d", i, c, start[0], got.v, end, want.v, wantEnd)
			}
		}
	}
}

// A last line without a newline that is no longer complete JSON fails
// the check, as it does when the reader leaves it pending.
func TestContentCheckOfAnIncompleteLastLine(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.jsonl")
	for _, tc := range []struct{ before, after string }{
		{"{}\n{\"a\":1}", "{}\n{\"a\":1 "},
		{"{}\n{\"a\":1}", "{}\n{\"a\"  }"},
	} {
		want, end := readerSum(t, []byte(tc.before), 0, 0)
		if err := os.WriteFile(p, []byte(tc.after), 0o600); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		same, err := sameContent(f, 0, end, want)
		f.Close()
		if err != nil || same {
			t.Errorf("%q after %q: same %v, %v", tc.after, tc.before, same, err)
		}
	}
}

// The content check of a file with a huge line holds none of it: a 64 MB
// line costs kilobytes (it held the line whole, and its copies as the
// reader's buffer grew: 290 MB for a 100 MB line on serve's first
// refresh after a racy stat, issue 39 item 6).
func TestContentCheckOfAHugeLineIsBounded(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.jsonl")
	content := "{}\n" + `{"a":"` + strings.Repeat("line of tool output ", 64<<20/20) + `"}` + "\n{}\n"
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	want, end := readerSum(t, []byte(content), 0, 0)
	content = ""
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	same, err := sameContent(f, 0, end, want)
	runtime.ReadMemStats(&after)
	if err != nil || !same {
		t.Fatalf("same %v, %v", same, err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 2<<20 {
		t.Errorf("the check allocated %d MB for a 64 MB line", alloc>>20)
	}
}
