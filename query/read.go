package query

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/view"
	"github.com/pidex-dev/pidex/pi"
)

// Reading a session's content: every read of it goes one way, the
// context rebuild (context.go), with options for the leaf, cut lines and
// a window of entries read whole; what is costly to rebuild is kept
// between calls (cache.go).

// Previews are the one-line summaries of a session's entries, by offset
// (pi.Preview). They are kept between calls: reading them decodes every
// line of the file, and a session file only grows, so a later call reads
// only the new entries.
func (rd *Reader) Previews(ctx context.Context, ref pidex.SessionRef) (map[int64]string, error) {
	rows, err := rd.entries(ctx, ref.FileID)
	if err != nil {
		return nil, err
	}
	return rd.previews.previews(ctx, rd.backend(), ref, rows)
}

// Context is the model context pi would rebuild at leaf ("" = pi's leaf),
// exactly: every line is read whole.
func (rd *Reader) Context(ctx context.Context, ref pidex.SessionRef, leaf string) (*pidex.Context, error) {
	sc, _, _, err := rd.context(ctx, ref, ContextSpec{Leaf: leaf})
	if err != nil {
		return nil, err
	}
	return &sc.Context, nil
}

// EntryObjects hands each entry of the path to leaf to each, in order,
// as pi holds it after loading, a JSON object with pidex's annotations
// (`pidex show --json`; see pi.PathItem). Every line is read whole, but a
// batch of lines at a time (entryBatch), so that a session of any size
// costs the memory of its rows and of its lines read cut: the annotations
// come first from a rebuild of the context with every line cut (as a
// window's reading does), then each entry is read whole and written with
// them.
func (rd *Reader) EntryObjects(ctx context.Context, ref pidex.SessionRef, leaf string, each func(json.RawMessage) error) error {
	src := rd.backend()
	rows, err := rd.path(ctx, ref.FileID, leaf)
	if err != nil {
		return entryNotFound(err, ref, leaf)
	}
	facts, err := rd.facts(ctx, ref)
	if err != nil {
		return err
	}
	none := func(int) bool { return false }
	cut, err := readEntries(ctx, src, ref, rows, none, skeletonsOf(rows, none, facts.Source), ContextSpec{Leaf: leaf})
	if err != nil {
		return err
	}
	sc, err := contextOf(cut, facts)
	if err != nil {
		return err
	}
	cut = nil
	for from := 0; from < len(rows); {
		to := entryBatchEnd(rows, from)
		es, err := readRows(ctx, src, ref, rows[from:to], 0, 0)
		if err != nil {
			return err
		}
		for k := range es {
			item, err := facts.pathItem(es[k])
			if err != nil {
				return err
			}
			item.Annotate(&sc.Path[from+k])
			b, err := item.MarshalJSON()
			if err != nil {
				return fmt.Errorf("write entry at line %d: %w", item.Entry.Line, err)
			}
			if err := each(b); err != nil {
				return err
			}
		}
		from = to
	}
	return nil
}

// entryBatch is how many bytes of lines EntryObjects reads at once: few
// reads of the file, and a bounded share of memory (one longer line is
// read alone).
const entryBatch = 4 << 20

// entryBatchEnd is the end of the batch of rows starting at from.
func entryBatchEnd(rows []pidex.Entry, from int) int {
	to, size := from+1, rows[from].Length
	for to < len(rows) && size+rows[to].Length <= entryBatch {
		size += rows[to].Length
		to++
	}
	return to
}

// Read is a session for reading (see pidex.Document): the entries of the
// branch to o.Leaf, or the messages of its model context, a window of
// them if o.Window says so.
func (rd *Reader) Read(ctx context.Context, ref pidex.SessionRef, o pidex.ReadOptions) (*pidex.Document, error) {
	spec := ContextSpec{Leaf: o.Leaf}
	if !o.Whole {
		spec.MaxLine, spec.MaxString = pidex.ReadCutLine, pidex.ReadCutString
	}
	if o.Context {
		spec.Messages = o.Window // only the entries of the messages shown are read whole
	} else {
		spec.Window = o.Window // only the entries shown are read whole
	}
	info, err := rd.Info(ctx, ref)
	if err != nil {
		return nil, err
	}
	sc, from, to, err := rd.contextOf(ctx, ref, info, spec)
	if err != nil {
		return nil, err
	}
	if o.Context {
		return view.ContextDocument(ref, info, sc, o.Window), nil
	}
	return view.BranchDocument(ref, info, sc, from, to), nil
}

// context rebuilds (or finds kept) the context of a branch.
func (rd *Reader) context(ctx context.Context, ref pidex.SessionRef, spec ContextSpec) (*pi.SessionContext, int, int, error) {
	info, err := rd.Info(ctx, ref)
	if err != nil {
		return nil, 0, 0, err
	}
	return rd.contextOf(ctx, ref, info, spec)
}

