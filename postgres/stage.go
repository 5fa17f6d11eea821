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
// with the same columns, and at the end of each transaction's writes moves
// the rows on with INSERT … SELECT, which the policies check row by row,
// and empties the staging tables: a few statements a transaction, in one
// round trip, whatever the number of files it carries. The owner of the
// tables, whom the policies do not hold, copies straight in.

// stagePrefix starts the name of each staging table.
const stagePrefix = "pidex_stage_"

// stageOrder lists every table a push copies into, in the order the
// staged rows move on: entries before the rows that name them (lines,
// text, search rows).
var stageOrder = func() []table {
	out := []table{entriesTable, lineChunksTable, entryTextTable, textIndexTable, toolCallsTable}
	return append(out, smallTables...)
}()

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
	for _, t := range stageOrder {
		fmt.Fprintf(&b, "CREATE TEMP TABLE IF NOT EXISTS %s AS SELECT %s FROM %s WITH NO DATA;\n", stagePrefix+t.name, colList(t.names()), t.name)
	}
	for _, wide := range [][2]string{{"line_chunks", "raw"}, {"entry_text", "text"}, {"text_index", "tsv"}} {
		fmt.Fprintf(&b, "ALTER TABLE %s ALTER %s SET STORAGE EXTERNAL;\n", stagePrefix+wide[0], wide[1])
	}
	if _, err := pc.Exec(ctx, b.String()); err != nil {
		return fmt.Errorf("make staging tables: %w", err)
	}
	return nil
}

// sendText sends rows in COPY's text format into table's columns.
func (w *fileWriter) sendText(ctx context.Context, table string, cols []string, data io.Reader) error {
	_, err := w.tx.Conn().PgConn().CopyFrom(ctx, data, `COPY `+w.target(table)+` (`+colList(cols)+`) FROM STDIN`)
	return err
}

// sendBinary sends rows in COPY's binary format into table's columns.
func (w *fileWriter) sendBinary(ctx context.Context, table string, cols []string, rows [][]any) error {
	_, err := w.tx.CopyFrom(ctx, pgx.Identifier{w.target(table)}, cols, pgx.CopyFromRows(rows))
	return err
}

// target is the table a COPY goes into: table, or its staging table.
func (w *fileWriter) target(table string) string {
	if w.p.staged {
		return stagePrefix + table
	}
	return table
}

// unstage moves the transaction's staged rows into their tables, under
// their policies, and empties the staging tables (nothing without them).
func (w *fileWriter) unstage(ctx context.Context) error {
	if !w.p.staged {
		return nil
	}
	var b strings.Builder
	var stages []string
	for _, t := range stageOrder {
		list := colList(t.names())
		fmt.Fprintf(&b, "INSERT INTO %s (%s) SELECT %s FROM %s;\n", t.name, list, list, stagePrefix+t.name)
		stages = append(stages, stagePrefix+t.name)
	}
	b.WriteString("TRUNCATE " + strings.Join(stages, ", "))
	if _, err := w.tx.Exec(ctx, b.String()); err != nil {
		return fmt.Errorf("move staged rows: %w", err)
	}
	return nil
}
