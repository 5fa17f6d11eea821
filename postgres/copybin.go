package postgres

import (
	"bytes"
	"context"
	"encoding/binary"
	"io"
)

// copyBinary writes rows in COPY's binary format: a header, each row its
// number of fields and each field its length (-1 for NULL) and bytes in
// the type's binary form, then a trailer. Only the search rows go this
// way by hand (their tsvectors are pgsearch's bytes, which pgx would
// rebuild from a lexeme structure); the others go through pgx's COPY.
type copyBinary struct {
	b    bytes.Buffer
	rows int
}

var copyBinaryHeader = []byte("PGCOPY\n\xff\r\n\x00\x00\x00\x00\x00\x00\x00\x00\x00")

// indexRow adds a search row, in textIndexTable's columns: file_id,
// offset, part, machine_id, win, exact, tokens, first, tsv.
func (c *copyBinary) indexRow(id, offset int64, part int, machine int64, r indexRow) {
	c.start(9)
	c.int8(id)
	c.int8(offset)
	c.int4(part)
	c.int4(int(machine))
	c.bool(r.Win)
	c.bool(r.Exact)
	c.int4(r.Tokens)
	c.int4(r.First)
	c.bytes(r.Vec)
}

func (c *copyBinary) start(fields int) {
	if c.rows == 0 {
		c.b.Write(copyBinaryHeader)
	}
	c.rows++
	c.b.Write(binary.BigEndian.AppendUint16(nil, uint16(fields)))
}

func (c *copyBinary) int8(v int64) {
	var f [12]byte
	binary.BigEndian.PutUint32(f[:], 8)
	binary.BigEndian.PutUint64(f[4:], uint64(v))
	c.b.Write(f[:])
}

func (c *copyBinary) int4(v int) {
	var f [8]byte
	binary.BigEndian.PutUint32(f[:], 4)
	binary.BigEndian.PutUint32(f[4:], uint32(int32(v)))
	c.b.Write(f[:])
}

func (c *copyBinary) bool(v bool) {
	f := [5]byte{0, 0, 0, 1, 0}
	if v {
		f[4] = 1
	}
	c.b.Write(f[:])
}

func (c *copyBinary) bytes(v []byte) {
	c.b.Write(binary.BigEndian.AppendUint32(nil, uint32(len(v))))
	c.b.Write(v)
}

// end writes the trailer and returns the data.
func (c *copyBinary) end() io.Reader {
	c.b.Write([]byte{0xff, 0xff})
	return &c.b
}

// sendCopyBinary sends data in COPY's binary format (copyBinary) into
// table's columns.
func (w *fileWriter) sendCopyBinary(ctx context.Context, table string, cols []string, data io.Reader) error {
	_, err := w.tx.Conn().PgConn().CopyFrom(ctx, data, `COPY `+w.target(table)+` (`+colList(cols)+`) FROM STDIN (FORMAT binary)`)
	return err
}
