package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/files"
	"github.com/pidex-dev/pidex/internal/fts"
	"github.com/pidex-dev/pidex/pi"
	"github.com/pidex-dev/pidex/query"
	"github.com/pidex-dev/pidex/schema"
)

// searchFrom is the matching entries (the CTE m) with their session,
// file and the plan's filters; args are the filters' values.
func searchFrom(p *query.SearchPlan) (string, []any) {
	return searchFromJoin(p, "JOIN")
}

// searchFromJoin is searchFrom with m joined to its entries, sessions and
// files by join ("CROSS JOIN" keeps m's order: SQLite does not reorder
// the tables of a cross join).
func searchFromJoin(p *query.SearchPlan, join string) (string, []any) {
	return matchesFrom(p, join, "m")
}

// matchesFrom is searchFromJoin over the matches src (a CTE of rowids r).
func matchesFrom(p *query.SearchPlan, join, src string) (string, []any) {
	r := src + ".r"
	where, args := p.Where.SQL(query.SQLite)
	// The match's rowid within its session's range too (what the entry's
	// join implies), by the entry's file and the session's: with a filter
	// on the sessions (--project) or on the file (--session), SQLite can
	// then go through the sessions it keeps, or the one file, and ask
	// FTS5 for their matches alone, not test every match of the index
	// (`--session X the` over 30,000 sessions: 0.38 → 0.09 s).
	from := src + `
		` + join + ` entries e ON e.file_id = ` + fts.RowFileSQL(r) + ` AND ` + fts.RowInFileSQL(r, "e.file_id") + `
			AND e.line = ` + fts.RowLineSQL(r) + `
		` + join + ` sessions s ON s.file_id = e.file_id AND ` + fts.RowInFileSQL(r, "s.file_id") + `
		` + join + ` files f ON f.id = e.file_id`
	if p.Active {
		active := activeSQL
		if where != "" {
			active += " AND (" + where + ")"
		}
		where = active
	}
	if where != "" {
		from += " WHERE " + where
	}
	return from, args
}

// activeSQL keeps the entries on their session's current root-to-leaf
// path (pi's branch): those the indexer did not find off it (off_path,
// indexer/offpath.go), one lookup per match. The path walked at each
// search, from every session with a match, cost minutes over a real
// history (453,198 steps for a rare word over 3,000 sessions).
const activeSQL = `NOT EXISTS (SELECT 1 FROM off_path o WHERE o.file_id = e.file_id AND o.offset = e.offset)`

// matched is a search's matches as the CTEs m0(r) (the matching rowids)
// and m(r, score), with their arguments: what every search statement
// starts with.
type matched struct {
	with string
	args []any
	// loose: m holds candidates that the caller confirms (see confirmer);
	// else every row of m matches.
	loose bool
}

