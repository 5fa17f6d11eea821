package query

import (
	"context"
	"fmt"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/readside"
)

// Tree returns a session's entry tree with pi's getTree rules (see
// readside.BuildTree).
func (rd *Reader) Tree(ctx context.Context, fileID int64) ([]*pidex.TreeNode, error) {
	var rows []pidex.Entry
	err := rd.db.SelectContext(ctx, &rows, `SELECT en.id, en.parent_id, en.type, COALESCE(en.role, '') AS role, en.ts,
		en.offset, en.length, en.line
		FROM edges e JOIN entries en ON en.file_id = e.file_id AND en.offset = e.offset
		WHERE e.file_id = ? ORDER BY en.offset`, fileID)
	if err != nil {
		return nil, fmt.Errorf("load tree: %w", err)
	}
	labels, err := rd.Labels(ctx, fileID)
	if err != nil {
		return nil, err
	}
	var leaf *string
	if err := rd.db.GetContext(ctx, &leaf, "SELECT leaf_id FROM sessions WHERE file_id = ?", fileID); err != nil {
		return nil, sessionError(fileID, err)
	}
	return readside.BuildTree(rows, labels, leaf), nil
}
