// Package jsonl reads JSON-lines files the way pi reads its session files,
// keeping each line's byte offset so that ingest can resume from any line
// boundary.
//
// Rules (pi's, see the format reference): lines end at '\n'; a trailing
// '\r' is whitespace (CRLF files work); blank lines are skipped; a final
// line without a newline is yielded only when it is complete JSON — else it
// is a write in progress, reported by Pending and read again next time.
// Whether a line is well-formed is the caller's business (it decodes it
// anyway); the reader never fails on content, only on I/O.
package jsonl

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// Line is one non-blank physical line.
type Line struct {
	// Offset is the byte offset of the line's first byte in the file.
	Offset int64
	// Number is the 1-based physical line number (blank lines count).
	Number int64
	// Data is the line without its '\n'. It is only valid until the next
	// call to Next.
	Data []byte
	// Unterminated is set for a final line that had no '\n' (complete JSON).
	Unterminated bool
}

// End returns the offset just past the line and its newline, if any.
func (l Line) End() int64 {
	n := l.Offset + int64(len(l.Data))
	if !l.Unterminated {
		n++
	}
	return n
}

// Reader yields the lines of r, which starts at byte offset `offset` of
// the file and at physical line number `line`+1.
type Reader struct {
	br      *bufio.Reader
	off     int64 // offset of the next unread byte
	line    int64 // physical lines consumed
	long    []byte
	pending int64
	done    bool
}

// bufSize is the read buffer; longer lines are assembled in a growing
// buffer, so there is no line-length limit.
const bufSize = 256 << 10

// NewReader returns a Reader over r positioned at offset, after `lines`
// physical lines.
func NewReader(r io.Reader, offset, lines int64) *Reader {
	return &Reader{br: bufio.NewReaderSize(r, bufSize), off: offset, line: lines}
}

// Offset returns the offset up to which lines have been consumed: the
// start of the next line, or the start of a pending (incomplete) tail.
func (r *Reader) Offset() int64 { return r.off }

// Lines returns the number of physical lines consumed.
func (r *Reader) Lines() int64 { return r.line }

// Next returns the next non-blank line, or io.EOF.
func (r *Reader) Next() (Line, error) {
	for !r.done {
		data, terminated, err := r.readLine()
		if err != nil {
			return Line{}, err
		}
		if data == nil && !terminated { // clean EOF
			r.done = true
			break
		}
		start := r.off
		if !terminated {
			// Final line without a newline: pi reads it if it parses.
			r.done = true
			// A blank or incomplete tail may still grow into a line.
			if isBlank(data) || !json.Valid(data) {
				r.pending = int64(len(data))
				break
			}
			r.off += int64(len(data))
			r.line++
			return Line{Offset: start, Number: r.line, Data: data, Unterminated: true}, nil
		}
		r.off += int64(len(data)) + 1
		r.line++
		if isBlank(data) {
			continue
		}
		return Line{Offset: start, Number: r.line, Data: data}, nil
	}
	return Line{}, io.EOF
}

// readLine returns the next line without its '\n'; terminated says whether
// a '\n' ended it. At EOF with nothing left it returns (nil, false, nil).
func (r *Reader) readLine() (data []byte, terminated bool, err error) {
	r.long = r.long[:0]
	for {
		chunk, err := r.br.ReadSlice('\n')
		switch {
		case err == nil:
			if len(r.long) == 0 {
				return chunk[:len(chunk)-1], true, nil
			}
			r.long = append(r.long, chunk[:len(chunk)-1]...)
			return r.long, true, nil
		case errors.Is(err, bufio.ErrBufferFull):
			r.long = append(r.long, chunk...)
		case errors.Is(err, io.EOF):
			r.long = append(r.long, chunk...)
			if len(r.long) == 0 {
				return nil, false, nil
			}
			return r.long, false, nil
		default:
			return nil, false, err
		}
	}
}

func isBlank(b []byte) bool {
	return len(bytes.TrimSpace(b)) == 0
}
