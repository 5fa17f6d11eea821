package query

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/jmoiron/sqlx"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/fts"
	"github.com/pidex-dev/pidex/pi"
	"github.com/pidex-dev/pidex/schema"
)

// searchFrom is the matching entries with their session, filtered.
func (rd *Reader) searchFrom(q fts.Node, f pidex.SearchFilter) (string, []any) {
	var where []string
	args := []any{q.Match()}
	add := func(cond string, a ...any) {
		where = append(where, cond)
		args = append(args, a...)
	}
	if len(rd.roots) > 0 {
		cond, a := inRoots("fl", rd.roots)
		add(cond, a...)
	}
	if f.Project != "" {
		add("instr(lower(s.cwd), lower(?)) > 0", f.Project)
	}
	if f.Cwd != "" {
		add("s.cwd = ?", f.Cwd)
	}
	if len(f.Agents) > 0 {
		add("s.source IN (?"+strings.Repeat(",?", len(f.Agents)-1)+")", anys(f.Agents)...)
	}
	if f.FileID != 0 {
		add("e.file_id = ?", f.FileID)
	}
	if f.Role != "" {
		cond, a := pi.GroupSQL(f.Role, "e")
		add(cond, a...)
	}
	if f.Model != "" {
		add("instr(lower(e.model), lower(?)) > 0", f.Model)
	}
	if !f.Since.IsZero() {
		add("e.ts_ms >= ?", f.Since.UnixMilli())
	}
	if !f.Until.IsZero() {
		add("e.ts_ms < ?", f.Until.UnixMilli())
	}
	from := `m
		JOIN entries e ON e.file_id = (m.r >> 40) AND e.offset = (m.r & 1099511627775)
		JOIN sessions s ON s.file_id = e.file_id
		JOIN files fl ON fl.id = e.file_id`
	if f.Active {
		from += ` JOIN active_offsets a ON a.file_id = e.file_id AND a.offset = e.offset`
	}
	if len(where) > 0 {
		from += " WHERE " + strings.Join(where, " AND ")
	}
	return from, args
}

// matchCTE evaluates the query once, with bm25 (FTS5's auxiliary
// functions only work in the statement that scans the index, so the
// matches are materialised before any join or grouping).
const matchCTE = `WITH RECURSIVE m(r, score) AS MATERIALIZED (
		SELECT rowid, bm25(text_index) FROM text_index WHERE text_index MATCH ?)`

// newestCTE ranks only the newest matches (see RankCap).
var newestCTE = `WITH RECURSIVE m(r, score) AS MATERIALIZED (
		SELECT rowid, bm25(text_index) FROM text_index WHERE text_index MATCH ? ORDER BY rowid DESC LIMIT ` + strconv.Itoa(RankCap) + `)`

// RankCap bounds the matches a plain search ranks. bm25 costs about 3 µs
// a match (it reads each entry's length), so ranking every entry with a
// common word (208,000 with "the" in 1.7 GB of sessions) took 0.7 s; the
// newest 5,000 take 40 ms (10,000 took 100 ms, mostly bm25).
// Without filters, a search ranks the matches in the RankCap most
// recently started sessions' entries (text rowids grow with session start
// time: indexer.reserveIDs); a filter, --sessions-only or a term rarer
// than that ranks every match.
const RankCap = 5000

// activeCTE lists, per session with a hit, the offsets of the entries on
// its current root-to-leaf path (pi's branch; depth-bounded like Path).
const activeCTE = `,
	walk(file_id, id, depth) AS (
		SELECT s.file_id, s.leaf_id, 0 FROM sessions s
		WHERE s.file_id IN (SELECT DISTINCT r >> 40 FROM m) AND s.leaf_id IS NOT NULL
		UNION ALL
		SELECT w.file_id, ed.parent_id, w.depth + 1 FROM walk w
		JOIN edges ed ON ed.file_id = w.file_id AND ed.child_id = w.id
		WHERE ed.parent_id IS NOT NULL AND w.depth < 1000000),
	active_offsets(file_id, offset) AS (
		SELECT ed.file_id, ed.offset FROM walk w JOIN edges ed ON ed.file_id = w.file_id AND ed.child_id = w.id)
`

// with is the WITH clause a search statement starts with.
func with(f pidex.SearchFilter, capped bool) string {
	switch {
	case f.Active:
		return matchCTE + activeCTE
	case capped:
		return newestCTE + "\n"
	}
	return matchCTE + "\n"
}

// unfiltered reports whether f narrows nothing but the roots.
func unfiltered(f pidex.SearchFilter) bool {
	return f.Project == "" && f.Cwd == "" && len(f.Agents) == 0 && f.FileID == 0 && f.Role == "" && f.Model == "" && f.Since.IsZero() && f.Until.IsZero() && !f.Active
}

// Search returns the entries matching q and f, best first (or newest
// first), with a snippet of each read back from its session file.
func (rd *Reader) Search(ctx context.Context, q fts.Node, f pidex.SearchFilter) ([]pidex.Hit, error) {
	from, args := rd.searchFrom(q, f)
	order := "m.score, e.ts_ms DESC"
	if f.Newest {
		order = "e.ts_ms DESC, m.score"
	}
	run := func(capped bool) ([]pidex.Hit, []int64, error) {
		return rd.hits(ctx, with(f, capped)+`SELECT fl.path, s.session_id, e.id, e.offset, e.length, e.line,
			COALESCE(e.role, e.type), e.ts_ms, m.score, COALESCE(s.name, ''), COALESCE(s.first_message, ''), s.cwd
			FROM `+from+` ORDER BY `+order+` LIMIT ? OFFSET ?`, append(args, f.Limit, f.Offset))
	}
	// Ranking only the newest RankCap matches serves the first pages; a
	// page past them ranks every match.
	capped := unfiltered(f) && f.Offset+f.Limit <= RankCap
	hits, lengths, err := run(capped)
	if err == nil && capped && len(hits) < f.Limit && rd.atLeast(ctx, q, RankCap) {
		// Fewer hits than asked for among the newest matches (files outside
		// the roots took places): rank them all.
		hits, lengths, err = run(false)
	}
	if err != nil {
		return nil, err
	}
	snippets(hits, lengths, fts.Highlights(q))
	return hits, nil
}

