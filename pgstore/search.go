package pgstore

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/fts"
	"github.com/pidex-dev/pidex/internal/pgsearch"
	"github.com/pidex-dev/pidex/internal/readside"
	"github.com/pidex-dev/pidex/pi"
)

// Search in a team catalog finds what a local catalog's FTS5 index finds
// and scores it the same (docs/postgres.md, Search): the entries' tokens
// are FTS5's (fts.Tokens), pushed as tsvector rows, and the query is
// their tsquery (pgsearch.ToQuery); GIN answers which entries match, and
// bm25 is computed in Go from each candidate's tokens with the
// collection's statistics, exactly as FTS5 computes it (pgsearch.Score).
// The candidates' text is read for that (and for snippets), which also
// confirms every match against the reference matcher: the few the index
// cannot decide alone (a word longer than a lexeme, a phrase longer than a
// window's overlap) are exact too.

// rebind numbers the '?' placeholders of q from $from on.
func rebind(q string, from int) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(q, '?')
		if i < 0 {
			b.WriteString(q)
			return b.String()
		}
		b.WriteString(q[:i])
		b.WriteString("$" + strconv.Itoa(from))
		from++
		q = q[i+1:]
	}
}

// matches is the CTE of the entries matching tq: one-row entries by
// tsv @@ query, windowed ones by set operations on their keys. Its
// arguments are $1 and the windows' ($2 on).
func matches(tq pgsearch.Query) (string, []any) {
	return `m AS MATERIALIZED (
		SELECT file_id, "offset" FROM text_index WHERE NOT win AND tsv @@ $1::tsquery
		UNION ALL
		SELECT file_id, "offset" FROM (` + tq.Windows + `) w)`, append([]any{tq.TSQuery}, tq.Args...)
}

// activeCTE lists, per session with a match, the offsets of the entries
// on its current root-to-leaf path (query's, the same walk).
const activeCTE = `,
	walk(file_id, id, depth) AS (
		SELECT s.file_id, s.leaf_id, 0 FROM sessions s
		WHERE s.file_id IN (SELECT DISTINCT file_id FROM m) AND s.leaf_id IS NOT NULL
		UNION ALL
		SELECT w.file_id, ed.parent_id, w.depth + 1 FROM walk w
		JOIN edges ed ON ed.file_id = w.file_id AND ed.child_id = w.id
		WHERE ed.parent_id IS NOT NULL AND w.depth < 1000000),
	active_offsets(file_id, "offset") AS (
		SELECT ed.file_id, ed.offset FROM walk w JOIN edges ed ON ed.file_id = w.file_id AND ed.child_id = w.id)`

// candidate is a matching entry with what ranking and a hit need: its
// text, or (an entry of one search row, when the query has no prefix and
// no over-long word) only the positions of the query's words in it, which
// is all bm25 needs.
type candidate struct {
	pidex.Hit
	fileID    int64
	base      string
	ts        *int64
	text      *string
	positions *string // the row's tsvector reduced to the query's lexemes
	tokens    int64   // the entry's length in tokens
	name, fm  *string
	modified  int64
}

// lexemes are the query's words as the search rows hold them, for the
// positions path: exact lexemes, and the LIKE patterns of the prefixes (a
// prefix term's last token), which each row expands to the lexemes it
// holds. ok is false when the query needs the text (a word longer than a
// lexeme, whose hits the index cannot decide).
func lexemes(q fts.Node, tq pgsearch.Query) (exact, prefixes []string, ok bool) {
	if tq.Truncated {
		return nil, nil, false
	}
	for _, t := range pgsearch.Phrases(q) {
		toks := fts.TermTokens(t)
		if t.Prefix && len(toks) > 0 {
			last := toks[len(toks)-1]
			prefixes = append(prefixes, strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(last)+"%")
			toks = toks[:len(toks)-1]
		}
		exact = append(exact, toks...)
	}
	if exact == nil {
		exact = []string{}
	}
	return exact, prefixes, len(exact)+len(prefixes) > 0
}

// kept is the SQL of the lexemes a search row's positions are kept for
// (tsv, a row's tsvector): the exact ones ($e), and those that start with
// a prefix ($p), found in the row itself.
func kept(tsv string, prefixes bool) string {
	if !prefixes {
		return "?::text[]"
	}
	return "(?::text[] || ARRAY(SELECT l FROM unnest(tsvector_to_array(" + tsv + ")) l WHERE l LIKE ANY (?::text[])))"
}

