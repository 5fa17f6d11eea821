package postgres

// A push's writes, file by file: the parts readGroup hands on (pushread.go),
// from this process or over HTTP (pushhttp.go), all sent with COPY
// (through staging tables for a role held by row-level security:
// stage.go).

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jmoiron/sqlx"
)

// fileWriter writes a transaction's files from their parts (wire.go), in
// the order readGroup hands them on: each file's head, its entries and
// lines (written as they come), its small tables' rows (held, and written
// after every file's big rows, under the calls lock), then finish.
type fileWriter struct {
	p                    *pusher
	tx                   pgx.Tx
	files                []*fileRows
	textRows, textTokens int64
}

// fileRows is a file of the transaction: its job (act, cursor as it left
// the machine, the team catalog's id), its name and its small tables'
// rows.
type fileRows struct {
	job   job
	base  string
	small map[string][][]any
}

// put writes a part. A part that concerns a file and fails on its
// account is named by a fileError.
func (w *fileWriter) put(ctx context.Context, pt *pushPart) error {
	if pt.File != nil {
		if pt.File.Base == "" {
			return fmt.Errorf("%w: a file without its name", errProtocol)
		}
		f := &fileRows{job: job{act: pt.File.Act, local: pt.File.Local, pushed: pt.File.Pushed}, base: pt.File.Base, small: map[string][][]any{}}
		w.files = append(w.files, f)
		if err := w.start(ctx, &f.job); err != nil {
			return &fileError{len(w.files) - 1, err}
		}
		return nil
	}
	if len(w.files) == 0 {
		return fmt.Errorf("%w: rows before any file", errProtocol)
	}
	f := w.files[len(w.files)-1]
	switch {
	case pt.Rows != nil:
		t, ok := pushTables[pt.Rows.Table]
		if !ok {
			return fmt.Errorf("%w: no table %q", errProtocol, pt.Rows.Table)
		}
		for _, r := range pt.Rows.Rows {
			if len(r) != len(t.cols) {
				return fmt.Errorf("%w: a row of %s has %d columns, want %d", errProtocol, t.name, len(r), len(t.cols))
			}
		}
		if !t.offset {
			f.small[t.name] = append(f.small[t.name], pt.Rows.Rows...)
			return nil
		}
		return w.copyRows(ctx, t, f.job.id, pt.Rows.Rows)
	case pt.Lines != nil:
		return w.lines(ctx, f.job.id, pt.Lines)
	}
	return nil
}

// start begins a file's writes: a new file's row, or the team catalog's
// id of a pushed one (found by path among the machine's files: the parts
// never name another machine's), and a rewritten file's rows cleared.
func (w *fileWriter) start(ctx context.Context, j *job) error {
	switch {
	case j.act < actNone || j.act > actNew:
		return fmt.Errorf("%w: act %d", errProtocol, j.act)
	case j.act == actNone: // refreshed since the plan, back to what was pushed
		return nil
	case j.act == actNew:
		return w.insertFile(ctx, j)
	case j.pushed == nil:
		return fmt.Errorf("%w: a file pushed before without its pushed cursor", errProtocol)
	}
	err := w.tx.QueryRow(ctx, `SELECT id FROM files WHERE machine_id = $1 AND path = $2`, w.p.machine, pgText(j.local.Path)).Scan(&j.id)
	if errors.Is(err, pgx.ErrNoRows) {
		return errConflict
	}
	if err != nil {
		return fmt.Errorf("find file: %w", err)
	}
	if j.act == actRewrite {
		return w.clear(ctx, j.id)
	}
	return nil
}

