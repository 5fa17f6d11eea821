package postgres

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/jmoiron/sqlx"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/fts"
	"github.com/pidex-dev/pidex/internal/pgsearch"
	"github.com/pidex-dev/pidex/query"
)

// Search in a team catalog finds what a local catalog's FTS5 index finds
// and scores it the same (docs/postgres.md, Search): the entries' tokens
// are FTS5's (fts.Tokens), pushed as tsvector rows, and the query is
// their tsquery (pgsearch.ToQuery); GIN answers which entries match, and
// each is scored in Go as the local catalog scores it (fts.Rank, from the
// candidate's length in tokens and the collection's average).
// The candidates' text is read for that (and for snippets), which also
// confirms every match against the reference matcher: the few the index
// cannot decide alone (a word longer than a lexeme, a phrase longer than a
// window's overlap) are exact too.

// searchTx is the read-only transaction a search runs in.
func (r *Reader) searchTx(ctx context.Context) (*sqlx.Tx, error) {
	tx, err := r.s.db.BeginTxx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	// No JIT: a search's statements read their rows by key, and a common
	// word's estimate (every match, before the cap) passes jit_above_cost,
	// so each compiled its expressions first: 40-60 ms of the count of
	// `the` over 20 machines (160 ms against 100-120). Set here, not as a
	// connection parameter, which a pooler such as PgBouncer refuses.
	if _, err := tx.ExecContext(ctx, `SET LOCAL jit = off`); err != nil {
		tx.Rollback()
		return nil, fmt.Errorf("search: %w", err)
	}
	return tx, nil
}

// seqscan allows or forbids sequential scans for the transaction's next
// statements. The statements that match against the search rows forbid
// them: for a word in half the entries the planner read the whole search
// table, testing each row's tsvector (detoasting it), where the GIN index
// answers at a fifth of the cost (1.5 s against 0.3 s for "the" over
// 1.7 GB of sessions); the statements that join the matches to their
// entries allow them again (forbidden, they went from 45 to 180 ms for a
// rare word).
func seqscan(ctx context.Context, tx *sqlx.Tx, on bool) error {
	v := "off"
	if on {
		v = "on"
	}
	if _, err := tx.ExecContext(ctx, `SET LOCAL enable_seqscan = `+v); err != nil {
		return fmt.Errorf("search: %w", err)
	}
	return nil
}

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

// matches is the CTE m of the entries matching q (matchSQL) and its
// arguments, from $1.
func matches(q fts.Node) (string, []any) {
	var a args
	return `m AS MATERIALIZED (` + a.matchSQL(q) + `)`, a
}

// activeOn keeps the entries whose key table t carries (the entry e, or
// the match c: the same key) on their sessions' current root-to-leaf
// paths: those the pushing machine's indexer did not find off it
// (off_path), one lookup by key per match. The path walked at each
// search, from every session with a match, cost minutes over a real
// history.
func activeOn(t string) string {
	return `NOT EXISTS (SELECT 1 FROM off_path o WHERE o.machine_id = ` + t + `.machine_id AND o.file_id = ` + t + `.file_id AND o."offset" = ` + t + `."offset")`
}

