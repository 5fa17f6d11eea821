package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/jmoiron/sqlx"
)

// Derivation returns the version of the ingest logic that produced the
// catalog's rows (0 when none is recorded: a catalog from before pidex
// recorded it, or an empty one).
func Derivation(ctx context.Context, db *sqlx.DB) (int, error) {
	var v string
	err := db.GetContext(ctx, &v, "SELECT value FROM meta WHERE key = 'derivation'")
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read derivation: %w", err)
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, fmt.Errorf("read derivation %q: %w", v, err)
	}
	return n, nil
}

// SetDerivation records the version of the ingest logic that produced the
// catalog's rows.
func SetDerivation(ctx context.Context, db *sqlx.DB, v int) error {
	_, err := db.ExecContext(ctx, "INSERT OR REPLACE INTO meta (key, value) VALUES ('derivation', ?)", strconv.Itoa(v))
	if err != nil {
		return fmt.Errorf("write derivation: %w", err)
	}
	return nil
}

// IsEmpty reports whether the catalog has never indexed a file.
func IsEmpty(ctx context.Context, db *sqlx.DB) (bool, error) {
	var n int
	if err := db.GetContext(ctx, &n, "SELECT count(*) FROM (SELECT 1 FROM files LIMIT 1)"); err != nil {
		return false, fmt.Errorf("count files: %w", err)
	}
	return n == 0, nil
}

// ReplaceFrom replaces every row of the catalog with the rows of the
// catalog file at src (built by the same pidex, so with the same schema),
// in one write transaction. Readers see the old rows until it commits and
// the new ones after, never a mix; processes that have the catalog open
// (a running watcher, a reader) keep working on the same file, which is
// why this copies rows instead of renaming a file over the catalog.
func ReplaceFrom(ctx context.Context, db *DB, src string) error {
	defer db.LockWriter()()
	conn, err := db.Connx(ctx)
	if err != nil {
		return fmt.Errorf("replace catalog: %w", err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "ATTACH DATABASE ? AS src", src); err != nil {
		return fmt.Errorf("attach rebuilt catalog: %w", err)
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), "DETACH DATABASE src")
	if err := copyTables(ctx, conn); err != nil {
		return fmt.Errorf("replace catalog: %w", err)
	}
	return analyze(ctx, conn)
}

// Analyze gathers the query planner's statistics (sqlite_stat1), after a
// bulk load. Without them SQLite scanned usage through its entry-id index,
// a random lookup per row (a usage_v report: 2.1 s; with them 0.65 s).
// analysis_limit bounds the rows it reads per index: 0.1 s on a
// 3,000-session catalog, where a full ANALYZE takes 2 s.
func (c *DB) Analyze(ctx context.Context) error {
	conn, err := c.Connx(ctx)
	if err != nil {
		return fmt.Errorf("analyze catalog: %w", err)
	}
	defer conn.Close()
	return analyze(ctx, conn)
}

// Compact rewrites the catalog packed (VACUUM) and truncates the
// write-ahead log that VACUUM wrote through.
func (c *DB) Compact(ctx context.Context) error {
	conn, err := c.Connx(ctx)
	if err != nil {
		return fmt.Errorf("compact catalog: %w", err)
	}
	defer conn.Close()
	// VACUUM builds the packed copy in the temporary store, which every
	// catalog connection keeps on disk (TempPragma): a copy of the whole
	// catalog in memory took a cold index from 224 to 843 MB.
	if _, err := conn.ExecContext(ctx, "VACUUM"); err != nil {
		return fmt.Errorf("compact catalog: %w", err)
	}
	if _, err := conn.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		return fmt.Errorf("compact catalog: %w", err)
	}
	return nil
}

// analyze leaves out the full-text index's shadow tables: gathered after
// the metadata pass, when the index is still empty, their statistics
// misled FTS5's own statements for the whole text pass that follows (a
// cold index 2.4 times slower, its system time 9 times). Its statements
// are lookups by key that need none.
func analyze(ctx context.Context, conn *sqlx.Conn) error {
	if _, err := conn.ExecContext(ctx, "PRAGMA analysis_limit = 400"); err != nil {
		return fmt.Errorf("analyze catalog: %w", err)
	}
	var tables []string
	err := conn.SelectContext(ctx, &tables, `SELECT name FROM main.sqlite_master WHERE type = 'table'
		AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'text_index%' AND sql NOT LIKE 'CREATE VIRTUAL TABLE%'`)
	if err != nil {
		return fmt.Errorf("analyze catalog: %w", err)
	}
	for _, t := range tables {
		if _, err := conn.ExecContext(ctx, `ANALYZE main."`+t+`"`); err != nil {
			return fmt.Errorf("analyze catalog: %w", err)
		}
	}
	return nil
}

// triggerMade are tables that triggers write from other tables' rows
// (migration 00020): session_activity's branch points from sessions, the
// whole history's sums from the per-file activity rows. They are copied
// after every other table, so that the rebuilt catalog's own rows replace
// whatever the triggers made of the copying (deleting the live per-file
// rows subtracts them from sums already copied).
var triggerMade = []string{"session_activity", "activity_all", "activity_tools_all", "activity_hours", "activity_quarters"}

// derivedLast is tables with triggerMade's at the end, in its order.
func derivedLast(tables []string) []string {
	out := make([]string, 0, len(tables))
	for _, t := range tables {
		if !slices.Contains(triggerMade, t) {
			out = append(out, t)
		}
	}
	for _, t := range triggerMade {
		if slices.Contains(tables, t) {
			out = append(out, t)
		}
	}
	return out
}

// copyTables copies every table; a virtual table (the FTS5 index) is
// copied through its shadow tables, which hold all of its state.
func copyTables(ctx context.Context, conn *sqlx.Conn) error {
	tx, err := conn.BeginTxx(ctx, nil) // IMMEDIATE (see dsn)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var tables []string
	err = tx.SelectContext(ctx, &tables, `SELECT name FROM main.sqlite_master
		WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name != 'goose_db_version'
		AND sql NOT LIKE 'CREATE VIRTUAL TABLE%' ORDER BY name`)
	if err != nil {
		return err
	}
	tables = derivedLast(tables)
	// Every file's generation moves past any the live catalog had: a
	// batch another process planned before the swap must find its file
	// changed and back off (the indexer checks offset and generation).
	// The rebuilt catalog's generations start again at 1, and one that
	// happened to equal the live one, at the same offset, let such a batch
	// write its stale session row over the rebuilt entries.
	var past int64
	if err := tx.GetContext(ctx, &past, `SELECT COALESCE(max(generation), 0) + 1 FROM main.files`); err != nil {
		return fmt.Errorf("read generations: %w", err)
	}
	for _, t := range tables {
		var cols []string
		if err := tx.SelectContext(ctx, &cols, "SELECT name FROM pragma_table_info(?)", t); err != nil {
			return err
		}
		list := `"` + strings.Join(cols, `","`) + `"`
		if _, err := tx.ExecContext(ctx, `DELETE FROM main."`+t+`"`); err != nil {
			return fmt.Errorf("clear %s: %w", t, err)
		}
		q := `INSERT INTO main."` + t + `" (` + list + `) SELECT ` + list + ` FROM src."` + t + `"`
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("copy %s: %w", t, err)
		}
	}
	if _, err := tx.ExecContext(ctx, `UPDATE main.files SET generation = generation + ?`, past); err != nil {
		return fmt.Errorf("move generations: %w", err)
	}
	return tx.Commit()
}
