package postgres

// A push's reads, file by file: a file's rows from the local catalog, its
// lines from the session file, as they leave the machine (through the
// file's outbound, pushredact.go: redacted with --redact), handed on as
// parts (wire.go) to the writer of the team catalog: fileWriter in this
// process for a direct push, a team server over HTTP for a push with a
// token (pushhttp.go). Both write the same parts the same way; neither
// ever sees a value before redaction, and the count of what was redacted
// is the reader's (the client's summary).

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"

	"github.com/jmoiron/sqlx"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/fts"
	"github.com/pidex-dev/pidex/internal/pgsearch"
	"github.com/pidex-dev/pidex/pi"
	"github.com/pidex-dev/pidex/schema"
)

// emitFunc takes the parts of a group's files, in order.
type emitFunc func(context.Context, *pushPart) error

// readGroup reads a group's files and hands on their parts; st counts
// what was read (entries, bytes, secrets redacted). A file that failed on
// its own account is named by a fileError; an error of emit (the writer)
// is returned as it is.
func (p *pusher) readGroup(ctx context.Context, group []job, st *PushStats, emit emitFunc) error {
	var sendErr error
	send := func(ctx context.Context, pt *pushPart) error {
		if err := emit(ctx, pt); err != nil {
			sendErr = err
			return err
		}
		return nil
	}
	for i := range group {
		if err := p.readFile(ctx, &group[i], st, send); err != nil {
			if sendErr != nil {
				return sendErr
			}
			return &fileError{i, err}
		}
	}
	return nil
}

// readFile reads a file's new entries with their lines, text and search
// rows and tool calls (all of them for a new or rewritten file),
// and its small tables' rows, all in one read of the local catalog, and
// hands them on after the file's head (its plan and cursor).
func (p *pusher) readFile(ctx context.Context, j *job, st *PushStats, emit emitFunc) error {
	conn, err := p.local.Connx(ctx)
	if err != nil {
		return fmt.Errorf("read local catalog: %w", err)
	}
	defer conn.Close()
	// One snapshot of the local catalog for the file: a refresh running
	// beside the push commits before or after it, never in its middle.
	if _, err := conn.ExecContext(ctx, "BEGIN"); err != nil {
		return fmt.Errorf("read local catalog: %w", err)
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
	var l localFile
	if err := conn.GetContext(ctx, &l, localFileSQL+` WHERE f.id = ?`, j.local.ID); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return errChanged // removed since the plan: the next push removes it
		}
		return fmt.Errorf("read local catalog: %w", err)
	}
	if l.Offset != j.local.Offset || l.Generation != j.local.Generation || l.DerivedSeq != j.local.DerivedSeq {
		// Refreshed since the plan: plan the file again from this snapshot.
		j.act = decide(l, j.pushed, p.catalogID, p.format)
	}
	j.local = l
	if err := emit(ctx, &pushPart{File: outHead(j, st)}); err != nil {
		return err
	}
	if j.act == actTouch || j.act == actNone {
		return nil
	}
	if j.act != actRederive {
		from := int64(0)
		if j.act == actAppend {
			from = j.pushed.Offset
		}
		if err := p.readEntries(ctx, conn, j, from, st, emit); err != nil {
			return err
		}
	}
	for _, t := range smallTables {
		r, err := readRows(ctx, conn, t, l.ID, -1)
		if err != nil {
			return err
		}
		if err := emit(ctx, &pushPart{Rows: &tableRows{Table: t.name, Rows: outRows(j, t, r, st)}}); err != nil {
			return err
		}
	}
	return nil
}

// outHead is the file's head as it leaves the machine: its path (the key
// the team catalog finds it by), root, name and last id through its
// outbound, and no working directory (the writer has no use for it). The
// count is of the markers written: the path is written when the file is
// added, the rest with its cursor.
func outHead(j *job, st *PushStats) *fileHead {
	l := j.local
	var none int64
	pathN, cursorN := &none, &none
	if j.act == actNew {
		pathN = &st.Redacted
	}
	if j.act != actNone {
		cursorN = &st.Redacted
	}
	base := j.out.base(l.Path, cursorN)
	l.Path = j.out.text(l.Path, pathN) // as out.path computes it
	l.Root = j.out.text(l.Root, cursorN)
	l.LastID = j.out.text(l.LastID, cursorN)
	l.Cwd = nil
	return &fileHead{Act: j.act, Local: l, Base: base, Pushed: j.pushed}
}

