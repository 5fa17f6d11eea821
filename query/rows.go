package query

import (
	"context"
	"database/sql"
	"fmt"
)

// Queryer runs a statement: a pool, a transaction or a connection.
type Queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// Collect runs a statement and scans each of its rows into a T, by the
// destinations dest gives of it, scanned by hand (reflection-based
// scanning was half of reading a 9,000-entry path). Errors say what was
// being read.
func Collect[T any](ctx context.Context, db Queryer, what, stmt string, args []any, dest func(*T) []any) ([]T, error) {
	rows, err := db.QueryContext(ctx, stmt, args...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		var v T
		if err := rows.Scan(dest(&v)...); err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return out, nil
}
