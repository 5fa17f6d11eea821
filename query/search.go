package query

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/jmoiron/sqlx"

	"github.com/pidex-dev/pidex/fts"
	"github.com/pidex-dev/pidex/pi"
	"github.com/pidex-dev/pidex/schema"
)

// SearchFilter narrows a search. The zero value searches everything.
type SearchFilter struct {
	Query   fts.Node
	Roots   []string // sessions under these roots only (absolute)
	Project string   // cwd contains this, case-insensitive (as list and cost)
	Cwd     string   // cwd is exactly this
	FileID  int64    // one session (0: all)
	Role    string   // user | assistant | tool | summary
	Model   string   // the entry's model contains this (assistant messages, model changes, usage entries)
	Since   int64    // entry time ≥ (ms; 0: no bound)
	Until   int64    // entry time < (ms; 0: no bound)
	// Active: only entries on their session's current root-to-leaf path
	// (--branch active); otherwise every branch.
	Active bool
	Newest bool // order by time, newest first, instead of relevance
	Limit  int  // default 20
}

// Hit is one matching entry.
type Hit struct {
	Path      string  `json:"path"`
	SessionID string  `json:"sessionId"`
	EntryID   string  `json:"entryId"`
	Offset    int64   `json:"offset"`
	Line      int64   `json:"line"`
	Role      string  `json:"role"` // the message role, or the entry type for other entries
	Timestamp *JSTime `json:"timestamp"`
	Snippet   string  `json:"snippet"`
	// Highlights are the matched parts of Snippet, as [from, to) character
	// offsets (JavaScript string indexes count UTF-16 units: use Array.from).
	Highlights [][2]int `json:"highlights"`
	Score      float64  `json:"score"` // bm25: lower is better

	Segments []fts.Segment `json:"-"`
	Name     string        `json:"-"`
	First    string        `json:"-"`
	Cwd      string        `json:"-"`
	length   int64
}

// SessionHits is one session with how many of its entries match.
type SessionHits struct {
	Path         string  `json:"path"`
	SessionID    string  `json:"sessionId"`
	Name         *string `json:"name"`
	FirstMessage string  `json:"firstMessage"`
	Hits         int64   `json:"hits"`
	Cwd          string  `json:"-"`
	Modified     JSTime  `json:"-"`
}