// readEntries reads a file's entries from offset from on, with everything
// keyed by them: entry rows, tool calls, and, a chunk of lines at
// a time read from the session file, the raw lines, their text and their
// search rows.
func (p *pusher) readEntries(ctx context.Context, conn *sqlx.Conn, j *job, from int64, st *PushStats, emit emitFunc) error {
	var ents [][]any
	for _, t := range []table{entriesTable, toolCallsTable} {
		r, err := readRows(ctx, conn, t, j.local.ID, from)
		if err != nil {
			return err
		}
		if t.name == entriesTable.name {
			ents = r
		}
		if len(r) == 0 {
			continue
		}
		if err := emit(ctx, &pushPart{Rows: &tableRows{Table: t.name, Rows: outRows(j, t, r, st)}}); err != nil {
			return err
		}
	}
	return p.readLines(ctx, j, ents, st, emit)
}

// lineChunk is how many bytes of lines go in one round of COPYs.
const lineChunk = 8 << 20

// readLines reads the entries' lines from the session file, in chunks,
// and hands on each chunk's raw lines (redacted with --redact), text and
// search rows.
func (p *pusher) readLines(ctx context.Context, j *job, ents [][]any, st *PushStats, emit emitFunc) error {
	if len(ents) == 0 {
		return nil
	}
	f, err := os.Open(j.local.Path)
	if err != nil {
		return fmt.Errorf("%w (%v)", errChanged, err)
	}
	defer f.Close()
	var chunk []lineRow
	pending := 0
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
		if before := st.Redacted; p.o.Redact {
			raw = j.out.line(raw, &st.Redacted)
			if st.Redacted != before {
				if l, _ = schema.DecodeLineFast(raw); l == nil {
					return fmt.Errorf("redact line at offset %d: the result is not JSON", off)
				}
			}
		}
		row := lineRow{Offset: off, Raw: raw}
		pending += len(raw)
		st.Entries++
		st.Bytes += length
		// The text the local text pass indexes (omp's lines also name the
		// artifacts they point to).
		omp := j.local.Source != nil && *j.local.Source == pidex.SourceOmp
		if t := pi.SearchText(j.local.Path, l, omp); t != "" {
			if omp {
				// omp's text adds that of the artifacts the line names,
				// read from their files: not redacted with the line.
				t = j.out.text(t, &st.Redacted)
			}
			row.Text = pgText(t)
			toks := fts.Tokens(row.Text)
			rows := pgsearch.ToRows(toks)
			win := len(rows) > 1 || !rows[0].Exact
			for part, r := range rows {
				n := 0
				if part == 0 {
					n = len(toks)
				}
				row.Index = append(row.Index, indexRow{Win: win, Exact: r.Exact, Tokens: n, First: r.First, Vec: r.Vec})
				pending += len(r.Vec)
			}
			pending += len(row.Text)
		}
		chunk = append(chunk, row)
		if pending >= 2*lineChunk {
			if err := emit(ctx, &pushPart{Lines: chunk}); err != nil {
				return err
			}
			chunk, pending = nil, 0
		}
	}
	if len(chunk) == 0 {
		return nil
	}
	return emit(ctx, &pushPart{Lines: chunk})
}

// outRows are a table's rows as they leave the machine: every string
// (but the placeholders, flags and sums) through the file's outbound,
// each replacement counted.
func outRows(j *job, t table, rows [][]any, st *PushStats) [][]any {
	if !j.out.redact {
		return rows // readRows made every string valid text
	}
	for i, c := range t.cols {
		if c.kind != colPlain {
			continue
		}
		for _, r := range rows {
			if s, ok := r[i].(string); ok {
				r[i] = j.out.text(s, &st.Redacted)
			}
		}
	}
	return rows
}
