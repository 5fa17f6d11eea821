package query

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/readside"
	"github.com/pidex-dev/pidex/pi"
)

// Entries returns every entry of a session in file order (the catalog's
// rows, without the file's bytes).
func (rd *Reader) Entries(ctx context.Context, fileID int64) ([]pidex.Entry, error) {
	es, err := rd.entryRows(ctx, `SELECT id, parent_id, type, COALESCE(role, '') AS role, ts, offset, length, line
		FROM entries WHERE file_id = ? ORDER BY offset`, fileID)
	if err != nil {
		return nil, fmt.Errorf("list entries: %w", err)
	}
	return es, nil
}

// Lines reads the given entries' lines from the session file, by their
// stored offsets, and decodes them (readside.Lines): the catalog holds no
// content, the file stays the source of truth.
func (rd *Reader) Lines(_ context.Context, ref pidex.SessionRef, rows []pidex.Entry, maxLine int64, maxString int) ([]pi.Entry, error) {
	return ReadEntries(ref.Path, rows, maxLine, maxString)
}

// ReadEntries reads the given entries' lines from the session file at
// path (see Reader.Lines).
func ReadEntries(path string, rows []pidex.Entry, maxLine int64, maxString int) ([]pi.Entry, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open session file: %w", err)
	}
	defer f.Close()
	out := make([]pi.Entry, len(rows))
	for i, r := range rows {
		cut := maxLine > 0 && r.Length > maxLine
		if out[i], err = readside.Decode(r, io.NewSectionReader(f, r.Offset, r.Length), cut, maxString, path); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Previews summarises the given entries of the session file at path in
// one line each (see readside.Previews).
func Previews(path string, rows []pidex.Entry) (map[int64]string, error) {
	return readside.Previews(context.Background(), files{}, pidex.SessionRef{Path: path}, rows)
}

// files reads lines from the session files.
type files struct{}

func (files) Lines(_ context.Context, ref pidex.SessionRef, rows []pidex.Entry, maxLine int64, maxString int) ([]pi.Entry, error) {
	return ReadEntries(ref.Path, rows, maxLine, maxString)
}

// StoredPreviews returns the previews the indexer kept for a session's
// entries (readside.PreviewStore), by offset.
func (rd *Reader) StoredPreviews(ctx context.Context, ref pidex.SessionRef) (map[int64]readside.KeptPreview, error) {
	rows, err := rd.db.QueryContext(ctx, `SELECT data FROM entry_previews WHERE file_id = ? ORDER BY offset`, ref.FileID)
	if err != nil {
		return nil, fmt.Errorf("read previews: %w", err)
	}
	defer rows.Close()
	out := map[int64]readside.KeptPreview{}
	for rows.Next() {
		var data []byte
		if err := rows.Scan(&data); err != nil {
			return nil, fmt.Errorf("read previews: %w", err)
		}
		if err := readside.ReadPreviewBlock(data, out); err != nil {
			return nil, err
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read previews: %w", err)
	}
	return out, nil
}
