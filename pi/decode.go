package pi

import (
	"bytes"
	"fmt"
	"io"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/jsonl"
	"github.com/pidex-dev/pidex/schema"
)

// Reading an entry's line back: whole, or cut when it is too long to hold
// (a 200 MB tool result), so that memory does not grow with the longest
// line. The writer and every reader cut alike: a preview made at ingest
// is the one a reader would make.

// CutBudget: a cut copy of a line holds about this many bytes (see
// jsonl.Shrink).
const CutBudget = 64 << 10

// Decode reads one entry's line from r (row.Length bytes, or cut: its
// strings keep maxString bytes) and decodes it. where names the line in
// errors; a line that is not the entry the catalog says is
// pidex.ErrFileChanged.
func Decode(row pidex.Entry, r io.Reader, cut bool, maxString int, where string) (Entry, error) {
	var buf []byte
	var err error
	if cut {
		buf, err = jsonl.Shrink(r, maxString, CutBudget)
	} else {
		buf = make([]byte, row.Length)
		_, err = io.ReadFull(r, buf)
	}
	if err != nil {
		return Entry{}, fmt.Errorf("read %s line %d: %w: %w", where, row.Line, err, pidex.ErrFileChanged)
	}
	return DecodeBytes(row, buf, cut, where)
}

// DecodeBytes decodes a line already read (cut or whole).
func DecodeBytes(row pidex.Entry, buf []byte, cut bool, where string) (Entry, error) {
	l, err := schema.DecodeLineFast(buf)
	if l == nil {
		return Entry{}, fmt.Errorf("read %s line %d: %v: %w", where, row.Line, err, pidex.ErrFileChanged)
	}
	return Entry{Entry: row, Raw: buf, Decoded: l, Cut: cut}, nil
}

// DecodeRaw decodes a whole line held in memory, cut as Decode cuts when
// it is longer than maxLine (0: never).
func DecodeRaw(row pidex.Entry, raw []byte, maxLine int64, maxString int, where string) (Entry, error) {
	if maxLine > 0 && int64(len(raw)) > maxLine {
		return Decode(row, bytes.NewReader(raw), true, maxString, where)
	}
	return DecodeBytes(row, raw, false, where)
}

// A line longer than PreviewCutLine is cut (its strings kept to
// PreviewCutString bytes) before it is decoded for its preview, which
// needs only its first 400 characters (at most 1,600 bytes, before white
// space is folded): decoding a 50 MB session whole for its 9,186 previews
// took 1.5 s. A line longer than PreviewMaxLine is not previewed at all.
const (
	PreviewCutLine   = 4 << 10
	PreviewCutString = 2 << 10
	PreviewMaxLine   = 1 << 20
)

// LinePreview is the preview a reader makes of a line read back (raw,
// decoded as ln), made at ingest; ok is false for a line longer than
// PreviewMaxLine, which no reader previews.
func LinePreview(raw []byte, ln *schema.Line) (preview string, ok bool) {
	switch n := int64(len(raw)); {
	case n > PreviewMaxLine:
		return "", false
	case n > PreviewCutLine:
		e, err := DecodeRaw(pidex.Entry{Length: n}, raw, PreviewCutLine, PreviewCutString, "")
		if err != nil {
			return "", false
		}
		return Preview(e.Decoded), true
	}
	return Preview(ln), true
}
