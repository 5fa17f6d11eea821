package query

import (
	"context"
	"fmt"
)

// SessionIDs lists the id of every session in the catalog, which is what
// a prefix must be unique among: Resolve matches the whole catalog, not
// only the roots.
func (rd *Reader) SessionIDs(ctx context.Context) ([]string, error) {
	var ids []string
	if err := rd.db.SelectContext(ctx, &ids, `SELECT session_id FROM sessions`); err != nil {
		return nil, fmt.Errorf("list session ids: %w", err)
	}
	return ids, nil
}
