package postgres

// A push's writes, file by file: a file's rows read from the local
// catalog, its lines from the session file, all sent with COPY (through
// staging tables for a role held by row-level security: stage.go).

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jmoiron/sqlx"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/fts"
	"github.com/pidex-dev/pidex/internal/pgsearch"
	"github.com/pidex-dev/pidex/pi"
	"github.com/pidex-dev/pidex/schema"
)

// localRows are a file's rows of the small tables, read with its big
// ones in one read transaction of the local catalog.
type localRows struct {
	tables map[string][][]any
}

// fileWriter writes a transaction's files.
type fileWriter struct {
	p                    *pusher
	tx                   pgx.Tx
	st                   *PushStats
	textRows, textTokens int64
}

// big writes a file's new entries with their lines, text and search
// rows, edges and tool calls (all of them for a new or rewritten file),
// and reads its small tables' rows for small, all in one read of the
// local catalog.
func (w *fileWriter) big(ctx context.Context, j *job) (*localRows, error) {
	conn, err := w.p.local.Connx(ctx)
	if err != nil {
		return nil, fmt.Errorf("read local catalog: %w", err)
	}
	defer conn.Close()
	// One snapshot of the local catalog for the file: a refresh running
	// beside the push commits before or after it, never in its middle.
	if _, err := conn.ExecContext(ctx, "BEGIN"); err != nil {
		return nil, fmt.Errorf("read local catalog: %w", err)
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
	var l localFile
	if err := conn.GetContext(ctx, &l, localFileSQL+` WHERE f.id = ?`, j.local.ID); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, errChanged // removed since the plan: the next push removes it
		}
		return nil, fmt.Errorf("read local catalog: %w", err)
	}
	if l.Offset != j.local.Offset || l.Generation != j.local.Generation || l.DerivedSeq != j.local.DerivedSeq {
		// Refreshed since the plan: plan the file again from this snapshot.
		j.act = decide(l, j.pushed, w.p.catalogID, w.p.format)
	}
	j.local = l
	if j.act == actTouch || j.act == actNone {
		return nil, nil
	}
	from := int64(0)
	switch j.act {
	case actNew:
		if err := w.insertFile(ctx, j); err != nil {
			return nil, err
		}
	case actRewrite:
		if err := w.clear(ctx, j.id); err != nil {
			return nil, err
		}
	case actAppend:
		from = j.pushed.Offset
	}
	if j.act != actRederive {
		if err := w.entries(ctx, conn, j, from); err != nil {
			return nil, err
		}
	}
	rows := &localRows{tables: map[string][][]any{}}
	for _, t := range smallTables {
		r, err := readRows(ctx, conn, t, l.ID, -1)
		if err != nil {
			return nil, err
		}
		rows.tables[t.name] = r
	}
	return rows, nil
}

// insertFile adds a new file's row (its cursor is set by cursor, in the
// same transaction) and takes its id.
func (w *fileWriter) insertFile(ctx context.Context, j *job) error {
	err := w.tx.QueryRow(ctx, `INSERT INTO files (machine_id, path, root, kind) VALUES ($1, $2, $3, $4)
		ON CONFLICT (machine_id, path) DO NOTHING RETURNING id`, w.p.machine, w.text(j, j.local.Path), j.out.path(j.local.Root), j.local.Kind).Scan(&j.id)
	if errors.Is(err, pgx.ErrNoRows) {
		return errConflict
	}
	if err != nil {
		return fmt.Errorf("add file: %w", err)
	}
	return nil
}

// clear deletes a rewritten file's entries (their lines, text and search
// rows cascade), edges and tool calls; the small tables go in small.
func (w *fileWriter) clear(ctx context.Context, id int64) error {
	var n, toks int64
	if err := w.tx.QueryRow(ctx, `SELECT count(*), COALESCE(sum(tokens), 0) FROM text_index WHERE file_id = $1 AND part = 0`, id).
		Scan(&n, &toks); err != nil {
		return fmt.Errorf("clear file: %w", err)
	}
	w.textRows, w.textTokens = w.textRows-n, w.textTokens-toks
	for _, t := range []string{"entries", "edges", "tool_calls"} {
		if _, err := w.tx.Exec(ctx, `DELETE FROM `+t+` WHERE file_id = $1`, id); err != nil {
			return fmt.Errorf("clear file: %w", err)
		}
	}
	return nil
}

// small replaces a file's rows of the small tables (sessions, labels,
// usage, rollups, warnings): an append moves the leaf, and so the path
// flags and rollups, and another file's change moves the copy flags. It
// returns the entry ids of the usage rows it deleted and wrote.
func (w *fileWriter) small(ctx context.Context, j *job, rows *localRows) ([]string, error) {
	var touched []string
	if err := collect(ctx, w.tx, &touched, `SELECT DISTINCT entry_id FROM usage WHERE file_id = $1`, j.id); err != nil {
		return nil, fmt.Errorf("replace usage: %w", err)
	}
	for _, t := range smallTables {
		if _, err := w.tx.Exec(ctx, `DELETE FROM `+t.name+` WHERE file_id = $1`, j.id); err != nil {
			return nil, fmt.Errorf("replace %s: %w", t.name, err)
		}
		if err := w.copyRows(ctx, t, j, rows.tables[t.name]); err != nil {
			return nil, err
		}
	}
	for _, r := range rows.tables["usage"] {
		if id, ok := r[usageEntryID].(string); ok {
			touched = append(touched, id)
		}
	}
	return touched, nil
}