// candidate is a matching entry with what ranking and a hit need: its
// text, or (an entry of one search row, when the query has no prefix and
// no over-long word) only the positions of the query's words in it, which
// is all bm25 needs.
type candidate struct {
	pidex.Hit
	machineID int32
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
// p.Cap within the filters (capped), filtered by f, with their entries'
// facts and text.
func (r *Reader) candidates(ctx context.Context, tx *sqlx.Tx, p *query.SearchPlan, capped bool) ([]candidate, error) {
	q := p.Query
	tq := pgsearch.ToQuery(q, "text_index", keyCols, 2)
	cte, margs := matches(q)
	a := args(margs)
	exact, prefixes, positions := lexemes(q, tq)
	keysSQL := `WITH ` + cte + ` SELECT ` + keyCols + ` FROM m`
	if capped {
		// The newest matches: by file name (pi's names start with the
		// session's start time), path, machine and offset, the order of a
		// local catalog's text rowids (file ids follow names, then paths).
		// The files are ranked first (a few thousand rows), so that the
		// matches sort by two numbers, not three strings each.
		// Within the filters when there are any (query.RankCap).
		from, cond := `m c`, ""
		if p.Filtered() {
			from, cond = filterFrom(p, false), and(a.where(p), activeIf(p))
		}
		keysSQL = `WITH ` + cte + `, fo AS (` + fileRanks + `)
			SELECT c.machine_id, c.file_id, c."offset" FROM ` + from + ` JOIN fo ON fo.id = c.file_id` + cond + `
			ORDER BY fo.r, c."offset" DESC LIMIT ` + strconv.Itoa(p.Cap)
	}
	where, fargs := p.Where.SQL(query.Postgres)
	// The matches first, by the GIN index alone (see seqscan), then their
	// entries, sessions and search rows by their keys.
	if err := seqscan(ctx, tx, false); err != nil {
		return nil, err
	}
	var ks keys
	rows, err := tx.QueryContext(ctx, keysSQL, a...)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	for rows.Next() {
		var m int32
		var f, o int64
		if err := rows.Scan(&m, &f, &o); err != nil {
			rows.Close()
			return nil, fmt.Errorf("search: %w", err)
		}
		ks.add(m, f, o)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	if len(ks.files) == 0 {
		return nil, nil
	}
	if err := seqscan(ctx, tx, true); err != nil {
		return nil, err
	}
	with := `WITH RECURSIVE m(` + keyCols + `) AS (SELECT * FROM unnest($1::integer[], $2::bigint[], $3::bigint[]))`
	from := hitFrom(&query.SearchPlan{Active: p.Active}, true)
	// Ranked from the positions of the query's words in the entry's search
	// rows (every row keeps its positions: ToRows makes none without), or
	// from the text (a word longer than a lexeme).
	text, pos := "NULL::text", "NULL::text"
	if positions {
		pos = `CASE WHEN NOT ti.win THEN '1|' || ts_filter(setweight(ti.tsv, 'A', ` + kept("ti.tsv", len(prefixes) > 0) + `), '{a}')::text
			ELSE (SELECT string_agg((w.first + 1)::text || '|' || ts_filter(setweight(w.tsv, 'A', ` + kept("w.tsv", len(prefixes) > 0) + `), '{a}')::text, E'\n')
				FROM text_index w WHERE w.machine_id = e.machine_id AND w.file_id = e.file_id AND w.offset = e.offset) END`
	} else {
		text = "t.text"
		from += ` JOIN entry_text t ON t.machine_id = e.machine_id AND t.file_id = e.file_id AND t.offset = e.offset`
	}
	stmt := with + `
		SELECT e.machine_id, e.file_id, f.path, s.session_id, e.id, e.offset, e.line, COALESCE(e.role, e.type), e.ts_ms,
			s.name, s.first_message, s.cwd, mm.name, f.base, ` + text + `, ` + pos + `, ti.tokens, COALESCE(s.last_activity_ms, s.created_ms, f.mtime_ns / 1000000)
		FROM ` + from
	if where != "" {
		stmt += " WHERE " + where
	}
	// The SELECT's lexeme arguments come first in the text, then the
	// filters'.
	all := []any{ks.machines, ks.files, ks.offsets}
	if positions {
		keepArgs := []any{exact}
		if len(prefixes) > 0 {
			keepArgs = append(keepArgs, prefixes)
		}
		all = append(append(all, keepArgs...), keepArgs...)
	}
	all = append(all, fargs...)
	out, err := query.Collect(ctx, tx, "search", rebind(stmt, 4), all, func(c *candidate) []any {
		return []any{&c.machineID, &c.fileID, &c.Path, &c.SessionID, &c.EntryID, &c.Offset, &c.Line, &c.Role, &c.ts,
			&c.name, &c.fm, &c.Cwd, &c.Machine, &c.base, &c.text, &c.positions, &c.tokens, &c.modified}
	})
	for i := range out {
		c := &out[i]
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
	}
	return out, err
}

// score confirms each candidate against the query on its tokens (dropping
// the rare one the index could not decide and that does not match) and
// scores it as a local catalog does: a local index keeps no positions
// (migration 00010 of the SQLite catalog), so its score is fts.Rank of the
// query's terms and the entry's length in tokens, over the catalog's
// average length; the same function on the same figures gives the same
// number here.
func (r *Reader) score(ctx context.Context, tx *sqlx.Tx, q fts.Node, cs []candidate) ([]candidate, error) {
	if len(cs) == 0 {
		return cs, nil
	}
	var st struct {
		Rows   int64 `db:"rows"`
		Tokens int64 `db:"tokens"`
	}
	if err := tx.GetContext(ctx, &st, `SELECT COALESCE(sum(text_entries), 0)::bigint AS rows, COALESCE(sum(text_tokens), 0)::bigint AS tokens FROM push_state`); err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	avgdl := 1.0
	if st.Rows > 0 && st.Tokens > 0 {
		avgdl = float64(st.Tokens) / float64(st.Rows)
	}
	terms := len(fts.Highlights(q))
	out := cs[:0]
	var sp pgsearch.Sparse
	for _, c := range cs {
		var toks []string
		n := c.tokens
		if c.text != nil {
			toks = fts.Tokens(*c.text)
			n = int64(len(toks))
		} else {
			// The query's words at their positions in the entry's rows,
			// gaps between them kept: the entry's tokens as far as the query
			// can tell.
			sp.Reset()
			for _, row := range strings.Split(*c.positions, "\n") {
				first, tsv, _ := strings.Cut(row, "|")
				if at, err := strconv.ParseInt(first, 10, 64); err == nil {
					sp.Place(tsv, at-1)
				}
			}
			toks = sp.Stream()
		}
		// A window's match is decided here (a conjunction across windows, a
		// phrase longer than their overlap), and an over-long word's on the
		// text.
		if !pgsearch.Eval(q, toks) {
			continue
		}
		c.Score = fts.Rank(terms, float64(n), avgdl)
		out = append(out, c)
	}
	return out, nil
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
// first), with snippets: the local catalog's order (the sqlite package's).
func (r *Reader) Search(ctx context.Context, p *query.SearchPlan) ([]pidex.Hit, error) {
	capped := p.Capped()
	tx, err := r.searchTx(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	if inSQL(p.Query) {
		return r.searchSQL(ctx, tx, p)
	}
	cs, err := r.candidates(ctx, tx, p, capped)
	if err != nil {
		return nil, err
	}
	if cs, err = r.score(ctx, tx, p.Query, cs); err != nil {
		return nil, err
	}
	slices.SortFunc(cs, func(a, b candidate) int {
		if p.Newest {
			return cmp.Or(byTime(a.ts, b.ts), cmp.Compare(a.Score, b.Score), newer(&a, &b))
		}
		return cmp.Or(cmp.Compare(a.Score, b.Score), byTime(a.ts, b.ts), newer(&a, &b))
	})
	cs = cs[min(p.Offset, len(cs)):]
	cs = cs[:min(p.Limit, len(cs))]
	if err := texts(ctx, tx, cs); err != nil {
		return nil, err
	}
	terms := p.Terms()
	hits := make([]pidex.Hit, len(cs))
	for i := range cs {
		query.Snippet(&cs[i].Hit, *cs[i].text, terms)
		hits[i] = cs[i].Hit
	}
	return hits, nil
}

// texts reads the text of the candidates that were ranked without it
// (the page's hits, for their snippets).
func texts(ctx context.Context, tx *sqlx.Tx, cs []candidate) error {
	var ks keys
	for _, c := range cs {
		if c.text == nil {
			ks.add(c.machineID, c.fileID, c.Offset)
		}
	}
	if len(ks.files) == 0 {
		return nil
	}
	rows, err := tx.QueryContext(ctx, `SELECT t.file_id, t.offset, t.text FROM unnest($1::integer[], $2::bigint[], $3::bigint[]) AS k(machine_id, file_id, off)
		JOIN entry_text t ON t.machine_id = k.machine_id AND t.file_id = k.file_id AND t.offset = k.off`, ks.machines, ks.files, ks.offsets)
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
func (r *Reader) SearchSessions(ctx context.Context, p *query.SearchPlan) ([]pidex.SessionHits, error) {
	tx, err := r.searchTx(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	if inSQL(p.Query) {
		return r.searchSessionsSQL(ctx, tx, p)
	}
	cs, err := r.candidates(ctx, tx, p, false)
	if err != nil {
		return nil, err
	}
	if cs, err = r.score(ctx, tx, p.Query, cs); err != nil {
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
		if !p.Newest {
			key = cmp.Or(cmp.Compare(a.best, b.best), key)
		}
		return cmp.Or(key, strings.Compare(a.Path, b.Path), strings.Compare(a.Machine, b.Machine))
	})
	groups = groups[min(p.Offset, len(groups)):]
	groups = groups[:min(p.Limit, len(groups))]
	out := make([]pidex.SessionHits, len(groups))
	for i, g := range groups {
		out[i] = g.SessionHits
	}
	return out, nil
}