// finish writes the small tables of the files that changed (under the
// calls lock), moves staged rows on, writes the cursors (checking each
// file's team row is the one the push planned from), derives the calls
// the usage rows touched and counts the text.
func (w *fileWriter) finish(ctx context.Context) error {
	locked := false
	var touched []string
	for i, f := range w.files {
		if f.job.act == actTouch || f.job.act == actNone {
			continue
		}
		if !locked {
			if err := w.p.lockCalls(ctx, w.tx); err != nil {
				return err
			}
			locked = true
		}
		t, err := w.small(ctx, &f.job, f.small)
		if err != nil {
			return &fileError{i, err}
		}
		touched = append(touched, t...)
	}
	if err := w.unstage(ctx); err != nil {
		return err
	}
	for i, f := range w.files {
		if err := w.cursor(ctx, &f.job, f.base); err != nil {
			return &fileError{i, err}
		}
	}
	slices.Sort(touched)
	if err := recomputeCalls(ctx, w.tx, slices.Compact(touched)); err != nil {
		return err
	}
	return w.p.account(ctx, w.tx, w.textRows, w.textTokens)
}

// insertFile adds a new file's row (its cursor is set by cursor, in the
// same transaction) and takes its id.
func (w *fileWriter) insertFile(ctx context.Context, j *job) error {
	err := w.tx.QueryRow(ctx, `INSERT INTO files (machine_id, path, root, kind) VALUES ($1, $2, $3, $4)
		ON CONFLICT (machine_id, path) DO NOTHING RETURNING id`, w.p.machine, pgText(j.local.Path), pgText(j.local.Root), j.local.Kind).Scan(&j.id)
	if errors.Is(err, pgx.ErrNoRows) {
		return errConflict
	}
	if err != nil {
		return fmt.Errorf("add file: %w", err)
	}
	return nil
}

// clear deletes a rewritten file's entries (their text and search rows
// cascade; edges are a view of them), lines and tool calls; the small
// tables go in small.
func (w *fileWriter) clear(ctx context.Context, id int64) error {
	var n, toks int64
	if err := w.tx.QueryRow(ctx, `SELECT count(*), COALESCE(sum(tokens), 0) FROM text_index WHERE machine_id = $1 AND file_id = $2 AND part = 0`, w.p.machine, id).
		Scan(&n, &toks); err != nil {
		return fmt.Errorf("clear file: %w", err)
	}
	w.textRows, w.textTokens = w.textRows-n, w.textTokens-toks
	for _, t := range []string{"entries", "line_chunks", "tool_calls"} {
		if _, err := w.tx.Exec(ctx, `DELETE FROM `+t+` WHERE machine_id = $1 AND file_id = $2`, w.p.machine, id); err != nil {
			return fmt.Errorf("clear file: %w", err)
		}
	}
	return nil
}

// small replaces a file's rows of the small tables (sessions, labels,
// usage, rollups, warnings, off_path): an append moves the leaf, and so
// the path flags, the entries off the path and the rollups, and another
// file's change moves the copy flags. It returns the entry ids of the
// usage rows it deleted and wrote.
func (w *fileWriter) small(ctx context.Context, j *job, rows map[string][][]any) ([]string, error) {
	var touched []string
	if err := collect(ctx, w.tx, &touched, `SELECT DISTINCT entry_id FROM usage WHERE machine_id = $1 AND file_id = $2`, w.p.machine, j.id); err != nil {
		return nil, fmt.Errorf("replace usage: %w", err)
	}
	for _, t := range smallTables {
		if _, err := w.tx.Exec(ctx, `DELETE FROM `+t.name+` WHERE machine_id = $1 AND file_id = $2`, w.p.machine, j.id); err != nil {
			return nil, fmt.Errorf("replace %s: %w", t.name, err)
		}
		if err := w.copyRows(ctx, t, j.id, rows[t.name]); err != nil {
			return nil, err
		}
	}
	for _, r := range rows["usage"] {
		if id, ok := r[usageEntryID].(string); ok {
			touched = append(touched, id)
		}
	}
	return touched, nil
}

