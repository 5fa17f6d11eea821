package postgres

import (
	"fmt"
	"slices"
)

// A team catalog keeps the raw lines in chunks (migration 00014,
// docs/postgres.md "Lines in chunks"): a row of line_chunks holds a file's
// consecutive lines one after the other in raw, offsets says where each
// line is in the file and ends where it ends in raw. A line of ~600 bytes
// alone is under the 2 KB from which PostgreSQL compresses a value; 64 KB
// of them compress with lz4 as one. This file is the layout's one
// definition in Go: how a push cuts the chunks, and how a reader finds a
// line in one. (pidex_line, in the migration, is the same in SQL.)

// chunkBytes is where a push closes a chunk: once it holds this many bytes
// of lines. lz4 finds its matches within the last 64 KB, so a larger
// chunk would compress little better, while a line read alone
// decompresses its chunk up to its own end.
const chunkBytes = 64 << 10

// chunkRow is a chunk being written: a row of line_chunks.
type chunkRow struct {
	offsets []int64
	ends    []int32
	raw     []byte
}

// cutChunks cuts a file's lines (in offset order) into chunks of about
// chunkBytes, each line whole in one.
func cutChunks(lines []lineRow) []chunkRow {
	var out []chunkRow
	var c chunkRow
	for _, l := range lines {
		c.offsets = append(c.offsets, l.Offset)
		c.raw = append(c.raw, l.Raw...)
		c.ends = append(c.ends, int32(len(c.raw)))
		if len(c.raw) >= chunkBytes {
			out = append(out, c)
			c = chunkRow{}
		}
	}
	if len(c.offsets) > 0 {
		out = append(out, c)
	}
	return out
}

// ascending: each line's offset after the one before (a file's lines, in
// its order, each once).
func ascending(lines []lineRow) bool {
	for i := 1; i < len(lines); i++ {
		if lines[i].Offset <= lines[i-1].Offset {
			return false
		}
	}
	return true
}

// span is where the line at offset off is in a chunk's raw bytes, and
// whether the chunk holds it.
func span(offsets []int64, ends []int32, off int64) (start, end int64, ok bool) {
	i, found := slices.BinarySearch(offsets, off)
	if !found || i >= len(ends) {
		return 0, 0, false
	}
	if i > 0 {
		start = int64(ends[i-1])
	}
	end = int64(ends[i])
	return start, end, 0 <= start && start <= end
}

// linesOf adds to into the lines of a chunk read back that want names.
// raw may stop after the last of them (chunksSQL reads no further). The
// layout is checked (a chunk is anyone's rows: a bad one is an error,
// never a slice out of range).
func linesOf(into map[int64][]byte, want map[int64]bool, offsets []int64, ends []int32, raw []byte) error {
	if len(offsets) != len(ends) {
		return fmt.Errorf("a chunk of %d lines with %d ends", len(offsets), len(ends))
	}
	prev := int32(0)
	for i, off := range offsets {
		if ends[i] < prev {
			return fmt.Errorf("a chunk's line at offset %d ends at %d, before it starts (%d)", off, ends[i], prev)
		}
		if want[off] {
			if int(ends[i]) > len(raw) {
				return fmt.Errorf("a chunk's line at offset %d ends at %d, outside its %d bytes", off, ends[i], len(raw))
			}
			into[off] = raw[prev:ends[i]]
		}
		prev = ends[i]
	}
	return nil
}
