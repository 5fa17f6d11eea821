package query

import (
	"context"
	"fmt"

	"github.com/pidex-dev/pidex"
)

// pathSQL walks pi's id map (edges) from the leaf to the root: each step
// follows parent_id to the entry that owns that id (the latest one, as in
// pi). A missing parent ends the walk. The depth bound (the number of
// entries in the file) stops a parent cycle, which would hang pi.
func pathSQL(d Dialect) string {
	return `
WITH RECURSIVE walk(id, depth) AS (
	SELECT CAST(? AS TEXT), 0
	UNION ALL
	SELECT ed.parent_id, w.depth + 1
	FROM walk w CROSS JOIN edges ed
	WHERE ` + d.FileIs("ed") + ` AND ed.child_id = w.id AND ed.parent_id IS NOT NULL AND w.depth < ?
)
SELECT ` + entryColumns + `
FROM walk w
CROSS JOIN edges ed
JOIN entries en ON ` + d.FileIs("ed") + ` AND ed.child_id = w.id AND en.file_id = ed.file_id AND en."offset" = ed."offset"` + d.sameMachine("en", "ed") + `
ORDER BY w.depth`
}

// pathWalkAt: a session of this many entries or more has its path walked
// in Go over its whole id map, read in one scan, instead of by the
// recursive statement, whose steps (an index lookup each) took 50 ms for
// a 9,000-entry path, twice per page of the largest session.
const pathWalkAt = 2000

// Path is the root-to-leaf path of one session ("" = pi's leaf, the last
// entry of the file).
func (rd *Reader) Path(ctx context.Context, ref pidex.SessionRef, leaf string) ([]pidex.Entry, error) {
	path, err := rd.path(ctx, ref.FileID, leaf)
	return path, entryNotFound(err, ref, leaf)
}

func (rd *Reader) path(ctx context.Context, fileID int64, leafID string) ([]pidex.Entry, error) {
	var s struct {
		Leaf    *string `db:"leaf_id"`
		Entries int64   `db:"entry_count"`
	}
	d := rd.backend().Dialect()
	db := rd.backend().Rows()
	if err := db.GetContext(ctx, &s, db.Rebind("SELECT leaf_id, entry_count FROM sessions s WHERE "+d.FileIs("s")), fileID); err != nil {
		return nil, sessionError(fileID, err)
	}
	if leafID == "" {
		if s.Leaf == nil {
			return []pidex.Entry{}, nil // a header without entries
		}
		leafID = *s.Leaf
	}
	var up []pidex.Entry
	var err error
	if s.Entries >= rd.walkAt {
		up, err = rd.walkInGo(ctx, fileID, leafID, s.Entries)
	} else {
		up, err = rd.entryRows(ctx, pathSQL(d), leafID, fileID, s.Entries, fileID)
	}
	if err != nil {
		return nil, fmt.Errorf("walk path: %w", err)
	}
	if len(up) == 0 {
		return nil, fmt.Errorf("entry %q: %w", leafID, pidex.ErrNotFound)
	}
	return Cut(up), nil
}

// walkInGo is pathSQL's walk: the same steps over the same edges (the
// entry that owns each id, the latest one), in Go.
func (rd *Reader) walkInGo(ctx context.Context, fileID int64, leafID string, limit int64) ([]pidex.Entry, error) {
	d := rd.backend().Dialect()
	db := rd.backend().Rows()
	rows, err := db.QueryContext(ctx, db.Rebind(`SELECT ed.child_id, ed.parent_id, `+entryColumns+`
		FROM edges ed JOIN entries en ON en.file_id = ed.file_id AND en."offset" = ed."offset"`+d.sameMachine("en", "ed")+` WHERE `+d.FileIs("ed")), fileID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	type edge struct {
		parent *string
		entry  pidex.Entry
	}
	ids := map[string]edge{}
	for rows.Next() {
		var child string
		var ed edge
		e := &ed.entry
		if err := rows.Scan(&child, &ed.parent, &e.ID, &e.ParentID, &e.Type, &e.Role, &e.Timestamp, &e.Offset, &e.Length, &e.Line); err != nil {
			return nil, err
		}
		ids[child] = ed
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	var up []pidex.Entry
	id := leafID
	for depth := int64(0); ; depth++ {
		ed, ok := ids[id]
		if !ok {
			break
		}
		up = append(up, ed.entry)
		if ed.parent == nil || depth >= limit {
			break
		}
		id = *ed.parent
	}
	return up, nil
}