// cursor writes the file's row as the local catalog has it (as it left
// the machine), its name base, checking that the team catalog's row is
// still the one the push planned from.
func (w *fileWriter) cursor(ctx context.Context, j *job, base string) error {
	if j.act == actNone {
		return nil
	}
	l := j.local
	args := []any{j.id, w.p.machine, pgText(l.Root), l.Kind, l.Size, l.MtimeNs, l.Offset, l.HeadHash, l.TailHash, l.OpenTail, l.Lines,
		l.Seq, l.Version, pgText(l.LastID), l.Warnings, l.Generation, l.DerivedSeq, pgText(base), w.p.catalogID, w.p.format}
	q := `UPDATE files SET root = $3, kind = $4, size = $5, mtime_ns = $6, "offset" = $7, head_hash = $8, tail_hash = $9,
		open_tail = $10, lines = $11, seq = $12, version = $13, last_id = $14, warnings = $15, text_offset = $7,
		generation = $16, derived_seq = $17, base = $18, catalog = $19, format = $20
		WHERE id = $1 AND machine_id = $2`
	if pf := j.pushed; pf != nil {
		q += ` AND "offset" = $21 AND generation = $22 AND derived_seq = $23 AND catalog = $24 AND format = $25`
		args = append(args, pf.Offset, pf.Generation, pf.DerivedSeq, pf.Catalog, pf.Format)
	}
	tag, err := w.tx.Exec(ctx, q, args...)
	if err != nil {
		return fmt.Errorf("write file cursor: %w", err)
	}
	if tag.RowsAffected() != 1 {
		return errConflict
	}
	return nil
}

// lines writes a part's lines in COPY's binary format: the raw lines in
// chunks (linechunks.go) and their text (raw bytes, no escaping), the
// search rows (binary tsvectors, which the server takes without parsing).
// The lines come in the file's order, as a chunk holds them (a part from
// another process is checked: a chunk is found by its first offset).
func (w *fileWriter) lines(ctx context.Context, id int64, rows []lineRow) error {
	if !ascending(rows) {
		return fmt.Errorf("%w: lines out of the file's order", errProtocol)
	}
	var lines, texts [][]any
	var index copyBinary
	for _, c := range cutChunks(rows) {
		lines = append(lines, []any{id, c.offsets[0], w.p.machine, c.offsets, c.ends, c.raw})
	}
	for _, l := range rows {
		if l.Text == "" {
			continue
		}
		if len(l.Index) == 0 {
			return fmt.Errorf("%w: a text without search rows", errProtocol)
		}
		texts = append(texts, []any{id, l.Offset, w.p.machine, pgText(l.Text)})
		for part, r := range l.Index {
			index.indexRow(id, l.Offset, part, w.p.machine, r)
		}
		w.textRows++
		w.textTokens += int64(l.Index[0].Tokens)
	}
	if err := w.sendBinary(ctx, "line_chunks", lineChunksTable.names(), lines); err != nil {
		return fmt.Errorf("send lines: %w", err)
	}
	if len(texts) > 0 {
		if err := w.sendBinary(ctx, "entry_text", entryTextTable.names(), texts); err != nil {
			return fmt.Errorf("send text: %w", err)
		}
	}
	if index.rows > 0 {
		if err := w.sendCopyBinary(ctx, "text_index", textIndexTable.names(), index.end()); err != nil {
			return fmt.Errorf("send search rows: %w", err)
		}
	}
	return nil
}

// pgText is a string PostgreSQL's text can hold: valid UTF-8 without NUL
// (SQLite holds both; a line's JSON can carry \u0000), each bad byte and
// NUL written U+FFFD.
func pgText(s string) string {
	if utf8.ValidString(s) && !strings.ContainsRune(s, 0) {
		return s
	}
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "\uFFFD")
}