// atLeast reports whether the query matches n entries or more.
func (rd *Reader) atLeast(ctx context.Context, q fts.Node, n int) bool {
	var c int
	err := rd.db.GetContext(ctx, &c, `SELECT count(*) FROM (SELECT 1 FROM text_index WHERE text_index MATCH ? LIMIT ?)`, q.Match(), n)
	return err == nil && c >= n
}

// hits runs a search statement; lengths are the hits' line lengths.
func (rd *Reader) hits(ctx context.Context, q string, args []any) ([]pidex.Hit, []int64, error) {
	rows, err := rd.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, nil, fmt.Errorf("search: %w", err)
	}
	defer rows.Close()
	hits := []pidex.Hit{}
	var lengths []int64
	for rows.Next() {
		var h pidex.Hit
		var ts *int64
		var length int64
		if err := rows.Scan(&h.Path, &h.SessionID, &h.EntryID, &h.Offset, &length, &h.Line, &h.Role, &ts, &h.Score,
			&h.Name, &h.FirstMessage, &h.Cwd); err != nil {
			return nil, nil, fmt.Errorf("search: %w", err)
		}
		if ts != nil {
			t := pidex.Time(*ts)
			h.Timestamp = &t
		}
		hits, lengths = append(hits, h), append(lengths, length)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("search: %w", err)
	}
	return hits, lengths, nil
}

// snippets reads each hit's line back from its file and cuts a snippet
// around the match (the index holds no text). A line that cannot be read
// (the file changed since the last refresh) gets an empty snippet.
func snippets(hits []pidex.Hit, lengths []int64, terms []fts.Term) {
	files := map[string]*os.File{}
	defer func() {
		for _, f := range files {
			f.Close()
		}
	}()
	for i := range hits {
		h := &hits[i]
		f, ok := files[h.Path]
		if !ok {
			f, _ = os.Open(h.Path)
			files[h.Path] = f
		}
		if f == nil {
			continue
		}
		buf := make([]byte, lengths[i])
		if _, err := f.ReadAt(buf, h.Offset); err != nil {
			continue
		}
		l, _ := schema.DecodeLine(buf)
		if l == nil {
			continue
		}
		h.Segments = fts.Snippet(pi.SearchText(h.Path, l, true), terms, 160) // only omp's lines name artifacts
		h.Snippet, h.Highlights = flatten(h.Segments)
	}
}

// flatten joins segments and lists the matched ones as character ranges.
func flatten(segs []pidex.Segment) (string, [][2]int) {
	var b strings.Builder
	marks := [][2]int{}
	n := 0
	for _, s := range segs {
		k := len([]rune(s.Text))
		if s.Hit {
			marks = append(marks, [2]int{n, n + k})
		}
		b.WriteString(s.Text)
		n += k
	}
	return b.String(), marks
}

// SearchSessions returns one row per session with its number of matching
// entries, best match first (or most recently modified first).
func (rd *Reader) SearchSessions(ctx context.Context, q fts.Node, f pidex.SearchFilter) ([]pidex.SessionHits, error) {
	from, args := rd.searchFrom(q, f)
	order := "min(m.score), modified DESC"
	if f.Newest {
		order = "modified DESC"
	}
	stmt := with(f, false) + `SELECT fl.path, s.session_id, s.name, COALESCE(s.first_message, '(no messages)'), count(*), s.cwd,
		COALESCE(s.last_activity_ms, s.created_ms, fl.mtime_ns / 1000000) AS modified
		FROM ` + from + ` GROUP BY e.file_id ORDER BY ` + order + ` LIMIT ? OFFSET ?`
	args = append(args, f.Limit, f.Offset)
	rows, err := rd.db.QueryContext(ctx, stmt, args...)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	defer rows.Close()
	out := []pidex.SessionHits{}
	for rows.Next() {
		var h pidex.SessionHits
		var mod int64
		if err := rows.Scan(&h.Path, &h.SessionID, &h.Name, &h.FirstMessage, &h.Hits, &h.Cwd, &mod); err != nil {
			return nil, fmt.Errorf("search: %w", err)
		}
		h.Modified = pidex.Time(mod)
		out = append(out, h)
	}
	return out, rows.Err()
}

// TextCoverage says how much of the sessions' ingested bytes have their
// text in the index (the text pass runs behind the metadata).
func (rd *Reader) TextCoverage(ctx context.Context) (indexed, total int64, err error) {
	q, args, err := sqlx.In(`SELECT COALESCE(sum(text_offset), 0), COALESCE(sum(offset), 0) FROM files
		WHERE kind = 'session' AND root IN (?)`, rd.roots)
	if err != nil {
		return 0, 0, fmt.Errorf("text coverage: %w", err)
	}
	err = rd.db.QueryRowContext(ctx, q, args...).Scan(&indexed, &total)
	if err != nil {
		return 0, 0, fmt.Errorf("text coverage: %w", err)
	}
	return indexed, total, nil
}
