package postgres

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/jackc/pgx/v5"
)

// COPY is how a push sends rows, and PostgreSQL refuses COPY FROM into a
// table whose row-level security holds the role ("COPY FROM not supported
// with row-level security"). So a role held to its machines (docs/team.md,
// Roles) copies into staging tables, temporary tables of its connection
// with the same columns, and moves the rows on with INSERT … SELECT,
// which the policies check row by row; the staging table is emptied in
// the same round trip. The owner of the tables, whom the policies do not
// hold, copies straight in.

// stagePrefix starts the name of each staging table.
const stagePrefix = "pidex_stage_"

// Lines, text and search rows: sent by lines, beside the tables of
// tables.go.
var (
	entryLinesCols = []string{"file_id", "offset", "machine_id", "raw"}
	entryTextCols  = []string{"file_id", "offset", "machine_id", "text"}
	textIndexCols  = []string{"file_id", "offset", "part", "machine_id", "win", "exact", "tokens", "first", "tsv"}
)

// copied lists every table a push copies into, with its columns.
func copied() map[string][]string {
	out := map[string][]string{"entry_lines": entryLinesCols, "entry_text": entryTextCols, "text_index": textIndexCols}
	for _, t := range append([]table{entriesTable, edgesTable, toolCallsTable}, smallTables...) {
		out[t.name] = t.names()
	}
	return out
}

// colList is a column list for SQL.
func colList(cols []string) string {
	q := make([]string, len(cols))
	for i, c := range cols {
		q[i] = pgx.Identifier{c}.Sanitize()
	}
	return strings.Join(q, ", ")
}

// createStage makes the connection's staging tables, unless it has them
// (they last as long as the connection). The wide columns are stored
// without compression there: the rows stay a moment, and are compressed
// once, in their table.
func createStage(ctx context.Context, pc *pgx.Conn) error {
	var b strings.Builder
	for name, cols := range copied() {
		fmt.Fprintf(&b, "CREATE TEMP TABLE IF NOT EXISTS %s AS SELECT %s FROM %s WITH NO DATA;\n", stagePrefix+name, colList(cols), name)
	}
	for _, wide := range [][2]string{{"entry_lines", "raw"}, {"entry_text", "text"}, {"text_index", "tsv"}} {
		fmt.Fprintf(&b, "ALTER TABLE %s ALTER %s SET STORAGE EXTERNAL;\n", stagePrefix+wide[0], wide[1])
	}
	if _, err := pc.Exec(ctx, b.String()); err != nil {
		return fmt.Errorf("make staging tables: %w", err)
	}
	return nil
}

// copyText sends rows in COPY's text format into table's columns.
func (w *fileWriter) copyText(ctx context.Context, table string, cols []string, data io.Reader) error {
	target := table
	if w.p.staged {
		target = stagePrefix + table
	}
	if _, err := w.tx.Conn().PgConn().CopyFrom(ctx, data, `COPY `+target+` (`+colList(cols)+`) FROM STDIN`); err != nil {
		return err
	}
	return w.unstage(ctx, table, cols)
}

// copyBinary sends rows in COPY's binary format into table's columns.
func (w *fileWriter) copyBinary(ctx context.Context, table string, cols []string, rows [][]any) error {
	target := table
	if w.p.staged {
		target = stagePrefix + table
	}
	if _, err := w.tx.CopyFrom(ctx, pgx.Identifier{target}, cols, pgx.CopyFromRows(rows)); err != nil {
		return err
	}
	return w.unstage(ctx, table, cols)
}

// unstage moves the staged rows into table, under its policies, and
// empties the staging table.
func (w *fileWriter) unstage(ctx context.Context, table string, cols []string) error {
	if !w.p.staged {
		return nil
	}
	list := colList(cols)
	if _, err := w.tx.Exec(ctx, `INSERT INTO `+table+` (`+list+`) SELECT `+list+` FROM `+stagePrefix+table+`; TRUNCATE `+stagePrefix+table); err != nil {
		return err
	}
	return nil
}