// searchFrom is the matching entries with their session, filtered.
func searchFrom(f SearchFilter) (string, []any, error) {
	if f.Query == nil {
		return "", nil, fmt.Errorf("search: no query: %w", schema.ErrUsage)
	}
	var where []string
	args := []any{f.Query.Match()}
	add := func(cond string, a ...any) {
		where = append(where, cond)
		args = append(args, a...)
	}
	if len(f.Roots) > 0 {
		cond, a := inRoots("fl", f.Roots)
		add(cond, a...)
	}
	if f.Project != "" {
		add("instr(lower(s.cwd), lower(?)) > 0", f.Project)
	}
	if f.Cwd != "" {
		add("s.cwd = ?", f.Cwd)
	}
	if f.FileID != 0 {
		add("e.file_id = ?", f.FileID)
	}
	switch f.Role {
	case "":
	case "user", "assistant":
		add("e.role = ?", f.Role)
	case "tool":
		add("e.role IN ('toolResult', 'bashExecution')")
	case "summary":
		add("(e.type IN ('compaction', 'branch_summary') OR e.role IN ('compactionSummary', 'branchSummary'))")
	default:
		return "", nil, fmt.Errorf("--role %q (want user, assistant, tool or summary): %w", f.Role, schema.ErrUsage)
	}
	if f.Model != "" {
		add("instr(lower(e.model), lower(?)) > 0", f.Model)
	}
	if f.Since != 0 {
		add("e.ts_ms >= ?", f.Since)
	}
	if f.Until != 0 {
		add("e.ts_ms < ?", f.Until)
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
	return from, args, nil
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
func with(f SearchFilter, capped bool) string {
	switch {
	case f.Active:
		return matchCTE + activeCTE
	case capped:
		return newestCTE + "\n"
	}
	return matchCTE + "\n"
}

// unfiltered reports whether f narrows nothing but the roots.
func unfiltered(f SearchFilter) bool {
	return f.Project == "" && f.Cwd == "" && f.FileID == 0 && f.Role == "" && f.Model == "" && f.Since == 0 && f.Until == 0 && !f.Active
}

// Search returns the matching entries, best first (or newest first), with
// a snippet of each read back from its session file.
func Search(ctx context.Context, db *sqlx.DB, f SearchFilter) ([]Hit, error) {
	from, args, err := searchFrom(f)
	if err != nil {
		return nil, err
	}
	order := "m.score, e.ts_ms DESC"
	if f.Newest {
		order = "e.ts_ms DESC, m.score"
	}
	run := func(capped bool) ([]Hit, error) {
		return search(ctx, db, with(f, capped)+`SELECT fl.path, s.session_id, e.id, e.offset, e.length, e.line,
			COALESCE(e.role, e.type), e.ts_ms, m.score, COALESCE(s.name, ''), COALESCE(s.first_message, ''), s.cwd
			FROM `+from+` ORDER BY `+order+` LIMIT ?`, append(args, limit(f.Limit)))
	}
	capped := unfiltered(f)
	hits, err := run(capped)
	if err == nil && capped && len(hits) < limit(f.Limit) && atLeast(ctx, db, f.Query, RankCap) {
		// Fewer hits than asked for among the newest matches (files outside
		// the roots took places): rank them all.
		hits, err = run(false)
	}
	if err != nil {
		return nil, err
	}
	snippets(hits, fts.Highlights(f.Query))
	return hits, nil
}

// atLeast reports whether the query matches n entries or more.
func atLeast(ctx context.Context, db *sqlx.DB, q fts.Node, n int) bool {
	var c int
	err := db.GetContext(ctx, &c, `SELECT count(*) FROM (SELECT 1 FROM text_index WHERE text_index MATCH ? LIMIT ?)`, q.Match(), n)
	return err == nil && c >= n
}

func search(ctx context.Context, db *sqlx.DB, q string, args []any) ([]Hit, error) {
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	defer rows.Close()
	hits := []Hit{}
	for rows.Next() {
		var h Hit
		var ts *int64
		if err := rows.Scan(&h.Path, &h.SessionID, &h.EntryID, &h.Offset, &h.length, &h.Line, &h.Role, &ts, &h.Score,
			&h.Name, &h.First, &h.Cwd); err != nil {
			return nil, fmt.Errorf("search: %w", err)
		}
		if ts != nil {
			t := JSTime(*ts)
			h.Timestamp = &t
		}
		hits = append(hits, h)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	return hits, nil
}

func limit(n int) int {
	if n <= 0 {
		return 20
	}
	return n
}

// snippets reads each hit's line back from its file and cuts a snippet
// around the match (the index holds no text). A line that cannot be read
// (the file changed since the last refresh) gets an empty snippet.
func snippets(hits []Hit, terms []fts.Term) {
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
		buf := make([]byte, h.length)
		if _, err := f.ReadAt(buf, h.Offset); err != nil {
			continue
		}
		l, _ := schema.DecodeLine(buf)
		if l == nil {
			continue
		}
		h.Segments = fts.Snippet(pi.Text(l), terms, 160)
		h.Snippet, h.Highlights = flatten(h.Segments)
	}
}

// flatten joins segments and lists the matched ones as character ranges.
func flatten(segs []fts.Segment) (string, [][2]int) {
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
func SearchSessions(ctx context.Context, db *sqlx.DB, f SearchFilter) ([]SessionHits, error) {
	from, args, err := searchFrom(f)
	if err != nil {
		return nil, err
	}
	order := "min(m.score), modified DESC"
	if f.Newest {
		order = "modified DESC"
	}
	q := with(f, false) + `SELECT fl.path, s.session_id, s.name, COALESCE(s.first_message, '(no messages)'), count(*), s.cwd,
		COALESCE(s.last_activity_ms, s.created_ms, fl.mtime_ns / 1000000) AS modified
		FROM ` + from + ` GROUP BY e.file_id ORDER BY ` + order + ` LIMIT ?`
	args = append(args, limit(f.Limit))
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	defer rows.Close()
	out := []SessionHits{}
	for rows.Next() {
		var h SessionHits
		var mod int64
		if err := rows.Scan(&h.Path, &h.SessionID, &h.Name, &h.FirstMessage, &h.Hits, &h.Cwd, &mod); err != nil {
			return nil, fmt.Errorf("search: %w", err)
		}
		h.Modified = JSTime(mod)
		out = append(out, h)
	}
	return out, rows.Err()
}

// TextCoverage says how much of the sessions' ingested bytes have their
// text in the index (the text pass runs behind the metadata).
func TextCoverage(ctx context.Context, db *sqlx.DB, roots []string) (indexed, total int64, err error) {
	q, args, err := sqlx.In(`SELECT COALESCE(sum(text_offset), 0), COALESCE(sum(offset), 0) FROM files
		WHERE kind = 'session' AND root IN (?)`, roots)
	if err != nil {
		return 0, 0, fmt.Errorf("text coverage: %w", err)
	}
	err = db.QueryRowContext(ctx, q, args...).Scan(&indexed, &total)
	if err != nil {
		return 0, 0, fmt.Errorf("text coverage: %w", err)
	}
	return indexed, total, nil
}
