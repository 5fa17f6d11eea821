package postgres

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/readside"
	"github.com/pidex-dev/pidex/pi"
)

// Reader answers the engine's reads from the team catalog
// (engine.Backend), every machine's sessions side by side: the same SQL as
// the local catalog's where the two schemas agree, what is not SQL from
// package readside, and entry lines from entry_lines (the session files
// are on the machines). Its methods are safe for concurrent use.
type Reader struct{ s *Store }

// Reader returns the store's reader.
func (s *Store) Reader() *Reader { return &Reader{s: s} }

// Machines reports true: a team catalog holds machines' files.
func (r *Reader) Machines() bool { return true }

// refColumns are a SessionRef's columns.
const refColumns = `s.file_id, f.path, s.session_id, COALESCE(s.name, '') AS name, m.name AS machine
	FROM sessions s JOIN files f ON f.id = s.file_id JOIN machines m ON m.id = f.machine_id`

// candidates is how many sessions an ambiguity error lists.
const candidates = 20

// Resolve finds one session as the local catalog does (a path, a full id,
// a unique id prefix, a unique name), among machine's sessions ("": every
// machine's). A path is a machine's own path: the same file on two
// laptops is two sessions, which --machine tells apart.
func (r *Reader) Resolve(ctx context.Context, ref, machine string) (pidex.SessionRef, error) {
	if strings.TrimSpace(ref) == "" {
		return pidex.SessionRef{}, pidex.Usagef("no session given (an id, a unique prefix of one, a name or a file path)")
	}
	if looksLikePath(ref) {
		if abs, err := filepath.Abs(ref); err == nil {
			if got, err := r.pick(ctx, ref, machine, "f.path = ?", abs); err != pidex.ErrNotFound {
				return got, err
			}
		}
		if got, err := r.pick(ctx, ref, machine, "f.path = ?", ref); err != pidex.ErrNotFound {
			return got, err // another machine's path, as that machine wrote it
		}
	}
	for _, where := range []string{"s.session_id = ?", "starts_with(s.session_id, ?)", "s.name = ?"} {
		got, err := r.pick(ctx, ref, machine, where, ref)
		if err != pidex.ErrNotFound {
			return got, err
		}
	}
	return pidex.SessionRef{}, fmt.Errorf("session %q: %w", ref, pidex.ErrNotFound)
}

