package indexer

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"time"

	"github.com/pidex-dev/pidex/jsonl"
)

// A file edited in place keeps its inode and, when the edit keeps the
// length (a secret replaced by as many asterisks), its size: only the
// mtime tells, and the fingerprints of the first bytes and of the bytes
// before the offset miss an edit in between. So the catalog keeps a
// checksum of the lines it ingested (files.content_crc), continued by each
// append at no cost beyond the bytes it reads anyway; a refresh that finds
// a file's stat changed without growth reads the file's ingested part again
// and compares. Appends, the common case, are never read twice. (An edit
// together with an append before the next refresh is caught only in the
// fingerprinted bytes.)
//
// And a stat can stay equal across a change: mtimes come from a coarse
// clock (a jiffy on Linux; a second or two on some file systems), so a
// same-size rewrite within one tick of the stat pidex stored is invisible
// to it. Like git's "racily clean" entries, a stat taken within racyWindow
// of the file's mtime is marked racy (files.racy), and the next refresh
// checks the content even though the stat is unchanged; once a stat is
// older than that, a later change must move the mtime.

// racyWindow covers the coarsest common mtime granularity (FAT's 2 s).
const racyWindow = 2 * time.Second

// isRacy reports whether a stat with this mtime, taken at statNs (the
// refresh's start: before any stat), could miss a change in the same tick.
func isRacy(mtimeNs, statNs int64) bool {
	return mtimeNs >= statNs-racyWindow.Nanoseconds()
}

// contentSum is the checksum of a file's ingested lines: each line's
// offset and number (so blank lines, which the reader skips, count
// through them) and its bytes. Not a line's newline: a final line read
// without one and completed later sums the same as read whole.
type contentSum struct {
	v     uint32
	known bool // false: the stored sum was not known (a catalog from before)
}

func (s *contentSum) add(l jsonl.Line) {
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:8], uint64(l.Offset))
	binary.LittleEndian.PutUint64(b[8:], uint64(l.Number))
	// hash/crc32 makes the CRC-32C table on first use (made at package
	// initialisation, it cost every command's start).
	tab := crc32.MakeTable(crc32.Castagnoli)
	s.v = crc32.Update(s.v, tab, b[:])
	s.v = crc32.Update(s.v, tab, l.Data)
}

// stored is the sum as the files table holds it (NULL when not known).
func (s contentSum) stored() any {
	if !s.known {
		return nil
	}
	return int64(s.v)
}

func storedSum(v *int64) contentSum {
	if v == nil {
		return contentSum{}
	}
	return contentSum{v: uint32(*v), known: true}
}

// sameContent reports whether the bytes [from, offset) of f still hold
// the lines whose sum is want: read the way ingest read them. from is the
// end of a title slot (0 without), which the sum leaves out: omp rewrites
// it in place.
func sameContent(f *os.File, from, offset int64, want contentSum) (bool, error) {
	if !want.known {
		return false, nil
	}
	lines := int64(0)
	if from > 0 {
		lines = 1 // the slot is the first line
	}
	r := jsonl.NewReader(io.NewSectionReader(f, from, offset-from), from, lines)
	got := contentSum{known: true}
	for {
		l, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return false, readErr{fmt.Errorf("check content: %w", err)}
		}
		got.add(l)
	}
	return r.Offset() == offset && got == want, nil
}
