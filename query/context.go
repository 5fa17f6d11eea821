package query

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/jmoiron/sqlx"

	"github.com/pidex-dev/pidex/pi"
	"github.com/pidex-dev/pidex/schema"
)

// The context types are pi's (package pi holds what the format means);
// these aliases keep the read API in one place for library users.
type (
	SessionContext = pi.SessionContext
	ContextModel   = pi.ContextModel
	ContextEntry   = pi.ContextEntry
	PathItem       = pi.PathItem
)

// BuildContext is pi.BuildContext: the context rebuilt from a path already
// read from the file.
func BuildContext(path []Entry, version int, firstKept map[int64]string) (*SessionContext, error) {
	return pi.BuildContext(path, version, firstKept)
}

// Context rebuilds the model context of one session at leafID ("" means
// pi's leaf, the last entry of the file), the way pi's buildSessionContext
// does: it walks the path through the catalog (query.Path, cycle-safe),
// reads each entry back from the file by its stored offset, and hands them
// to pi.BuildContext.
//
// Deviations from pi, where pi has no answer: an unknown leafID is
// schema.ErrNotFound (pi silently falls back to the last entry); a parent
// cycle yields the path up to the cycle (pi hangs); see pi.BuildContext
// for the rest.
func Context(ctx context.Context, db *sqlx.DB, ref schema.SessionRef, leafID string) (*SessionContext, error) {
	return ContextCut(ctx, db, ref, leafID, 0)
}

// ContextCut is Context for display: an entry whose line is longer than
// maxLine bytes (0: no limit) is read cut (see ReadCut), so that memory
// stays bounded whatever the session holds. What such an entry contributes
// is then its cut copy, not pi's message: for reading, not for a model.
func ContextCut(ctx context.Context, db *sqlx.DB, ref schema.SessionRef, leafID string, maxLine int64) (*SessionContext, error) {
	rows, err := Path(ctx, db, ref.FileID, leafID)
	if err != nil {
		return nil, err
	}
	entries, err := ReadCut(ref.Path, rows, maxLine)
	if err != nil {
		return nil, err
	}
	return contextOf(ctx, db, ref, rows, entries)
}

// Window picks the entries [from, to) of a branch that a reader sees.
type Window func(path []schema.PathEntry) (from, to int)

// ContextWindow is ContextCut for a reader who sees only the entries of
// the branch that window picks: those are read as ContextCut reads them,
// every other entry is cut above skeletonLine bytes (the rebuild needs
// their kinds, ids and links, not their text; a 50 MB session's context
// took 1 s to decode whole). Only the picked entries are fit to show, and
// the context's messages are not pi's: for a reading view of the branch.
func ContextWindow(ctx context.Context, db *sqlx.DB, ref schema.SessionRef, leafID string, maxLine int64,
	window Window) (sc *SessionContext, from, to int, err error) {
	rows, err := Path(ctx, db, ref.FileID, leafID)
	if err != nil {
		return nil, 0, 0, err
	}
	from, to = window(rows)
	var entries []Entry
	for _, part := range []struct {
		rows    []schema.PathEntry
		maxLine int64
		str     int
	}{{rows[:from], skeletonLine, previewCutString}, {rows[from:to], maxLine, CutString}, {rows[to:], skeletonLine, previewCutString}} {
		es, err := readCut(ref.Path, part.rows, part.maxLine, part.str)
		if err != nil {
			return nil, 0, 0, err
		}
		entries = append(entries, es...)
	}
	sc, err = contextOf(ctx, db, ref, rows, entries)
	return sc, from, to, err
}

// skeletonLine: ContextWindow cuts the entries outside the window above
// this size (as previews do).
const skeletonLine = previewCutLine

// contextOf rebuilds the context of the path rows from their entries.
func contextOf(ctx context.Context, db *sqlx.DB, ref schema.SessionRef, rows []schema.PathEntry, entries []Entry) (*SessionContext, error) {
	var version int
	if err := db.GetContext(ctx, &version, "SELECT version FROM sessions WHERE file_id = ?", ref.FileID); err != nil {
		return nil, fmt.Errorf("load session: %w", err)
	}
	firstKept, err := v1FirstKept(ctx, db, ref.FileID, version, rows)
	if err != nil {
		return nil, err
	}
	labels, err := Labels(ctx, db, ref.FileID)
	if err != nil {
		return nil, err
	}
	sc, err := pi.BuildContext(entries, version, firstKept)
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

// v1FirstKept maps the offsets of a v1 file's compactions to the id of
// their first kept entry: v1 compactions name it by index, and the indexer
// resolved it to an id when it ingested the file.
func v1FirstKept(ctx context.Context, db *sqlx.DB, fileID int64, version int, rows []schema.PathEntry) (map[int64]string, error) {
	firstKept := map[int64]string{}
	if version >= 2 {
		return firstKept, nil
	}
	for _, r := range rows {
		if r.Type != schema.TypeCompaction {
			continue
		}
		var fk sql.NullString
		err := db.GetContext(ctx, &fk, "SELECT first_kept FROM entries WHERE file_id = ? AND offset = ?", fileID, r.Offset)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return nil, fmt.Errorf("load compaction: %w", err)
		}
		if fk.Valid {
			firstKept[r.Offset] = fk.String
		}
	}
	return firstKept, nil
}
