package query

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/jsonl"
	"github.com/pidex-dev/pidex/pi"
	"github.com/pidex-dev/pidex/schema"
)

// Entries returns every entry of a session in file order (the catalog's
// rows, without the file's bytes).
func (rd *Reader) Entries(ctx context.Context, fileID int64) ([]pidex.Entry, error) {
	var es []pidex.Entry
	err := rd.db.SelectContext(ctx, &es, `SELECT id, parent_id, type, COALESCE(role, '') AS role, ts, offset, length, line
		FROM entries WHERE file_id = ? ORDER BY offset`, fileID)
	if err != nil {
		return nil, fmt.Errorf("list entries: %w", err)
	}
	return es, nil
}

// ReadEntries reads the given entries' lines from the session file at
// path, by their stored offsets, and decodes them: the catalog holds no
// content, the file stays the source of truth. A line longer than maxLine
// bytes (0: no limit) is read as a stream and kept cut (jsonl.Shrink: its
// strings keep maxString bytes and end with "…"; Entry.Cut is set), so
// that memory does not grow with the longest line of the session.
func ReadEntries(path string, rows []pidex.Entry, maxLine int64, maxString int) ([]pi.Entry, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open session file: %w", err)
	}
	defer f.Close()
	out := make([]pi.Entry, len(rows))
	for i, r := range rows {
		cut := maxLine > 0 && r.Length > maxLine
		buf, err := readEntry(f, r, cut, maxString)
		if err != nil {
			return nil, fmt.Errorf("read %s line %d: %w: %w", path, r.Line, err, pidex.ErrFileChanged)
		}
		l, err := schema.DecodeLine(buf)
		if l == nil {
			return nil, fmt.Errorf("read %s line %d: %v: %w", path, r.Line, err, pidex.ErrFileChanged)
		}
		out[i] = pi.Entry{Entry: r, Raw: buf, Decoded: l, Cut: cut}
	}
	return out, nil
}

// cutBudget: a cut copy of a line holds about this many bytes (see
// jsonl.Shrink).
const cutBudget = 64 << 10

// readEntry reads one entry's line, whole or cut.
func readEntry(f *os.File, r pidex.Entry, cut bool, maxString int) ([]byte, error) {
	if cut {
		return jsonl.Shrink(io.NewSectionReader(f, r.Offset, r.Length), maxString, cutBudget)
	}
	buf := make([]byte, r.Length)
	_, err := f.ReadAt(buf, r.Offset)
	return buf, err
}

// Previews summarises the given entries of the session file at path in
// one line each (pi.Preview), by entry offset: the text of tree views. A
// line longer than PreviewMaxLine is not read (a 200 MB tool result would
// cost a gigabyte to decode for a one-line preview): its preview gives its
// size.
func Previews(path string, rows []pidex.Entry) (map[int64]string, error) {
	out := make(map[int64]string, len(rows))
	small := rows[:0:0]
	for _, r := range rows {
		if r.Length > PreviewMaxLine {
			out[r.Offset] = fmt.Sprintf("[%.1f MB line, not previewed]", float64(r.Length)/(1<<20))
			continue
		}
		small = append(small, r)
	}
	// Read in chunks, so that memory stays bounded by the chunk, not the file.
	for start := 0; start < len(small); start += 256 {
		es, err := ReadEntries(path, small[start:min(start+256, len(small))], previewCutLine, previewCutString)
		if err != nil {
			return nil, err
		}
		for _, e := range es {
			out[e.Offset] = pi.Preview(e.Decoded)
		}
	}
	return out, nil
}

// A line longer than previewCutLine is cut (jsonl.Shrink: strings kept to
// previewCutString bytes) before it is decoded for its preview, which
// needs only its first 400 characters (at most 1,600 bytes, before white
// space is folded): decoding a 50 MB session whole for its 9,186 previews
// took 1.5 s.
const (
	previewCutLine   = 4 << 10
	previewCutString = 2 << 10
)

// PreviewMaxLine is the longest line Previews reads.
const PreviewMaxLine = 1 << 20
