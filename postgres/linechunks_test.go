package postgres

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/pidex-dev/pidex/internal/pgtest"
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
		{"read up to the lines asked for", []int64{1, 5, 9}, []int32{2, 6, 1 << 20}, ""},
		{"an end missing", []int64{1, 5}, []int32{2}, "2 lines with 1 ends"},
		{"past the bytes", []int64{1, 5}, []int32{2, 9}, "outside"},
		{"going back", []int64{1, 5}, []int32{4, 3}, "before it starts"},
		{"negative", []int64{1}, []int32{-1}, "before it starts"},
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

// A page's lines come out of their chunks byte-exact, and a chunk is read
// only as far as the last line asked for: the long line a chunk ends with,
// which a reader streams in pieces instead, is not read along with the
// short lines before it.
func TestChunksReadUpToTheLinesAskedFor(t *testing.T) {
	ctx := context.Background()
	st, err := Open(ctx, pgtest.URL(t), Options{Migrate: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var machine int32
	var file int64
	if err := st.db.QueryRowContext(ctx, `INSERT INTO machines (name) VALUES ('m') RETURNING id`).Scan(&machine); err != nil {
		t.Fatal(err)
	}
	if err := st.db.QueryRowContext(ctx, `INSERT INTO files (machine_id, path, root, kind) VALUES ($1, '/p.jsonl', '/', 'session') RETURNING id`, machine).Scan(&file); err != nil {
		t.Fatal(err)
	}
	long := bytes.Repeat([]byte("x"), 1<<20)
	lines := []lineRow{{Offset: 0, Raw: []byte("first line")}, {Offset: 11, Raw: []byte("second")}, {Offset: 18, Raw: long},
		{Offset: 18 + 1<<20 + 1, Raw: []byte("after")}}
	chunks := cutChunks(lines)
	if len(chunks) != 2 {
		t.Fatalf("%d chunks, want the long line to end the first", len(chunks))
	}
	for _, c := range chunks {
		if _, err := st.db.ExecContext(ctx, `INSERT INTO line_chunks (machine_id, file_id, "offset", offsets, ends, raw) VALUES ($1, $2, $3, $4, $5, $6)`,
			machine, file, c.offsets[0], c.offsets, c.ends, c.raw); err != nil {
			t.Fatal(err)
		}
	}
	r := st.Reader()
	want := map[int64]bool{0: true, 11: true, lines[3].Offset: true}
	got, err := r.chunkLines(ctx, file, []int64{0, 11, lines[3].Offset}, want)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range []lineRow{lines[0], lines[1], lines[3]} {
		if !bytes.Equal(got[l.Offset], l.Raw) {
			t.Errorf("line at %d: %q, want %q", l.Offset, got[l.Offset], l.Raw)
		}
	}
	if c := cap(got[0]); c >= len(long) {
		t.Errorf("the short lines came in a buffer of %d bytes: the long line was read along", c)
	}
	lr := &lineReader{ctx: ctx, r: r, file: file, off: 18}
	if b, err := io.ReadAll(lr); err != nil || !bytes.Equal(b, long) {
		t.Errorf("the long line streamed: %d bytes (%v), want %d", len(b), err, len(long))
	}
}