// candidates runs the search statement: the matches, capped to the newest
// RankCap (capped), filtered by f, with their entries' facts and text.
func (r *Reader) candidates(ctx context.Context, q fts.Node, f pidex.SearchFilter, capped bool) ([]candidate, error) {
	tq := pgsearch.ToQuery(q, "text_index", `file_id, "offset"`, 2)
	cte, args := matches(tq)
	exact, prefixes, positions := lexemes(q, tq)
	src := "m"
	if capped {
		// The newest matches: by file name (pi's names start with the
		// session's start time), path, machine and offset, the order of a
		// local catalog's text rowids (file ids follow names, then paths).
		src = `(SELECT c.file_id, c."offset" FROM m c JOIN files cf ON cf.id = c.file_id JOIN machines cm ON cm.id = cf.machine_id
			ORDER BY cf.base DESC, cf.path DESC, cm.name DESC, c."offset" DESC LIMIT ` + strconv.Itoa(readside.RankCap) + `)`
	}
	var where []string
	var fargs []any
	add := func(c string, a ...any) { where, fargs = append(where, c), append(fargs, a...) }
	if f.Project != "" {
		add(contains("s.cwd"), f.Project)
	}
	if f.Cwd != "" {
		add("s.cwd = ?", f.Cwd)
	}
	if f.FileID != 0 {
		add("e.file_id = ?", f.FileID)
	}
	if f.Role != "" {
		cond, a := pi.GroupSQL(f.Role, "e")
		add(cond, a...)
	}
	if f.Model != "" {
		add(contains("e.model"), f.Model)
	}
	if !f.Since.IsZero() {
		add("e.ts_ms >= ?", f.Since.UnixMilli())
	}
	if !f.Until.IsZero() {
		add("e.ts_ms < ?", f.Until.UnixMilli())
	}
	if f.Machine != "" {
		add("mm.name = ?", f.Machine)
	}
	with := "WITH RECURSIVE " + cte
	from := src + ` c
		JOIN entries e ON e.file_id = c.file_id AND e.offset = c.offset
		JOIN sessions s ON s.file_id = e.file_id
		JOIN files fl ON fl.id = e.file_id
		JOIN machines mm ON mm.id = fl.machine_id
		JOIN text_index ti ON ti.file_id = e.file_id AND ti.offset = e.offset AND ti.part = 0
		LEFT JOIN entry_text t ON t.file_id = e.file_id AND t.offset = e.offset
			AND (NOT ?::boolean OR (ti.win AND EXISTS (SELECT 1 FROM text_index l WHERE l.file_id = e.file_id AND l.offset = e.offset AND NOT l.exact)))`
	if f.Active {
		with += activeCTE
		from += ` JOIN active_offsets a ON a.file_id = e.file_id AND a.offset = e.offset`
	}
	stmt := with + `
		SELECT e.file_id, fl.path, s.session_id, e.id, e.offset, e.line, COALESCE(e.role, e.type), e.ts_ms,
			s.name, s.first_message, s.cwd, mm.name, fl.base, t.text,
			CASE WHEN t.text IS NOT NULL THEN NULL
				WHEN NOT ti.win THEN '1|' || ts_filter(setweight(ti.tsv, 'A', ` + kept("ti.tsv", len(prefixes) > 0) + `), '{a}')::text
				ELSE (SELECT string_agg((w.first + 1)::text || '|' || ts_filter(setweight(w.tsv, 'A', ` + kept("w.tsv", len(prefixes) > 0) + `), '{a}')::text, E'\n')
					FROM text_index w WHERE w.file_id = e.file_id AND w.offset = e.offset) END,
			ti.tokens, COALESCE(s.last_activity_ms, s.created_ms, fl.mtime_ns / 1000000)
		FROM ` + from
	if len(where) > 0 {
		stmt += " WHERE " + strings.Join(where, " AND ")
	}
	// The SELECT's lexeme arguments come first in the text, then the
	// join's, then the filters'.
	keepArgs := []any{exact}
	if len(prefixes) > 0 {
		keepArgs = append(keepArgs, prefixes)
	}
	all := append(append(append(append(args, keepArgs...), keepArgs...), positions), fargs...)
	rows, err := r.s.db.QueryContext(ctx, rebind(stmt, len(args)+1), all...)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	defer rows.Close()
	var out []candidate
	for rows.Next() {
		var c candidate
		if err := rows.Scan(&c.fileID, &c.Path, &c.SessionID, &c.EntryID, &c.Offset, &c.Line, &c.Role, &c.ts,
			&c.name, &c.fm, &c.Cwd, &c.Machine, &c.base, &c.text, &c.positions, &c.tokens, &c.modified); err != nil {
			return nil, fmt.Errorf("search: %w", err)
		}
		if c.name != nil {
			c.Name = *c.name
		}
		if c.fm != nil {
			c.FirstMessage = *c.fm
		}
		if c.ts != nil {
			t := pidex.Time(*c.ts)
			c.Timestamp = &t
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	return out, nil
}

// score confirms each candidate against the query on its tokens (dropping
// the rare one the index could not decide and that does not match) and
// gives it FTS5's bm25 over the whole team catalog.
func (r *Reader) score(ctx context.Context, q fts.Node, cs []candidate) ([]candidate, error) {
	if len(cs) == 0 {
		return cs, nil
	}
	var st struct {
		Rows   int64 `db:"rows"`
		Tokens int64 `db:"tokens"`
	}
	if err := r.s.db.GetContext(ctx, &st, `SELECT COALESCE(sum(text_entries), 0)::bigint AS rows, COALESCE(sum(text_tokens), 0)::bigint AS tokens FROM push_state`); err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	phrases := pgsearch.Phrases(q)
	tls := pgsearch.NewTLS()
	defer tls.Close()
	idf := make([]float64, len(phrases))
	for i, p := range phrases {
		hits, err := r.count(ctx, p)
		if err != nil {
			return nil, err
		}
		idf[i] = pgsearch.IDF(tls, st.Rows, hits)
	}
	avgdl := pgsearch.AvgDL(st.Rows, st.Tokens)
	out := cs[:0]
	var stream []string
	for _, c := range cs {
		var toks []string
		if c.text != nil {
			toks = fts.Tokens(*c.text)
			// The index cannot decide everything alone on windows and
			// over-long words: the text does.
			if !pgsearch.Eval(q, toks) {
				continue
			}
		} else {
			// The positions of the query's words in the entry's rows, the
			// other tokens blank: the entry's tokens as far as the query can
			// tell. A window's match is decided here (a conjunction across
			// windows, a phrase longer than their overlap), as on the text.
			stream = positionStream(stream, *c.positions, c.tokens)
			toks = stream
			if !pgsearch.Eval(q, toks) {
				continue
			}
		}
		c.Score = pgsearch.Score(idf, pgsearch.Freqs(q, toks), int64(len(toks)), avgdl)
		out = append(out, c)
	}
	return out, nil
}

// positionStream is a token stream of n tokens holding the lexemes of the
// search rows' tsvector literals at their positions and a blank (NUL: no
// token holds one) everywhere else. rows is one row a line, "FIRST|TSV":
// the entry's position (from 1) of the row's position 1, then the literal
// ('the':1A,5A 'fox':3A).
func positionStream(buf []string, rows string, n int64) []string {
	buf = slices.Grow(buf[:0], int(n))[:n]
	for i := range buf {
		buf[i] = "\x00"
	}
	for _, row := range strings.Split(rows, "\n") {
		first, tsv, _ := strings.Cut(row, "|")
		at, err := strconv.ParseInt(first, 10, 64)
		if err != nil {
			continue
		}
		pgsearch.Place(buf, tsv, at-1)
	}
	return buf
}

// count is the number of entries holding a phrase, over the whole team
// catalog (FTS5's nHit for the phrase's IDF).
func (r *Reader) count(ctx context.Context, p fts.Term) (int64, error) {
	tq := pgsearch.ToQuery(p, "text_index", `file_id, "offset"`, 2)
	cte, args := matches(tq)
	var n int64
	if err := r.s.db.QueryRowContext(ctx, `WITH `+cte+` SELECT count(*) FROM m`, args...).Scan(&n); err != nil {
		return 0, fmt.Errorf("search: %w", err)
	}
	return n, nil
}

// newer breaks the last ties as a local catalog does: the path, then
// (a team catalog's own) the machine, then the offset, all descending.
func newer(a, b *candidate) int {
	return cmp.Or(strings.Compare(b.Path, a.Path), strings.Compare(b.Machine, a.Machine), cmp.Compare(b.Offset, a.Offset))
}

// byTime compares times newest first, an entry without one last (NULL in
// SQLite's descending order).
func byTime(a, b *int64) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return 1
	case b == nil:
		return -1
	}
	return cmp.Compare(*b, *a)
}