// matches evaluates q for a statement filtered by f; capped keeps only the
// newest RankCap matches. The index holds no positions (migration 00010):
// a query IndexMatch cannot run exactly is run loosely, m is then its
// candidates (loose), and the caller confirms the rows it reads in order
// until it has enough (Search's pages, searchSessionsLoose).
//
// The score is bm25 as far as an index without positions can tell: FTS5's
// formula with each of the query's terms counted once in a matching entry
// and the same weight (idf 1), so that among the matches the shorter
// entries (in tokens, as FTS5 counts them: text_sizes, migration 00014)
// rank first. FTS5's bm25() itself needs the positions (it gives 0
// without them).
func (rd *Reader) matches(ctx context.Context, p *query.SearchPlan, capped bool) (matched, error) {
	expr, exact := fts.IndexMatch(p.Query)
	avgdl, err := rd.avgLen(ctx)
	if err != nil {
		return matched{}, err
	}
	// Capped, the newest matches are ranked once, materialized. Every
	// match (a filter, a later page) is not materialized: SQLite flattens
	// m into the statement, which tests the filters on each match before
	// it reads the match's length and ranks it (`--project proj-07 the`
	// over 3,000 sessions ranked all 200,000 matches to keep 5,456: 0.33
	// s of the statement's 0.07 so).
	mat := ""
	m0 := `m0(r) AS ` + matchRows
	args := []any{expr}
	if capped {
		// The newest matches (FTS5 gives its rowids backwards and the cut
		// stops the scan), within the filters when there are any
		// (query.RankCap): each is tested as it comes, or a filter on the
		// sessions goes through the sessions it keeps (see matchesFrom).
		mat = "MATERIALIZED "
		src := "c"
		if p.Filtered() {
			var fargs []any
			src, fargs = matchesFrom(p, "JOIN", "c")
			args = append(args, fargs...)
		}
		m0 = `c(r) AS ` + matchRows + `,
	m0(r) AS MATERIALIZED (SELECT c.r FROM ` + src + ` ORDER BY c.r DESC LIMIT ` + strconv.Itoa(p.Cap) + `)`
	}
	terms := len(p.Terms())
	with := `WITH RECURSIVE ` + m0 + `,
	m(r, score) AS ` + mat + `(SELECT m0.r, pidex_rank(d.n, ?, ?) FROM m0 LEFT JOIN text_sizes d ON d.id = m0.r)`
	args = append(args, avgdl, terms)
	return matched{with: with + "\n", args: args, loose: !exact}, nil
}

// avgLen is the index's average entry length in tokens (bm25's avgdl,
// from the totals FTS5's averages record would hold: text_totals).
func (rd *Reader) avgLen(ctx context.Context) (float64, error) {
	var rows, tokens int64
	err := rd.db.QueryRowContext(ctx, `SELECT rows, tokens FROM text_totals WHERE id = 1`).Scan(&rows, &tokens)
	if errors.Is(err, sql.ErrNoRows) || err == nil && (rows <= 0 || tokens <= 0) {
		return 1, nil // an empty index
	}
	if err != nil {
		return 0, fmt.Errorf("search: %w", err)
	}
	return float64(tokens) / float64(rows), nil
}

// confirmer matches a query exactly on entries read back from their
// files, keeping each file open for the next of its entries.
type confirmer struct {
	m     *fts.Matcher
	files map[string]*os.File
	buf   []byte
}

func newConfirmer(q fts.Node) *confirmer {
	return &confirmer{m: fts.NewMatcher(q), files: map[string]*os.File{}}
}

// match reports whether the entry at offset (its line of length bytes)
// matches q: its searchable text (as the indexer took it) tokenized as
// FTS5 does, then fts.Eval. A line that cannot be read (the file changed
// since the last refresh) does not match.
func (c *confirmer) match(path string, offset, length int64) bool {
	fh, ok := c.files[path]
	if !ok {
		fh, _ = files.OpenRegular(path)
		c.files[path] = fh
	}
	if fh == nil {
		return false
	}
	// Whole, never cut: the phrase may lie anywhere in the entry. A line
	// over pidex.ReadCutLine is read as a stream, its text handed to the
	// matcher in pieces (confirming a phrase in a 100 MB line held a
	// gigabyte); a shorter one as the indexer read it (DecodeLineFast).
	// A line whose text the stream gives only in part (pi.StreamSearchText:
	// a million short strings) matches as the index says, unconfirmed:
	// better a hit too many than one lost.
	if length > pidex.ReadCutLine {
		c.m.Reset()
		whole, err := pi.StreamSearchText(path, fh, offset, length, func(s string) error { c.m.Feed(s); return nil })
		if err != nil {
			return false
		}
		return c.m.Close() || !whole
	}
	if int64(cap(c.buf)) < length {
		c.buf = make([]byte, length)
	}
	buf := c.buf[:length]
	if _, err := fh.ReadAt(buf, offset); err != nil {
		return false
	}
	l, _ := schema.DecodeLineFast(buf)
	if l == nil {
		return false
	}
	return c.m.Match(pi.SearchText(path, l, true))
}

func (c *confirmer) close() {
	for _, fh := range c.files {
		if fh != nil {
			fh.Close()
		}
	}
}