// contextOf is context for a session whose listing record (info: its
// size and entries key the cache) the caller has read already.
func (rd *Reader) contextOf(ctx context.Context, ref pidex.SessionRef, info pidex.Session, spec ContextSpec) (*pi.SessionContext, int, int, error) {
	key := contextKey{path: ref.Path, machine: ref.Machine, size: info.SizeBytes, entries: info.EntryCount, spec: spec}
	sc, from, to, err := rd.contexts.get(key, func() (*pi.SessionContext, int, int, error) {
		return rd.rebuild(ctx, ref, spec)
	})
	return sc, from, to, entryNotFound(err, ref, spec.Leaf)
}

// entryNotFound words a read's unknown leaf as the domain's error.
func entryNotFound(err error, ref pidex.SessionRef, leaf string) error {
	var nf *pidex.NotFoundError
	if leaf != "" && errors.Is(err, pidex.ErrNotFound) && !errors.As(err, &nf) {
		return &pidex.NotFoundError{Entry: leaf, Session: ref.SessionID}
	}
	return err
}

// Warnings lists every line the catalog skipped under the reader's roots,
// by file and line.
func (rd *Reader) Warnings(ctx context.Context) ([]pidex.Warning, error) {
	b := rd.backend()
	d, db := b.Dialect(), b.Rows()
	scope, args := inRoots(rd.roots()).SQL(d)
	if scope != "" {
		scope = " WHERE " + scope
	}
	ws := []pidex.Warning{}
	err := db.SelectContext(ctx, &ws, db.Rebind(`SELECT f.path, w.line, w.message, `+d.machineCol()+` AS machine
		FROM warnings w JOIN files f ON f.id = w.file_id`+d.sameMachine("f", "w")+d.machineJoin()+scope+` ORDER BY f.path, w.line, machine, w.message`), args...)
	if err != nil {
		return nil, fmt.Errorf("list warnings: %w", err)
	}
	return ws, nil
}

// TextCoverage says how much of the sessions' bytes have their text in
// the search index (a local catalog's text pass runs behind the
// metadata), and 0 of 0 when no file's text is behind: that is one page
// of an index (files_text_behind, migration 00013 of the local catalog),
// where the sums read the whole files table.
func (rd *Reader) TextCoverage(ctx context.Context) (indexed, total int64, err error) {
	db := rd.backend().Rows()
	scope, args := inRoots(rd.roots()).SQL(rd.backend().Dialect())
	if scope != "" {
		scope = " AND " + scope
	}
	var behind bool
	q := `SELECT EXISTS (SELECT 1 FROM files f WHERE f.kind = 'session' AND f.text_offset < f."offset"` + scope + `)`
	if err := db.QueryRowContext(ctx, db.Rebind(q), args...).Scan(&behind); err != nil {
		return 0, 0, fmt.Errorf("text coverage: %w", err)
	}
	if !behind {
		return 0, 0, nil
	}
	q = `SELECT COALESCE(sum(f.text_offset), 0), COALESCE(sum(f."offset"), 0) FROM files f WHERE f.kind = 'session'` + scope
	if err := db.QueryRowContext(ctx, db.Rebind(q), args...).Scan(&indexed, &total); err != nil {
		return 0, 0, fmt.Errorf("text coverage: %w", err)
	}
	return indexed, total, nil
}

// SQL runs one read-only statement on the catalog's views, on a
// connection of its own that cannot change anything, and returns its rows
// (at most o.MaxRows).
func (rd *Reader) SQL(ctx context.Context, o pidex.SQLOptions) (*pidex.Rows, error) {
	c := &pidex.RowCollector{Max: o.MaxRows}
	if err := rd.SQLStream(ctx, o, c); err != nil {
		return nil, err
	}
	return &c.Rows, nil
}

// SQLStream runs one read-only statement as SQL does, handing each row to
// sink as it is read (o.MaxRows does not apply: sink stops when it wants),
// so that a result of any size costs the memory of a row. The views show
// the sessions under the reader's roots, as every other read does: a
// catalog also holds what other runs read (another --sessions folder).
func (rd *Reader) SQLStream(ctx context.Context, o pidex.SQLOptions, sink pidex.RowSink) error {
	if err := o.Check(); err != nil {
		return err
	}
	return rd.backend().SQL(ctx, o, rd.roots(), sink)
}

// StreamRows hands rows to sink as they are read, each value as value
// makes it (a catalog's own types as the views give them), until there
// are none or sink says stop. An error of the sink (writing the output) is
// returned as it is; the statement's go through fail.
func StreamRows(rows *sql.Rows, sink pidex.RowSink, value func(any) any, fail func(error) error) error {
	cols, err := rows.Columns()
	if err != nil {
		return fail(err)
	}
	if err := sink.Columns(cols); err != nil {
		return err
	}
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return fail(err)
		}
		for i, v := range vals {
			vals[i] = value(v)
		}
		more, err := sink.Row(vals)
		if err != nil {
			return err
		}
		if !more {
			return nil
		}
	}
	if err := rows.Err(); err != nil {
		return fail(err)
	}
	return nil
}
