package query

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/readside"
	"github.com/pidex-dev/pidex/pi"
)

// ContextSpec says how to read the branch a context is rebuilt from.
type ContextSpec = readside.ContextSpec

// Context rebuilds the model context of one session at spec.Leaf the way
// pi's buildSessionContext does (see readside.Context): the branch walked
// through the catalog, each entry read back from the file by its stored
// offset.
func (rd *Reader) Context(ctx context.Context, ref pidex.SessionRef, spec ContextSpec) (sc *pi.SessionContext, from, to int, err error) {
	return readside.Context(ctx, rd, ref, spec)
}

// Facts are what a context rebuild needs of a session besides its lines.
func (rd *Reader) Facts(ctx context.Context, fileID int64) (readside.Facts, error) {
	var s struct {
		Version int    `db:"version"`
		Source  string `db:"source"`
		Root    string `db:"root"`
	}
	if err := rd.db.GetContext(ctx, &s, "SELECT s.version, s.source, f.root FROM sessions s JOIN files f ON f.id = s.file_id WHERE s.file_id = ?", fileID); err != nil {
		return readside.Facts{}, sessionError(fileID, err)
	}
	firstKept, err := rd.firstKept(ctx, fileID, s.Version)
	if err != nil {
		return readside.Facts{}, err
	}
	labels, err := rd.Labels(ctx, fileID)
	if err != nil {
		return readside.Facts{}, err
	}
	return readside.Facts{Version: s.Version, Source: s.Source, FirstKept: firstKept, Labels: labels, Blobs: blobStore(s.Root)}, nil
}

// blobStore reads omp's blobs of the sessions under root: <agent
// dir>/blobs beside <agent dir>/sessions (XDG's data folder keeps the
// same pair), one file per sha256 of the image's bytes.
func blobStore(root string) func(hash string) ([]byte, bool) {
	dir := filepath.Join(filepath.Dir(root), "blobs")
	return func(hash string) ([]byte, bool) {
		b, err := os.ReadFile(filepath.Join(dir, hash))
		return b, err == nil
	}
}

// firstKept maps the offsets of a v1 file's entries that name their first
// kept entry by index (v1 compactions) to the id the indexer resolved it
// to when it ingested the file; v2 and later name it by id themselves.
func (rd *Reader) firstKept(ctx context.Context, fileID int64, version int) (map[int64]string, error) {
	out := map[int64]string{}
	if version >= 2 {
		return out, nil
	}
	rows, err := rd.db.QueryContext(ctx, "SELECT offset, first_kept FROM entries WHERE file_id = ? AND first_kept IS NOT NULL", fileID)
	if err != nil {
		return nil, fmt.Errorf("load compactions: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var off int64
		var id string
		if err := rows.Scan(&off, &id); err != nil {
			return nil, fmt.Errorf("load compactions: %w", err)
		}
		out[off] = id
	}
	return out, rows.Err()
}