// Search returns the entries matching p, best first (or newest first),
// with a snippet of each read back from its session file.
func (rd *Reader) Search(ctx context.Context, p *query.SearchPlan) ([]pidex.Hit, error) {
	from, fargs := searchFrom(p)
	// The path and offset break the last ties (a fork's copy of an entry
	// has its score and time), so the order is the same on every run and
	// on a team catalog (package postgres orders alike, then by machine).
	order := "m.score, e.ts_ms DESC, f.path DESC, e.offset DESC"
	if p.Newest {
		order = "e.ts_ms DESC, m.score, f.path DESC, e.offset DESC"
	}
	loose := false // the index's matches are candidates a phrase confirms
	run := func(capped bool) ([]pidex.Hit, []int64, error) {
		m, err := rd.matches(ctx, p, capped)
		if err != nil {
			return nil, nil, err
		}
		loose = m.loose
		stmt := m.with + `SELECT f.path, s.session_id, e.id, e.offset, e.length, e.line,
			COALESCE(e.role, e.type), e.ts_ms, m.score, COALESCE(s.name, ''), COALESCE(s.first_message, ''), s.cwd
			FROM ` + from + ` ORDER BY ` + order
		args := append(m.args, fargs...)
		if !m.loose {
			return rd.hits(ctx, stmt+` LIMIT ? OFFSET ?`, append(args, p.Limit, p.Offset), nil, 0, 0)
		}
		// Candidates in the page's order, each confirmed as it comes, until
		// the page is full: the best-ranked are the shortest entries, the
		// cheapest to read.
		cf := newConfirmer(p.Query)
		defer cf.close()
		return rd.hits(ctx, stmt, args, cf, p.Offset, p.Limit)
	}
	// Ranking only the newest Cap matches serves the first pages; a
	// page past them ranks every match.
	capped := p.Capped()
	hits, lengths, err := run(capped)
	if err == nil && capped && len(hits) < p.Limit && (!p.Filtered() || loose) && rd.atLeast(ctx, p.Query, p.Cap) {
		// Fewer hits than asked for among the newest matches (files outside
		// the roots, or candidates a phrase's words do not confirm, took
		// places): rank them all. Within filters, exact matches fewer than
		// the page are every match the filters keep.
		hits, lengths, err = run(false)
	}
	if err != nil {
		return nil, err
	}
	snippets(hits, lengths, p.Terms())
	return hits, nil
}

// atLeast reports whether the query may match n entries or more (its
// loosened form does: the rare retry above then confirms them all).
func (rd *Reader) atLeast(ctx context.Context, q fts.Node, n int) bool {
	var c int
	expr, _ := fts.IndexMatch(q)
	err := rd.db.GetContext(ctx, &c, `SELECT count(*) FROM (SELECT 1 FROM text_index WHERE text_index MATCH ? LIMIT ?)`, expr, n)
	return err == nil && c >= n
}

// hits runs a search statement; lengths are the hits' line lengths.
//
// With cf, every row is a candidate that cf confirms or drops: the first
// skip confirmed rows are passed over and reading stops at limit.
func (rd *Reader) hits(ctx context.Context, q string, args []any, cf *confirmer, skip, limit int) ([]pidex.Hit, []int64, error) {
	if cf != nil && limit == 0 {
		return []pidex.Hit{}, nil, nil
	}
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
		if cf != nil {
			if err := ctx.Err(); err != nil {
				return nil, nil, err
			}
			if !cf.match(h.Path, h.Offset, length) {
				continue
			}
			if skip > 0 {
				skip--
				continue
			}
		}
		hits, lengths = append(hits, h), append(lengths, length)
		if cf != nil && limit >= 0 && len(hits) >= limit { // as SQL's LIMIT: a negative one is none
			break
		}
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("search: %w", err)
	}
	return hits, lengths, nil
}

