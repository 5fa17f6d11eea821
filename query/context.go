package query

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/pi"
)

// ContextSpec says how to read the branch a context is rebuilt from.
type ContextSpec struct {
	// Leaf ends the branch ("": pi's leaf, the last entry of the file).
	Leaf string
	// MaxLine: a line longer than this many bytes is read as a stream and
	// kept cut (its strings keep MaxString bytes), so that memory does not
	// grow with the longest line of the session; 0 reads every line whole,
	// as pi does (an exact context, fit for a model or JSON).
	MaxLine   int64
	MaxString int
	// Window: only these entries of the branch are read as above; the
	// others are cut above skeletonLine bytes, since the rebuild needs
	// their kinds, ids and links, not their text (a 50 MB session's
	// context took a second to decode whole). The zero Window reads every
	// entry as above.
	Window pidex.Window
}

// Context rebuilds the model context of one session at spec.Leaf the way
// pi's buildSessionContext does: it walks the branch through the catalog
// (Path, cycle-safe), reads each entry back from the file by its stored
// offset, and hands them to pi.BuildContext. from and to are the entries
// of the branch the window read as asked (all of them without a window):
// only they are fit to show, and with a window or a MaxLine the messages
// are for reading, not pi's.
//
// Deviations from pi, where pi has no answer: an unknown leaf is
// pidex.ErrNotFound (pi silently falls back to the last entry); a parent
// cycle yields the path up to the cycle (pi hangs); see pi.BuildContext
// for the rest.
func (rd *Reader) Context(ctx context.Context, ref pidex.SessionRef, spec ContextSpec) (sc *pi.SessionContext, from, to int, err error) {
	rows, err := rd.Path(ctx, ref.FileID, spec.Leaf)
	if err != nil {
		return nil, 0, 0, err
	}
	target := -1
	for i := range rows {
		if rows[i].ID == spec.Window.Around {
			target = i
		}
	}
	from, to = spec.Window.Span(len(rows), target)
	var entries []pi.Entry
	for _, part := range []struct {
		rows      []pidex.Entry
		maxLine   int64
		maxString int
	}{{rows[:from], skeletonLine, previewCutString}, {rows[from:to], spec.MaxLine, spec.MaxString}, {rows[to:], skeletonLine, previewCutString}} {
		es, err := ReadEntries(ref.Path, part.rows, part.maxLine, part.maxString)
		if err != nil {
			return nil, 0, 0, err
		}
		entries = append(entries, es...)
	}
	sc, err = rd.buildContext(ctx, ref, entries)
	return sc, from, to, err
}

// skeletonLine: Context cuts the entries outside the window above this
// size (as previews do).
const skeletonLine = previewCutLine

// buildContext rebuilds the context of a branch from its entries.
func (rd *Reader) buildContext(ctx context.Context, ref pidex.SessionRef, entries []pi.Entry) (*pi.SessionContext, error) {
	var s struct {
		Version int    `db:"version"`
		Source  string `db:"source"`
		Root    string `db:"root"`
	}
	if err := rd.db.GetContext(ctx, &s, "SELECT s.version, s.source, f.root FROM sessions s JOIN files f ON f.id = s.file_id WHERE s.file_id = ?", ref.FileID); err != nil {
		return nil, fmt.Errorf("load session: %w", err)
	}
	labels, err := rd.Labels(ctx, ref.FileID)
	if err != nil {
		return nil, err
	}
	var sc *pi.SessionContext
	if s.Source == pidex.SourceOmp { // oh-my-pi rebuilds it its own way
		sc, err = pi.BuildOmpContext(entries, blobStore(s.Root))
	} else {
		var firstKept map[int64]string
		if firstKept, err = rd.firstKept(ctx, ref.FileID, s.Version); err != nil {
			return nil, err
		}
		sc, err = pi.BuildContext(entries, s.Version, firstKept)
	}
	if err != nil {
		return nil, err
	}
	byTarget := make(map[string]string, len(labels))
	for _, l := range labels {
		byTarget[l.TargetID] = l.Label
	}
	for i := range sc.Path {
		sc.Path[i].Label = byTarget[sc.Path[i].ID]
	}
	return sc, nil
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
