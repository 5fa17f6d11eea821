package sqlite

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/pidex-dev/pidex/query"
)

// The local catalog keeps every entry's preview from ingest
// (entry_previews, migration 00011), a deflated block per ingest batch,
// so that a tree is shown without reading a line.

// PreviewBlock builds the kept previews of a run of entries: for each,
// its offset, its line's length and its preview, as uvarints and bytes,
// deflated. One block
// is written per ingest batch, in the batch's transaction.
type PreviewBlock struct {
	raw   []byte
	first int64
	n     int
}

// Add appends an entry's preview.
func (b *PreviewBlock) Add(offset, length int64, preview string) {
	if b.n == 0 {
		b.first = offset
	}
	b.n++
	b.raw = binary.AppendUvarint(b.raw, uint64(offset))
	b.raw = binary.AppendUvarint(b.raw, uint64(length))
	b.raw = binary.AppendUvarint(b.raw, uint64(len(preview)))
	b.raw = append(b.raw, preview...)
}

// Len is the number of previews added.
func (b *PreviewBlock) Len() int { return b.n }

// First is the offset of the first entry added.
func (b *PreviewBlock) First() int64 { return b.first }

// Bytes returns the block deflated.
func (b *PreviewBlock) Bytes() ([]byte, error) {
	var out bytes.Buffer
	w, err := flate.NewWriter(&out, flate.BestSpeed)
	if err != nil {
		return nil, fmt.Errorf("compress previews: %w", err)
	}
	if _, err := w.Write(b.raw); err != nil {
		return nil, fmt.Errorf("compress previews: %w", err)
	}
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("compress previews: %w", err)
	}
	return out.Bytes(), nil
}

// ReadPreviewBlock adds a block's previews to out, by offset.
func ReadPreviewBlock(data []byte, out map[int64]query.KeptPreview) error {
	raw, err := io.ReadAll(flate.NewReader(bytes.NewReader(data)))
	if err != nil {
		return fmt.Errorf("read previews: %w", err)
	}
	for len(raw) > 0 {
		off, n := binary.Uvarint(raw)
		if n <= 0 {
			return fmt.Errorf("read previews: bad offset")
		}
		raw = raw[n:]
		length, n := binary.Uvarint(raw)
		if n <= 0 {
			return fmt.Errorf("read previews: bad line length")
		}
		raw = raw[n:]
		l, n := binary.Uvarint(raw)
		if n <= 0 || uint64(len(raw)-n) < l {
			return fmt.Errorf("read previews: bad length")
		}
		raw = raw[n:]
		out[int64(off)] = query.KeptPreview{Length: int64(length), Text: string(raw[:l])}
		raw = raw[l:]
	}
	return nil
}