// cursor writes the file's row as the local catalog has it, checking that
// the team catalog's row is still the one the push planned from.
func (w *fileWriter) cursor(ctx context.Context, j *job) error {
	if j.act == actNone {
		return nil
	}
	l := j.local
	// The root written by insertFile is written again here, and counted
	// here.
	args := []any{j.id, w.p.machine, w.text(j, l.Root), l.Kind, l.Size, l.MtimeNs, l.Offset, l.HeadHash, l.TailHash, l.OpenTail, l.Lines,
		l.Seq, l.Version, w.text(j, l.LastID), l.Warnings, l.Generation, l.DerivedSeq, j.out.base(l.Path, &w.st.Redacted), w.p.catalogID, w.p.format}
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

// entries sends a file's entries from offset from on, with everything
// keyed by them: entry rows, edges (a later duplicate id wins, so an
// appended one replaces the pushed one), tool calls, and, a chunk of
// lines at a time read from the session file, the raw lines, their text
// and their search rows.
func (w *fileWriter) entries(ctx context.Context, conn *sqlx.Conn, j *job, from int64) error {
	ents, err := readRows(ctx, conn, entriesTable, j.local.ID, from)
	if err != nil {
		return err
	}
	if err := w.copyRows(ctx, entriesTable, j, ents); err != nil {
		return err
	}
	edges, err := readRows(ctx, conn, edgesTable, j.local.ID, from)
	if err != nil {
		return err
	}
	if from > 0 && len(edges) > 0 {
		ids := make([]string, len(edges))
		for i, e := range edges {
			ids[i], _ = e[1].(string)
		}
		if _, err := w.tx.Exec(ctx, `DELETE FROM edges WHERE file_id = $1 AND child_id = ANY($2)`, j.id, ids); err != nil {
			return fmt.Errorf("replace edges: %w", err)
		}
	}
	if err := w.copyRows(ctx, edgesTable, j, edges); err != nil {
		return err
	}
	calls, err := readRows(ctx, conn, toolCallsTable, j.local.ID, from)
	if err != nil {
		return err
	}
	if err := w.copyRows(ctx, toolCallsTable, j, calls); err != nil {
		return err
	}
	return w.lines(ctx, j, ents)
}

// lineChunk is how many bytes of lines go in one round of COPYs.
const lineChunk = 8 << 20

// lines reads the entries' lines from the session file, in chunks, and
// sends each chunk's raw lines (redacted with --redact), text and search
// rows.
func (w *fileWriter) lines(ctx context.Context, j *job, ents [][]any) error {
	if len(ents) == 0 {
		return nil
	}
	f, err := os.Open(j.local.Path)
	if err != nil {
		return fmt.Errorf("%w (%v)", errChanged, err)
	}
	defer f.Close()
	// The lines and their text in COPY's binary format (raw bytes, no
	// escaping); the search rows in its text format (tsvector literals).
	var lines, texts [][]any
	var index copyText
	pending := 0
	flush := func() error {
		if len(lines) > 0 {
			if err := w.sendBinary(ctx, "entry_lines", entryLinesTable.names(), lines); err != nil {
				return fmt.Errorf("send lines: %w", err)
			}
		}
		if len(texts) > 0 {
			if err := w.sendBinary(ctx, "entry_text", entryTextTable.names(), texts); err != nil {
				return fmt.Errorf("send text: %w", err)
			}
		}
		if index.b.Len() > 0 {
			if err := w.sendText(ctx, "text_index", textIndexTable.names(), &index.b); err != nil {
				return fmt.Errorf("send search rows: %w", err)
			}
		}
		lines, texts, pending = lines[:0], texts[:0], 0
		index.b.Reset()
		return nil
	}
	for _, e := range ents {
		off, _ := e[entOffset].(int64)
		length, _ := e[entLength].(int64)
		raw := make([]byte, length) // held until the chunk is sent
		if _, err := f.ReadAt(raw, off); err != nil {
			return fmt.Errorf("%w (%v)", errChanged, err)
		}
		l, _ := schema.DecodeLineFast(raw)
		if l == nil {
			return errChanged // the bytes there are not the entry's line any more
		}
		if before := w.st.Redacted; w.p.o.Redact {
			raw = j.out.line(raw, &w.st.Redacted)
			if w.st.Redacted != before {
				if l, _ = schema.DecodeLineFast(raw); l == nil {
					return fmt.Errorf("redact line at offset %d: the result is not JSON", off)
				}
			}
		}
		lines = append(lines, []any{j.id, off, w.p.machine, raw})
		pending += len(raw)
		w.st.Entries++
		w.st.Bytes += length
		// The text the local text pass indexes (omp's lines also name the
		// artifacts they point to).
		if t := pi.SearchText(j.local.Path, l, j.local.Source != nil && *j.local.Source == pidex.SourceOmp); t != "" {
			t = pgText(t)
			texts = append(texts, []any{j.id, off, w.p.machine, t})
			pending += len(t)
			toks := fts.Tokens(t)
			rows := pgsearch.ToRows(toks)
			win := len(rows) > 1 || !rows[0].Exact
			for part, r := range rows {
				n := 0
				if part == 0 {
					n = len(toks)
				}
				index.row(j.id, off, part, w.p.machine, win, r.Exact, n, r.First, r.TSV)
			}
			w.textRows++
			w.textTokens += int64(len(toks))
		}
		if pending+index.b.Len() >= 2*lineChunk {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	return flush()
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

// text is a value of the job's file as it leaves (outbound), counted.
func (w *fileWriter) text(j *job, s string) string { return j.out.text(s, &w.st.Redacted) }

// copyRows sends rows of a table (read by readRows) with COPY, for the
// team's file id and the machine; every string goes through w.text.
func (w *fileWriter) copyRows(ctx context.Context, t table, j *job, rows [][]any) error {
	id := j.id
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
				if s, ok := r[i].(string); ok {
					vals[i] = w.text(j, s)
				}
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
	case int:
		c.b.WriteString(itoa(x))
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
