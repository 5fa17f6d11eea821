package sqlite

import (
	"encoding/binary"
	"errors"
	"math"
	"unsafe"
)

// The read caches' blobs: a format version byte (NewBlob), then fields
// written with AppendString, AppendFloat and the encoding/binary varint
// appenders, read back in order with a BlobReader.

// ErrBlob: a read cache's blob does not read as its format (a blob of
// another pidex, or damaged): the rows are read instead.
var ErrBlob = errors.New("malformed read cache blob")

// AppendString appends s as a uvarint length and its bytes.
func AppendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// AppendFloat appends f's bits, little-endian.
func AppendFloat(b []byte, f float64) []byte {
	return binary.LittleEndian.AppendUint64(b, math.Float64bits(f))
}

// BlobReader reads a blob's fields in order, remembering the first error
// (then every later read is zero).
type BlobReader struct {
	b   []byte
	err error
}

// NewBlob starts a blob of the given format version, with room for size
// bytes.
func NewBlob(version byte, size int) []byte { return append(make([]byte, 0, size), version) }

// NewBlobReader reads the fields of b, a blob NewBlob began with version
// (ErrBlob for another version). b is the caller's and never changes:
// the strings it returns share b's bytes (database/sql hands a scanned
// []byte over as a copy of its own), which saves a copy per string.
func NewBlobReader(b []byte, version byte) (*BlobReader, error) {
	if len(b) == 0 || b[0] != version {
		return nil, ErrBlob
	}
	return &BlobReader{b: b[1:]}, nil
}

// ContinueBlob reads fields from b, the Rest of a BlobReader (the blob's
// version byte already checked).
func ContinueBlob(b []byte) *BlobReader { return &BlobReader{b: b} }

// Rest is what is left to read.
func (d *BlobReader) Rest() []byte { return d.b }

// More reports whether fields are left and none failed.
func (d *BlobReader) More() bool { return len(d.b) > 0 && d.err == nil }

// Err is the first error.
func (d *BlobReader) Err() error { return d.err }

// String reads an AppendString.
func (d *BlobReader) String() string {
	n := d.Uvarint()
	if d.err != nil || uint64(len(d.b)) < n {
		d.err = ErrBlob
		return ""
	}
	if n == 0 {
		return ""
	}
	s := unsafe.String(&d.b[0], n)
	d.b = d.b[n:]
	return s
}

// Byte reads one byte.
func (d *BlobReader) Byte() byte {
	if d.err != nil || len(d.b) == 0 {
		d.err = ErrBlob
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

// Uvarint reads a binary.AppendUvarint.
func (d *BlobReader) Uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err = ErrBlob
		return 0
	}
	d.b = d.b[n:]
	return v
}

// Varint reads a binary.AppendVarint.
func (d *BlobReader) Varint() int64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.err = ErrBlob
		return 0
	}
	d.b = d.b[n:]
	return v
}

// Float reads an AppendFloat.
func (d *BlobReader) Float() float64 {
	if d.err != nil || len(d.b) < 8 {
		d.err = ErrBlob
		return 0
	}
	f := math.Float64frombits(binary.LittleEndian.Uint64(d.b))
	d.b = d.b[8:]
	return f
}
