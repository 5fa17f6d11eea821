package indexer

import (
	"io"
	"sync"
)

// capture reads a file for the parser and keeps what the fingerprints
// need of the bytes it read (see parser.fingerprint): those of the first
// headKeep bytes of the file (the head fingerprint, after a title slot),
// and the last ringSize bytes.
type capture struct {
	r    io.Reader
	from int64  // file offset of the first byte read
	pos  int64  // file offset of the next byte
	head []byte // the bytes read in [from, headKeep)
	ring []byte // byte at file offset o is ring[o % ringSize], for o in [pos-ringSize, pos)
	buf  *[]byte
}

// headKeep covers the head fingerprint of a file with omp's title slot
// (256 bytes) before it; a longer slot is read back from the file.
const headKeep = 2 * hashSpan

// ringSize covers the line reader's read-ahead (jsonl reads 256 KiB at a
// time) plus the tail fingerprint before the last line's end.
const ringSize = 320 << 10

// rings are reused: a cold index parses thousands of files.
var rings = sync.Pool{New: func() any { b := make([]byte, ringSize); return &b }}

func newCapture(r io.Reader, from int64) *capture {
	buf := rings.Get().(*[]byte)
	return &capture{r: r, from: from, pos: from, ring: *buf, buf: buf}
}

func (c *capture) release() {
	if c.buf != nil {
		rings.Put(c.buf)
		c.buf, c.ring = nil, nil
	}
}

func (c *capture) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	data := p[:n]
	if c.pos < headKeep {
		c.head = append(c.head, data[:min(int64(n), headKeep-c.pos)]...)
	}
	at := c.pos
	if len(data) > ringSize {
		at += int64(len(data) - ringSize)
		data = data[len(data)-ringSize:]
	}
	for len(data) > 0 {
		k := copy(c.ring[at%ringSize:], data)
		data, at = data[k:], at+int64(k)
	}
	c.pos += int64(n)
	return n, err
}

// bytes returns the bytes [from, to) as read, if they were read by this
// capture and are still held.
func (c *capture) bytes(from, to int64) ([]byte, bool) {
	if from < c.from || to > c.pos || from > to {
		return nil, false
	}
	if to <= headKeep && from-c.from >= 0 && to-c.from <= int64(len(c.head)) {
		return c.head[from-c.from : to-c.from], true
	}
	if from < c.pos-ringSize {
		return nil, false
	}
	out := make([]byte, 0, to-from)
	for at := from; at < to; {
		i := at % ringSize
		k := min(to-at, ringSize-i)
		out = append(out, c.ring[i:i+k]...)
		at += k
	}
	return out, true
}
