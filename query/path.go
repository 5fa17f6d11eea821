package query

import (
	"context"
	"fmt"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/readside"
)

// pathSQL walks pi's id map (edges) from the leaf to the root: each step
// follows parent_id to the entry that owns that id (the latest one, as in
// pi). A missing parent ends the walk. The depth bound (the number of
// entries in the file) stops a parent cycle, which would hang pi.
const pathSQL = `
WITH RECURSIVE walk(id, depth) AS (
	SELECT ?, 0
	UNION ALL
	SELECT e.parent_id, w.depth + 1
	FROM walk w JOIN edges e ON e.file_id = ? AND e.child_id = w.id
	WHERE e.parent_id IS NOT NULL AND w.depth < ?
)
SELECT en.id, en.parent_id, en.type, COALESCE(en.role, '') AS role, en.ts, en.offset, en.length, en.line
FROM walk w
JOIN edges e ON e.file_id = ? AND e.child_id = w.id
JOIN entries en ON en.file_id = e.file_id AND en.offset = e.offset
ORDER BY w.depth`

// Path returns the entries from the root to the leaf of one session. An
// empty leafID means pi's leaf: the last entry in file order.
func (rd *Reader) Path(ctx context.Context, fileID int64, leafID string) ([]pidex.Entry, error) {
	var s struct {
		Leaf    *string `db:"leaf_id"`
		Entries int64   `db:"entry_count"`
	}
	if err := rd.db.GetContext(ctx, &s, "SELECT leaf_id, entry_count FROM sessions WHERE file_id = ?", fileID); err != nil {
		return nil, sessionError(fileID, err)
	}
	if leafID == "" {
		if s.Leaf == nil {
			return []pidex.Entry{}, nil // a header without entries
		}
		leafID = *s.Leaf
	}
	var up []pidex.Entry
	if err := rd.db.SelectContext(ctx, &up, pathSQL, leafID, fileID, s.Entries, fileID); err != nil {
		return nil, fmt.Errorf("walk path: %w", err)
	}
	if len(up) == 0 {
		return nil, fmt.Errorf("entry %q: %w", leafID, pidex.ErrNotFound)
	}
	return readside.Cut(up), nil
}