// Search returns the entries matching q and f, best first (or newest
// first), with snippets: the local catalog's order (query.Reader.Search).
func (r *Reader) Search(ctx context.Context, q fts.Node, f pidex.SearchFilter) ([]pidex.Hit, error) {
	capped := readside.Unfiltered(f) && f.Offset+f.Limit <= readside.RankCap
	cs, err := r.candidates(ctx, q, f, capped)
	if err != nil {
		return nil, err
	}
	if cs, err = r.score(ctx, q, cs); err != nil {
		return nil, err
	}
	slices.SortFunc(cs, func(a, b candidate) int {
		if f.Newest {
			return cmp.Or(byTime(a.ts, b.ts), cmp.Compare(a.Score, b.Score), newer(&a, &b))
		}
		return cmp.Or(cmp.Compare(a.Score, b.Score), byTime(a.ts, b.ts), newer(&a, &b))
	})
	cs = cs[min(f.Offset, len(cs)):]
	cs = cs[:min(f.Limit, len(cs))]
	if err := r.texts(ctx, cs); err != nil {
		return nil, err
	}
	terms := fts.Highlights(q)
	hits := make([]pidex.Hit, len(cs))
	for i := range cs {
		readside.Snippet(&cs[i].Hit, *cs[i].text, terms)
		hits[i] = cs[i].Hit
	}
	return hits, nil
}

