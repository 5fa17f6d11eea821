package query

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/jmoiron/sqlx"

	"github.com/pidex-dev/pidex/jsonl"
	"github.com/pidex-dev/pidex/pi"
	"github.com/pidex-dev/pidex/schema"
)

// Entry is one entry of a session with its line read back from the file.
type Entry = pi.Entry

// Entries returns every entry of a session in file order (the catalog's
// rows, without the file's bytes).
func Entries(ctx context.Context, db *sqlx.DB, fileID int64) ([]schema.PathEntry, error) {
	var es []schema.PathEntry
	err := db.SelectContext(ctx, &es, `SELECT id, parent_id, type, COALESCE(role, '') AS role, ts, offset, length, line
		FROM entries WHERE file_id = ? ORDER BY offset`, fileID)
	if err != nil {
		return nil, fmt.Errorf("list entries: %w", err)
	}
	return es, nil
}

// Read reads the given entries' lines from the session file at path, by
// their stored offsets, and decodes them. The catalog holds no content:
// the file stays the source of truth.
func Read(path string, rows []schema.PathEntry) ([]Entry, error) {
	return ReadCut(path, rows, 0)
}

// ReadCut is Read for display: a line longer than maxLine bytes (0: no
// limit) is read as a stream and kept cut (jsonl.Shrink: its long strings
// end with "…", Entry.Cut is set), so that memory does not grow with the
// longest line of the session.
func ReadCut(path string, rows []schema.PathEntry, maxLine int64) ([]Entry, error) {
	return readCut(path, rows, maxLine, CutString)
}

// readCut is ReadCut with strings of cut lines kept to maxString bytes.
func readCut(path string, rows []schema.PathEntry, maxLine int64, maxString int) ([]Entry, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open session file: %w", err)
	}
	defer f.Close()
	out := make([]Entry, len(rows))
	for i, r := range rows {
		cut := maxLine > 0 && r.Length > maxLine
		buf, err := readEntry(f, r, cut, maxString)
		if err != nil {
			return nil, fmt.Errorf("read %s line %d: %w (the file changed; refresh the catalog)", path, r.Line, err)
		}
		out[i] = Entry{PathEntry: r, Raw: buf, Cut: cut}
		if l, err := schema.DecodeLine(buf); l != nil {
			out[i].Line = l
		} else {
			return nil, fmt.Errorf("read %s line %d: %v (the file changed; refresh the catalog)", path, r.Line, err)
		}
	}
	return out, nil
}

// Strings in a cut line keep their first CutString bytes; the cut copy
// holds about CutBudget bytes (see jsonl.Shrink).
const (
	CutString = 4 << 10
	CutBudget = 64 << 10
)

// readEntry reads one entry's line, whole or cut.
func readEntry(f *os.File, r schema.PathEntry, cut bool, maxString int) ([]byte, error) {
	if cut {
		return jsonl.Shrink(io.NewSectionReader(f, r.Offset, r.Length), maxString, CutBudget)
	}
	buf := make([]byte, r.Length)
	_, err := f.ReadAt(buf, r.Offset)
	return buf, err
}

// Previews reads a session's lines back from its file and summarises each
// one (pi.Preview), by entry offset: the text of tree views. A line longer
// than PreviewMaxLine is not read (a 200 MB tool result would cost a
// gigabyte to decode for a one-line preview): its preview gives its size.
func Previews(ctx context.Context, db *sqlx.DB, ref schema.SessionRef) (map[int64]string, error) {
	rows, err := Entries(ctx, db, ref.FileID)
	if err != nil {
		return nil, err
	}
	return PreviewRows(ref.Path, rows)
}

// PreviewRows is Previews of the given entries of the session file at
// path (a caller that keeps earlier previews asks only for new entries).
func PreviewRows(path string, rows []schema.PathEntry) (map[int64]string, error) {
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
		es, err := readCut(path, small[start:min(start+256, len(small))], previewCutLine, previewCutString)
		if err != nil {
			return nil, err
		}
		for _, e := range es {
			out[e.Offset] = pi.Preview(e.Line)
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

// ShowMaxLine is the longest line ContextCut reads whole for display
// (longer ones are cut), the same bound as tree previews.
const ShowMaxLine = PreviewMaxLine
