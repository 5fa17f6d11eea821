package query

import (
	"context"
	"fmt"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/pi"
)

// KeptPreview is an entry's preview as a catalog keeps it, with its
// line's length (a preview is used only for the line it was made of).
type KeptPreview struct {
	Length int64
	Text   string
}

// previews summarises the given entries of a session in one line each
// (pi.Preview), by entry offset: the text of tree views. A line longer
// than pi.PreviewMaxLine is not read (a 200 MB tool result would cost a
// gigabyte to decode for a one-line preview): its preview gives its size.
// Previews the catalog kept from ingest are taken as they are: the tree
// of a 50 MB session without decoding it.
func previews(ctx context.Context, b Backend, ref pidex.SessionRef, rows []pidex.Entry) (map[int64]string, error) {
	out := make(map[int64]string, len(rows))
	var kept map[int64]KeptPreview
	if k := b.Kept(ref); k.Previews != nil {
		var err error
		if kept, err = k.Previews(ctx); err != nil {
			return nil, err
		}
	}
	small := rows[:0:0]
	for _, r := range rows {
		if r.Length > pi.PreviewMaxLine {
			out[r.Offset] = fmt.Sprintf("[%.1f MB line, not previewed]", float64(r.Length)/(1<<20))
			continue
		}
		if p, ok := kept[r.Offset]; ok && p.Length == r.Length {
			out[r.Offset] = p.Text
			continue
		}
		small = append(small, r)
	}
	// In chunks, so that memory stays bounded by the chunk, not the session.
	for start := 0; start < len(small); start += 256 {
		es, err := b.Lines(ctx, ref, small[start:min(start+256, len(small))], pi.PreviewCutLine, pi.PreviewCutString)
		if err != nil {
			return nil, err
		}
		for _, e := range es {
			out[e.Offset] = pi.Preview(e.Decoded)
		}
	}
	return out, nil
}
