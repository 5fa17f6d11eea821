package postgres

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// A file's lines cut into chunks come back whole and byte-exact from
// them, each from the chunk with the greatest first offset not after its
// own (pidex_line's rule); a chunk closes once it holds chunkBytes, so a
// line longer than that ends its chunk.
func TestChunksHoldEveryLine(t *testing.T) {
	for _, sizes := range [][]int{
		{1},
		{10, 20, 30},
		{chunkBytes},
		{chunkBytes - 1, 1, 5},
		{100, 3 * chunkBytes, 100, 100},
		repeat(600, 500),
		{0, 0, 7}, // empty lines (a damaged file's) are kept too
	} {
		t.Run(fmt.Sprint(len(sizes), "lines"), func(t *testing.T) {
			var lines []lineRow
			off := int64(17)
			for i, n := range sizes {
				lines = append(lines, lineRow{Offset: off, Raw: bytes.Repeat([]byte{byte('a' + i%26)}, n)})
				off += int64(n) + 1
			}
			chunks := cutChunks(lines)
			total := 0
			for i, c := range chunks {
				total += len(c.offsets)
				if i < len(chunks)-1 && len(c.raw) < chunkBytes {
					t.Errorf("chunk %d closed at %d bytes, under %d", i, len(c.raw), chunkBytes)
				}
				if last := len(c.raw) - int(c.ends[len(c.ends)-1]); last != 0 {
					t.Errorf("chunk %d: %d bytes after its last line", i, last)
				}
				if c.offsets[0] != lines[total-len(c.offsets)].Offset {
					t.Errorf("chunk %d starts at %d", i, c.offsets[0])
				}
			}
			if total != len(lines) {
				t.Fatalf("%d lines in the chunks, want %d", total, len(lines))
			}
			for _, l := range lines {
				c := chunkOf(chunks, l.Offset)
				got := map[int64][]byte{}
				if err := linesOf(got, map[int64]bool{l.Offset: true}, c.offsets, c.ends, c.raw); err != nil {
					t.Fatal(err)
				}
				start, end, ok := span(c.offsets, c.ends, l.Offset)
				if !ok || !bytes.Equal(got[l.Offset], l.Raw) || !bytes.Equal(c.raw[start:end], l.Raw) {
					t.Fatalf("line at %d: %d bytes read back (span %d..%d, %v), want %d", l.Offset, len(got[l.Offset]), start, end, ok, len(l.Raw))
				}
			}
		})
	}
}

// chunkOf is the chunk a reader finds a line in.
func chunkOf(chunks []chunkRow, off int64) chunkRow {
	var c chunkRow
	for _, x := range chunks {
		if x.offsets[0] <= off {
			c = x
		}
	}
	return c
}

func repeat(n, times int) []int {
	out := make([]int, times)
	for i := range out {
		out[i] = n
	}
	return out
}

// A chunk read back is a database's rows: one whose layout does not add up
// is an error naming why, never a slice out of range; an offset a chunk
// does not hold is not found.
func TestChunkLayoutChecked(t *testing.T) {
	raw := []byte("abcdef")
	for _, c := range []struct {
		name    string
		offsets []int64
		ends    []int32
		want    string
	}{
		{"good", []int64{1, 5}, []int32{2, 6}, ""},
		{"an end missing", []int64{1, 5}, []int32{2}, "2 lines with 1 ends"},
		{"past the bytes", []int64{1, 5}, []int32{2, 9}, "outside"},
		{"going back", []int64{1, 5}, []int32{4, 3}, "outside"},
		{"negative", []int64{1}, []int32{-1}, "outside"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := map[int64][]byte{}
			err := linesOf(got, map[int64]bool{1: true, 5: true}, c.offsets, c.ends, raw)
			switch {
			case c.want == "" && err != nil:
				t.Fatal(err)
			case c.want == "" && (string(got[1]) != "ab" || string(got[5]) != "cdef"):
				t.Fatalf("read %q and %q", got[1], got[5])
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("error %v, want one saying %q", err, c.want)
			}
		})
	}
	if _, _, ok := span([]int64{1, 5}, []int32{2, 6}, 3); ok {
		t.Error("found a line at an offset the chunk does not hold")
	}
	if ascending([]lineRow{{Offset: 1}, {Offset: 1}}) || ascending([]lineRow{{Offset: 2}, {Offset: 1}}) || !ascending([]lineRow{{Offset: 1}, {Offset: 2}}) {
		t.Error("ascending: a repeated or backward offset passes, or an ascending one does not")
	}
}
