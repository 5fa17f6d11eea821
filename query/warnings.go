package query

import (
	"context"
	"fmt"

	"github.com/pidex-dev/pidex"
)

// Warnings lists every line the catalog skipped, by file and line.
func (rd *Reader) Warnings(ctx context.Context) ([]pidex.Warning, error) {
	ws := []pidex.Warning{}
	err := rd.db.SelectContext(ctx, &ws, `SELECT f.path, w.line, w.message
		FROM warnings w JOIN files f ON f.id = w.file_id ORDER BY f.path, w.line`)
	if err != nil {
		return nil, fmt.Errorf("list warnings: %w", err)
	}
	return ws, nil
}
