package indexer

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"time"
	"unicode"
	"unicode/utf8"

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
	got, end, err := sumLines(io.NewSectionReader(f, from, offset-from), from, lines)
	if err != nil {
		return false, readErr{fmt.Errorf("check content: %w", err)}
	}
	return end == offset && got == want, nil
}

// sumLines is the contentSum of the lines of r, which starts at byte
// offset off of the file after the given number of physical lines, as
// jsonl.Reader yields them and ingest adds them; end is where the lines
// it summed end (jsonl.Reader's Offset). It reads as a stream and never
// holds a line: the check of a file with one 100 MB line held it whole
// (and its copies as the buffer grew), 290 MB, on the refresh after a racy
// stat (serve's first, issue 39 item 6). A line is summed as it is read,
// beside the sum without it, and kept when it proves not blank. A final
// line without a newline is summed unless it is blank: jsonl.Reader also
// wants it to be complete JSON, which the bytes ingest summed were, so
// a changed one fails the comparison either way.
func sumLines(r io.Reader, off, lines int64) (sum contentSum, end int64, err error) {
	br := bufio.NewReaderSize(r, 256<<10)
	tab := crc32.MakeTable(crc32.Castagnoli)
	sum.known = true
	for {
		var head [16]byte
		binary.LittleEndian.PutUint64(head[:8], uint64(off))
		binary.LittleEndian.PutUint64(head[8:], uint64(lines+1))
		with := crc32.Update(sum.v, tab, head[:])
		var blank blankRun
		n, terminated := int64(0), false
		for {
			chunk, err := br.ReadSlice('\n')
			if err == nil {
				chunk, terminated = chunk[:len(chunk)-1], true
			} else if !errors.Is(err, bufio.ErrBufferFull) && !errors.Is(err, io.EOF) {
				return contentSum{}, 0, err
			}
			with = crc32.Update(with, tab, chunk)
			blank.add(chunk)
			n += int64(len(chunk))
			if err == nil || errors.Is(err, io.EOF) {
				break
			}
		}
		if !terminated { // the end: nothing, or a last line without a newline
			if n > 0 && !blank.blank() {
				sum.v = with
				off += n
			}
			return sum, off, nil
		}
		lines++
		off += n + 1
		if !blank.blank() {
			sum.v = with
		}
	}
}

// blankRun tells whether a line read in pieces is blank as jsonl.Reader
// says (bytes.TrimSpace leaves nothing: ASCII and Unicode white space),
// a character split between two pieces included.
type blankRun struct {
	not   bool
	carry []byte // the start of a character the last piece ended inside
}

func (b *blankRun) add(p []byte) {
	if b.not {
		return
	}
	if len(b.carry) > 0 {
		p = append(b.carry, p...)
		b.carry = nil
	}
	for i := 0; i < len(p); {
		if c := p[i]; c < utf8.RuneSelf {
			if c != ' ' && (c < '\t' || c > '\r') {
				b.not = true
				return
			}
			i++
			continue
		}
		if !utf8.FullRune(p[i:]) {
			b.carry = append([]byte(nil), p[i:]...)
			return
		}
		r, size := utf8.DecodeRune(p[i:])
		if !unicode.IsSpace(r) {
			b.not = true
			return
		}
		i += size
	}
}

func (b *blankRun) blank() bool { return !b.not && len(b.carry) == 0 }