// A hit's line longer than snippetCutLine (one huge tool result) is read
// as a stream into a cut copy whose strings keep their first
// snippetCutString bytes, as show reads it: reading and decoding a 300 MB
// line whole for a 160-character snippet cost gigabytes. The snippet
// comes from the kept part; when the match lies beyond it, from a window
// around the first match in the line's text read as a stream
// (streamWindow), else the text's start.
const (
	snippetCutLine   = pidex.ReadCutLine
	snippetCutString = 16 << 10
)

// snippets reads each hit's line back from its file and cuts a snippet
// around the match (the index holds no text). A line that cannot be read
// (the file changed since the last refresh) gets an empty snippet.
func snippets(hits []pidex.Hit, lengths []int64, terms []fts.Term) {
	opened := map[string]*os.File{}
	defer func() {
		for _, f := range opened {
			f.Close()
		}
	}()
	for i := range hits {
		h := &hits[i]
		f, ok := opened[h.Path]
		if !ok {
			f, _ = files.OpenRegular(h.Path)
			opened[h.Path] = f
		}
		if f == nil {
			continue
		}
		e, err := pi.Decode(pidex.Entry{Offset: h.Offset, Length: lengths[i]}, io.NewSectionReader(f, h.Offset, lengths[i]),
			lengths[i] > snippetCutLine, snippetCutString, h.Path)
		if err != nil || e.Decoded == nil {
			continue
		}
		query.Snippet(h, pi.SearchText(h.Path, e.Decoded, true), terms) // only omp's lines name artifacts
		if e.Cut && !slices.ContainsFunc(h.Segments, func(s pidex.Segment) bool { return s.Hit }) {
			if text, ok := streamWindow(h.Path, f, h.Offset, lengths[i], terms); ok {
				query.Snippet(h, text, terms)
			}
		}
	}
}

// errWindow stops reading a line once its snippet's window is complete.
var errWindow = errors.New("window complete")

// streamWindow is the text around the first match of terms in the line
// at [off, off+length) of f, its searchable text read as a stream
// (pi.StreamSearchText) only as far as the window needs.
func streamWindow(path string, f *os.File, off, length int64, terms []fts.Term) (string, bool) {
	w := fts.NewSnippetWindow(terms)
	_, err := pi.StreamSearchText(path, f, off, length, func(s string) error {
		if w.Feed(s) {
			return errWindow
		}
		return nil
	})
	if err != nil && !errors.Is(err, errWindow) {
		return "", false
	}
	return w.Text()
}

// SearchSessions returns one row per session with its number of matching
// entries, best match first (or most recently modified first).
func (rd *Reader) SearchSessions(ctx context.Context, p *query.SearchPlan) ([]pidex.SessionHits, error) {
	from, fargs := searchFrom(p)
	order := "min(m.score), modified DESC, f.path"
	if p.Newest {
		order = "modified DESC, f.path"
	}
	m, err := rd.matches(ctx, p, false)
	if err != nil {
		return nil, err
	}
	if m.loose {
		return rd.searchSessionsLoose(ctx, p, m)
	}
	// Grouped on the file and its best score only: a grouping that
	// carried the sessions' columns kept each match's copy of them (its
	// first message, its name) in SQLite's sorter, 300 MB for a common
	// word over 3,000 sessions. The page's sessions are joined after.
	if p.Newest {
		order = "modified DESC, f.path"
	} else {
		order = "g.best, modified DESC, f.path"
	}
	stmt := m.with + `, g(file_id, hits, best) AS MATERIALIZED (SELECT e.file_id, count(*), min(m.score) FROM ` + from + ` GROUP BY e.file_id)
		SELECT f.path, s.session_id, s.name, COALESCE(s.first_message, '(no messages)'), g.hits, s.cwd,
		COALESCE(s.last_activity_ms, s.created_ms, f.mtime_ns / 1000000) AS modified
		FROM g JOIN sessions s ON s.file_id = g.file_id JOIN files f ON f.id = g.file_id
		ORDER BY ` + order + ` LIMIT ? OFFSET ?`
	args := append(append(m.args, fargs...), p.Limit, p.Offset)
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