func looksLikePath(ref string) bool {
	if strings.ContainsAny(ref, `/\`) || strings.HasSuffix(ref, ".jsonl") {
		return true
	}
	_, err := os.Stat(ref)
	return err == nil
}

// pick returns the single match, pidex.ErrNotFound for none (unwrapped,
// so the caller can try the next rule), or an ambiguity error.
func (r *Reader) pick(ctx context.Context, ref, machine, where string, args ...any) (pidex.SessionRef, error) {
	if machine != "" {
		where += " AND m.name = ?"
		args = append(args, machine)
	}
	var refs []pidex.SessionRef
	q := r.s.db.Rebind("SELECT " + refColumns + " WHERE " + where + " ORDER BY f.path, m.name LIMIT " + itoa(candidates+1))
	if err := r.s.db.SelectContext(ctx, &refs, q, args...); err != nil {
		return pidex.SessionRef{}, fmt.Errorf("resolve session %q: %w", ref, err)
	}
	switch len(refs) {
	case 0:
		return pidex.SessionRef{}, pidex.ErrNotFound
	case 1:
		return refs[0], nil
	}
	n := len(refs)
	if n > candidates {
		q := r.s.db.Rebind("SELECT count(*) FROM sessions s JOIN files f ON f.id = s.file_id JOIN machines m ON m.id = f.machine_id WHERE " + where)
		if err := r.s.db.GetContext(ctx, &n, q, args...); err != nil {
			return pidex.SessionRef{}, fmt.Errorf("resolve session %q: %w", ref, err)
		}
		refs = refs[:candidates]
	}
	return pidex.SessionRef{}, &pidex.AmbiguousError{Ref: ref, Matches: n, Candidates: refs}
}

// modifiedSQL is pi's `modified` (query's, the same expression).
const modifiedSQL = `CASE WHEN s.last_activity_ms > 0 THEN s.last_activity_ms
	WHEN s.created_ms IS NOT NULL THEN s.created_ms ELSE f.mtime_ns / 1000000 END`

const infoSQL = `SELECT s.file_id, f.path, s.session_id, s.cwd, s.name, s.parent_session, s.created_ms,
	` + modifiedSQL + ` AS modified, s.message_count, COALESCE(s.first_message, '') AS first_message,
	s.entry_count, s.leaf_id, s.branch_points, s.models, s.input, s.output, s.cache_read, s.cache_write,
	s.total_tokens, s.cost, f.size, s.source, m.name
	FROM sessions s JOIN files f ON f.id = s.file_id JOIN machines m ON m.id = f.machine_id`

// contains is SQLite's instr(lower(col), lower(?)) > 0: lower() of a
// COLLATE "C" value folds ASCII only, as SQLite's does.
func contains(col string) string {
	return "strpos(lower(" + col + "), lower(?::text COLLATE \"C\")) > 0"
}

func (r *Reader) listWhere(f pidex.ListFilter) (string, []any) {
	// omp's subagent transcripts are not listed (as locally).
	where := []string{"NOT s.subagent"}
	var args []any
	add := func(c string, a ...any) { where, args = append(where, c), append(args, a...) }
	if f.Cwd != "" {
		add("s.cwd = ?", f.Cwd)
	}
	if f.Project != "" {
		add(contains("s.cwd"), f.Project)
	}
	if f.Name != "" {
		add(contains("s.name"), f.Name)
	}
	if f.Machine != "" {
		add("m.name = ?", f.Machine)
	}
	if len(f.Agents) > 0 {
		add("s.source = ANY(?)", f.Agents)
	}
	if !f.Since.IsZero() {
		add(modifiedSQL+" >= ?", f.Since.UnixMilli())
	}
	if !f.Until.IsZero() {
		add(modifiedSQL+" < ?", f.Until.UnixMilli())
	}
	return " WHERE " + strings.Join(where, " AND "), args
}

// Count is the number of sessions matching f's filters.
func (r *Reader) Count(ctx context.Context, f pidex.ListFilter) (int, error) {
	where, args := r.listWhere(f)
	var n int
	q := r.s.db.Rebind("SELECT count(*) FROM sessions s JOIN files f ON f.id = s.file_id JOIN machines m ON m.id = f.machine_id" + where)
	if err := r.s.db.GetContext(ctx, &n, q, args...); err != nil {
		return 0, fmt.Errorf("count sessions: %w", err)
	}
	return n, nil
}

// orderSQL is readside's sort order in SQL, for a listing with a limit.
var orderSQL = map[string]string{
	pidex.SortModified: "modified DESC, f.path, m.name",
	pidex.SortCreated:  "s.created_ms IS NULL, s.created_ms DESC, f.path, m.name",
	pidex.SortCost:     "s.cost DESC, modified DESC, f.path, m.name",
	pidex.SortSize:     "f.size DESC, modified DESC, f.path, m.name",
}

// List returns the sessions matching f, newest first by default.
func (r *Reader) List(ctx context.Context, f pidex.ListFilter) ([]pidex.Session, error) {
	if _, err := readside.Less(f.Sort); err != nil {
		return nil, err
	}
	where, args := r.listWhere(f)
	q := infoSQL + where
	if f.Limit > 0 {
		q += " ORDER BY " + orderSQL[f.Sort] + fmt.Sprintf(" LIMIT %d OFFSET %d", f.Limit, max(0, f.Offset))
	}
	rows, err := r.s.db.QueryContext(ctx, r.s.db.Rebind(q), args...)
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	defer rows.Close()
	out := []pidex.Session{}
	for rows.Next() {
		var sr readside.SessionRow
		if err := sr.Scan(rows, true); err != nil {
			return nil, fmt.Errorf("list sessions: %w", err)
		}
		out = append(out, sr.Session())
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	return readside.Page(out, f, f.Limit > 0)
}

// Session returns the listing record of one session.
func (r *Reader) Session(ctx context.Context, fileID int64) (pidex.Session, error) {
	var sr readside.SessionRow
	if err := sr.Scan(r.s.db.QueryRowContext(ctx, infoSQL+" WHERE s.file_id = $1", fileID), true); err != nil {
		return pidex.Session{}, fmt.Errorf("load session: %w", err)
	}
	return sr.Session(), nil
}

// labels returns a session's current labels.
func (r *Reader) labels(ctx context.Context, fileID int64) ([]pidex.Label, error) {
	ls := []pidex.Label{}
	if err := r.s.db.SelectContext(ctx, &ls, `SELECT target_id, label, ts FROM labels WHERE file_id = $1 ORDER BY "offset"`, fileID); err != nil {
		return nil, fmt.Errorf("list labels: %w", err)
	}
	return ls, nil
}

// Tree returns a session's entry tree (readside.BuildTree).
func (r *Reader) Tree(ctx context.Context, fileID int64) ([]*pidex.TreeNode, error) {
	var rows []pidex.Entry
	err := r.s.db.SelectContext(ctx, &rows, `SELECT en.id, en.parent_id, en.type, COALESCE(en.role, '') AS role, en.ts,
		en.offset, en.length, en.line
		FROM edges e JOIN entries en ON en.file_id = e.file_id AND en.offset = e.offset
		WHERE e.file_id = $1 ORDER BY en.offset`, fileID)
	if err != nil {
		return nil, fmt.Errorf("load tree: %w", err)
	}
	labels, err := r.labels(ctx, fileID)
	if err != nil {
		return nil, err
	}
	var leaf *string
	if err := r.s.db.GetContext(ctx, &leaf, "SELECT leaf_id FROM sessions WHERE file_id = $1", fileID); err != nil {
		return nil, fmt.Errorf("load leaf: %w", err)
	}
	return readside.BuildTree(rows, labels, leaf), nil
}

// Entries returns every entry of a session in file order.
func (r *Reader) Entries(ctx context.Context, fileID int64) ([]pidex.Entry, error) {
	var es []pidex.Entry
	err := r.s.db.SelectContext(ctx, &es, `SELECT id, parent_id, type, COALESCE(role, '') AS role, ts, "offset", length, line
		FROM entries WHERE file_id = $1 ORDER BY "offset"`, fileID)
	if err != nil {
		return nil, fmt.Errorf("list entries: %w", err)
	}
	return es, nil
}

// pathSQL is query's walk of pi's id map from the leaf to the root.
const pathSQL = `
WITH RECURSIVE walk(id, depth) AS (
	SELECT $1::text, 0
	UNION ALL
	SELECT e.parent_id, w.depth + 1
	FROM walk w JOIN edges e ON e.file_id = $2 AND e.child_id = w.id
	WHERE e.parent_id IS NOT NULL AND w.depth < $3
)
SELECT en.id, en.parent_id, en.type, COALESCE(en.role, '') AS role, en.ts, en.offset, en.length, en.line
FROM walk w
JOIN edges e ON e.file_id = $2 AND e.child_id = w.id
JOIN entries en ON en.file_id = e.file_id AND en.offset = e.offset
ORDER BY w.depth`

// Path returns the entries from the root to the leaf of one session ("":
// pi's leaf, the last entry in file order).
func (r *Reader) Path(ctx context.Context, fileID int64, leafID string) ([]pidex.Entry, error) {
	var s struct {
		Leaf    *string `db:"leaf_id"`
		Entries int64   `db:"entry_count"`
	}
	if err := r.s.db.GetContext(ctx, &s, "SELECT leaf_id, entry_count FROM sessions WHERE file_id = $1", fileID); err != nil {
		return nil, fmt.Errorf("load session: %w", err)
	}
	if leafID == "" {
		if s.Leaf == nil {
			return []pidex.Entry{}, nil
		}
		leafID = *s.Leaf
	}
	var up []pidex.Entry
	if err := r.s.db.SelectContext(ctx, &up, pathSQL, leafID, fileID, s.Entries); err != nil {
		return nil, fmt.Errorf("walk path: %w", err)
	}
	if len(up) == 0 {
		return nil, fmt.Errorf("entry %q: %w", leafID, pidex.ErrNotFound)
	}
	return readside.Cut(up), nil
}

// Facts are what a context rebuild needs of a session besides its lines.
func (r *Reader) Facts(ctx context.Context, fileID int64) (readside.Facts, error) {
	var s struct {
		Version int    `db:"version"`
		Source  string `db:"source"` // oh-my-pi's sessions rebuild by its rules
	}
	if err := r.s.db.GetContext(ctx, &s, "SELECT version, source FROM sessions WHERE file_id = $1", fileID); err != nil {
		return readside.Facts{}, fmt.Errorf("load session: %w", err)
	}
	version := s.Version
	first := map[int64]string{}
	if version < 2 {
		rows, err := r.s.db.QueryContext(ctx, `SELECT "offset", first_kept FROM entries WHERE file_id = $1 AND first_kept IS NOT NULL`, fileID)
		if err != nil {
			return readside.Facts{}, fmt.Errorf("load compactions: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			var off int64
			var id string
			if err := rows.Scan(&off, &id); err != nil {
				return readside.Facts{}, fmt.Errorf("load compactions: %w", err)
			}
			first[off] = id
		}
		if err := rows.Err(); err != nil {
			return readside.Facts{}, fmt.Errorf("load compactions: %w", err)
		}
	}
	labels, err := r.labels(ctx, fileID)
	if err != nil {
		return readside.Facts{}, err
	}
	return readside.Facts{Version: version, Source: s.Source, FirstKept: first, Labels: labels}, nil
}

// chunk is how much of a long line one statement reads: a line to be cut
// is streamed (jsonl.Shrink) rather than held whole.
const chunk = 8 << 20

// Lines reads the given entries' lines from entry_lines (readside.Lines).
// A line longer than maxLine is read a chunk at a time into the cut, so
// that memory stays bounded as it does with a local file.
func (r *Reader) Lines(ctx context.Context, ref pidex.SessionRef, rows []pidex.Entry, maxLine int64, maxString int) ([]pi.Entry, error) {
	where := ref.Path
	if ref.Machine != "" {
		where = ref.Machine + ":" + ref.Path
	}
	var whole []int64
	for _, e := range rows {
		if !(maxLine > 0 && e.Length > maxLine) {
			whole = append(whole, e.Offset)
		}
	}
	raw := make(map[int64][]byte, len(whole))
	if len(whole) > 0 {
		q, err := r.s.db.QueryContext(ctx, `SELECT "offset", raw FROM entry_lines WHERE file_id = $1 AND "offset" = ANY($2)`, ref.FileID, whole)
		if err != nil {
			return nil, fmt.Errorf("read entry lines: %w", err)
		}
		for q.Next() {
			var off int64
			var b []byte
			if err := q.Scan(&off, &b); err != nil {
				q.Close()
				return nil, fmt.Errorf("read entry lines: %w", err)
			}
			raw[off] = b
		}
		q.Close()
		if err := q.Err(); err != nil {
			return nil, fmt.Errorf("read entry lines: %w", err)
		}
	}
	out := make([]pi.Entry, len(rows))
	for i, e := range rows {
		var err error
		if maxLine > 0 && e.Length > maxLine {
			out[i], err = readside.Decode(e, &lineReader{ctx: ctx, r: r, file: ref.FileID, off: e.Offset}, true, maxString, where)
		} else if b, ok := raw[e.Offset]; ok {
			out[i], err = readside.DecodeBytes(e, b, false, where)
		} else {
			err = fmt.Errorf("read %s line %d: not in the team catalog: %w", where, e.Line, pidex.ErrFileChanged)
		}
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// lineReader streams one entry's line out of entry_lines, a chunk per
// statement.
type lineReader struct {
	ctx  context.Context
	r    *Reader
	file int64
	off  int64
	pos  int64 // bytes of the line read so far
	buf  *bytes.Reader
	eof  bool
}

func (l *lineReader) Read(p []byte) (int, error) {
	for l.buf == nil || l.buf.Len() == 0 {
		if l.eof {
			return 0, io.EOF
		}
		var b []byte
		err := l.r.s.db.QueryRowContext(l.ctx, `SELECT substring(raw FROM $3 FOR $4) FROM entry_lines WHERE file_id = $1 AND "offset" = $2`,
			l.file, l.off, l.pos+1, chunk).Scan(&b)
		if err != nil {
			return 0, fmt.Errorf("read entry line: %w", err)
		}
		l.pos += int64(len(b))
		l.eof = len(b) < chunk
		l.buf = bytes.NewReader(b)
	}
	return l.buf.Read(p)
}

// Warnings lists every line the catalog skipped, by file and line.
func (r *Reader) Warnings(ctx context.Context) ([]pidex.Warning, error) {
	ws := []pidex.Warning{}
	err := r.s.db.SelectContext(ctx, &ws, `SELECT f.path, w.line, w.message, m.name AS machine
		FROM warnings w JOIN files f ON f.id = w.file_id JOIN machines m ON m.id = f.machine_id
		ORDER BY f.path, w.line, m.name, w.message`)
	if err != nil {
		return nil, fmt.Errorf("list warnings: %w", err)
	}
	return ws, nil
}

// TextCoverage: a push sends every entry's text with the entry, so the
// search index covers every byte pushed.
func (r *Reader) TextCoverage(ctx context.Context) (indexed, total int64, err error) {
	err = r.s.db.QueryRowContext(ctx, `SELECT COALESCE(sum(text_offset), 0), COALESCE(sum("offset"), 0) FROM files WHERE kind = 'session'`).
		Scan(&indexed, &total)
	if err != nil {
		return 0, 0, fmt.Errorf("text coverage: %w", err)
	}
	return indexed, total, nil
}
