package query

import (
	"context"
	"fmt"

	"github.com/jmoiron/sqlx"

	"github.com/pidex-dev/pidex/schema"
)

// Warnings lists every line the catalog skipped, by file and line.
func Warnings(ctx context.Context, db *sqlx.DB) ([]schema.Warning, error) {
	ws := []schema.Warning{}
	err := db.SelectContext(ctx, &ws, `SELECT f.path, w.line, w.message
		FROM warnings w JOIN files f ON f.id = w.file_id ORDER BY f.path, w.line`)
	if err != nil {
		return nil, fmt.Errorf("list warnings: %w", err)
	}
	return ws, nil
}