// copyRows sends rows of a table (read by readRows, as outRows let them out)
// with COPY, for the team's file id and the machine.
func (w *fileWriter) copyRows(ctx context.Context, t table, id int64, rows [][]any) error {
	if len(rows) == 0 {
		return nil
	}
	var c copyText
	vals := make([]any, len(t.cols))
	for _, r := range rows {
		for i, col := range t.cols {
			switch col.kind {
			case colFile:
				vals[i] = id
			case colMachine:
				vals[i] = w.p.machine
			case colBool:
				vals[i] = truth(r[i])
			case colNumeric:
				vals[i] = numeric{r[i]}
			default:
				vals[i] = r[i]
			}
		}
		c.row(vals...)
	}
	if err := w.sendText(ctx, t.name, t.names(), &c.b); err != nil {
		return fmt.Errorf("send %s: %w", t.name, err)
	}
	return nil
}

// truth is a SQLite flag (0/1, or NULL) as a boolean.
func truth(v any) any {
	switch x := v.(type) {
	case nil:
		return nil
	case int64:
		return x != 0
	case float64:
		return x != 0
	}
	return v
}

// readRows reads a file's rows of a table from the local catalog (from
// offset from on when from ≥ 0 and the table has offsets), its columns in
// the table's order (file and machine as placeholders).
func readRows(ctx context.Context, conn *sqlx.Conn, t table, fileID, from int64) ([][]any, error) {
	var sel []string
	for _, c := range t.cols {
		switch c.kind {
		case colFile, colMachine:
			sel = append(sel, "NULL")
		default:
			sel = append(sel, c.name)
		}
	}
	q := `SELECT ` + strings.Join(sel, ", ") + ` FROM ` + t.name + ` WHERE file_id = ?`
	args := []any{fileID}
	if from >= 0 && t.offset {
		q += ` AND offset >= ?`
		args = append(args, from)
	}
	rows, err := conn.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("read local %s: %w", t.name, err)
	}
	defer rows.Close()
	var out [][]any
	for rows.Next() {
		vals := make([]any, len(t.cols))
		ptrs := make([]any, len(vals))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, fmt.Errorf("read local %s: %w", t.name, err)
		}
		for i, v := range vals {
			if s, ok := v.(string); ok {
				vals[i] = pgText(s)
			}
		}
		out = append(out, vals)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read local %s: %w", t.name, err)
	}
	return out, nil
}

// copyText writes rows in COPY's text format.
type copyText struct{ b bytes.Buffer }

// numeric is a value sent as the exact decimal of its double.
type numeric struct{ v any }

func (c *copyText) row(vals ...any) {
	for i, v := range vals {
		if i > 0 {
			c.b.WriteByte('\t')
		}
		c.field(v)
	}
	c.b.WriteByte('\n')
}

func (c *copyText) field(v any) {
	switch x := v.(type) {
	case nil:
		c.b.WriteString(`\N`)
	case string:
		c.text(x)
	case []byte:
		c.b.WriteString(`\\x`)
		var h [512]byte
		for len(x) > 0 {
			n := min(len(x), len(h)/2)
			hex.Encode(h[:2*n], x[:n])
			c.b.Write(h[:2*n])
			x = x[n:]
		}
	case bool:
		if x {
			c.b.WriteByte('t')
		} else {
			c.b.WriteByte('f')
		}
	case int64:
		c.b.WriteString(strconv.FormatInt(x, 10))
	case float64:
		c.b.WriteString(floatText(x))
	case numeric:
		switch n := x.v.(type) {
		case nil:
			c.b.WriteString(`\N`)
		case int64:
			c.b.WriteString(strconv.FormatInt(n, 10))
		case float64:
			c.b.WriteString(decimal(n))
		default:
			c.text(fmt.Sprint(n))
		}
	default:
		c.text(fmt.Sprint(x))
	}
}

func (c *copyText) text(s string) {
	for i := 0; i < len(s); i++ {
		switch ch := s[i]; ch {
		case '\\':
			c.b.WriteString(`\\`)
		case '\n':
			c.b.WriteString(`\n`)
		case '\r':
			c.b.WriteString(`\r`)
		case '\t':
			c.b.WriteString(`\t`)
		default:
			c.b.WriteByte(ch)
		}
	}
}