// texts reads the text of the candidates that were ranked without it
// (the page's hits, for their snippets).
func (r *Reader) texts(ctx context.Context, cs []candidate) error {
	var files, offsets []int64
	for _, c := range cs {
		if c.text == nil {
			files, offsets = append(files, c.fileID), append(offsets, c.Offset)
		}
	}
	if len(files) == 0 {
		return nil
	}
	rows, err := r.s.db.QueryContext(ctx, `SELECT t.file_id, t.offset, t.text FROM unnest($1::bigint[], $2::bigint[]) AS k(file_id, off)
		JOIN entry_text t ON t.file_id = k.file_id AND t.offset = k.off`, files, offsets)
	if err != nil {
		return fmt.Errorf("search: %w", err)
	}
	defer rows.Close()
	type key struct{ file, off int64 }
	got := map[key]string{}
	for rows.Next() {
		var k key
		var text string
		if err := rows.Scan(&k.file, &k.off, &text); err != nil {
			return fmt.Errorf("search: %w", err)
		}
		got[k] = text
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("search: %w", err)
	}
	for i := range cs {
		if cs[i].text == nil {
			t := got[key{cs[i].fileID, cs[i].Offset}]
			cs[i].text = &t
		}
	}
	return nil
}

// SearchSessions returns one row per session with its number of matching
// entries, best match first (or most recently modified first).
func (r *Reader) SearchSessions(ctx context.Context, q fts.Node, f pidex.SearchFilter) ([]pidex.SessionHits, error) {
	cs, err := r.candidates(ctx, q, f, false)
	if err != nil {
		return nil, err
	}
	if cs, err = r.score(ctx, q, cs); err != nil {
		return nil, err
	}
	type group struct {
		pidex.SessionHits
		best     float64
		modified int64
	}
	byFile := map[int64]*group{}
	var groups []*group
	for i := range cs {
		c := &cs[i]
		g := byFile[c.fileID]
		if g == nil {
			g = &group{SessionHits: pidex.SessionHits{Path: c.Path, SessionID: c.SessionID, Name: c.name, FirstMessage: "(no messages)",
				Machine: c.Machine, Cwd: c.Cwd, Modified: pidex.Time(c.modified)}, best: c.Score, modified: c.modified}
			if c.fm != nil {
				g.FirstMessage = *c.fm // as the local catalog's COALESCE(first_message, '(no messages)')
			}
			byFile[c.fileID] = g
			groups = append(groups, g)
		}
		g.Hits++
		g.best = min(g.best, c.Score)
	}
	slices.SortFunc(groups, func(a, b *group) int {
		key := cmp.Compare(b.modified, a.modified)
		if !f.Newest {
			key = cmp.Or(cmp.Compare(a.best, b.best), key)
		}
		return cmp.Or(key, strings.Compare(a.Path, b.Path), strings.Compare(a.Machine, b.Machine))
	})
	groups = groups[min(f.Offset, len(groups)):]
	groups = groups[:min(f.Limit, len(groups))]
	out := make([]pidex.SessionHits, len(groups))
	for i, g := range groups {
		out[i] = g.SessionHits
	}
	return out, nil
}
