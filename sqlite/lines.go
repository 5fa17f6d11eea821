package sqlite

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/files"
	"github.com/pidex-dev/pidex/pi"
	"github.com/pidex-dev/pidex/query"
)

// Lines reads the given entries' lines from the session file, by their
// stored offsets, and decodes them: the catalog holds no content, the
// file stays the source of truth.
func (r *Reader) Lines(_ context.Context, ref pidex.SessionRef, rows []pidex.Entry, maxLine int64, maxString int) ([]pi.Entry, error) {
	f, err := files.OpenRegular(ref.Path)
	if err != nil {
		return nil, fmt.Errorf("open session file: %w", err)
	}
	defer f.Close()
	out := make([]pi.Entry, len(rows))
	for i, e := range rows {
		cut := maxLine > 0 && e.Length > maxLine
		if out[i], err = pi.Decode(e, io.NewSectionReader(f, e.Offset, e.Length), cut, maxString, ref.Path); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Kept is what the local catalog keeps beside the lines: every entry's
// preview from ingest, and oh-my-pi's image blobs on disk.
func (r *Reader) Kept(ref pidex.SessionRef) query.Kept {
	return query.Kept{
		Previews: func(ctx context.Context) (map[int64]query.KeptPreview, error) { return r.keptPreviews(ctx, ref) },
		Blob:     r.blob(ref),
	}
}

// keptPreviews are the previews the indexer kept for a session's entries
// (PreviewBlock), by offset.
func (r *Reader) keptPreviews(ctx context.Context, ref pidex.SessionRef) (map[int64]query.KeptPreview, error) {
	rows, err := r.db.QueryContext(ctx, `SELECT data FROM entry_previews WHERE file_id = ? ORDER BY offset`, ref.FileID)
	if err != nil {
		return nil, fmt.Errorf("read previews: %w", err)
	}
	defer rows.Close()
	out := map[int64]query.KeptPreview{}
	for rows.Next() {
		var data []byte
		if err := rows.Scan(&data); err != nil {
			return nil, fmt.Errorf("read previews: %w", err)
		}
		if err := ReadPreviewBlock(data, out); err != nil {
			return nil, err
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read previews: %w", err)
	}
	return out, nil
}

// blob reads omp's blobs of a session: <agent dir>/blobs beside <agent
// dir>/sessions (XDG's data folder keeps the same pair), one file per
// sha256 of the image's bytes. The root is looked up when a blob is first
// asked for.
func (r *Reader) blob(ref pidex.SessionRef) func(hash string) ([]byte, bool) {
	var dir string
	return func(hash string) ([]byte, bool) {
		if dir == "" {
			var root string
			if err := r.db.Get(&root, `SELECT root FROM files WHERE id = ?`, ref.FileID); err != nil {
				return nil, false
			}
			dir = filepath.Join(filepath.Dir(root), "blobs")
		}
		if filepath.Base(hash) != hash {
			return nil, false // a name, never a path
		}
		f, err := files.OpenRegular(filepath.Join(dir, hash))
		if err != nil {
			return nil, false
		}
		defer f.Close()
		b, err := io.ReadAll(f)
		return b, err == nil
	}
}
