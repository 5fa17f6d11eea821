package postgres

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/jmoiron/sqlx"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/fts"
	"github.com/pidex-dev/pidex/internal/pgsearch"
	"github.com/pidex-dev/pidex/query"
)

// A search whose matches PostgreSQL decides alone (inSQL: no word longer
// than a lexeme, no phrase longer than the windows' overlap; ToRows writes
// every row with its positions) is answered within the page: the server
// finds, filters, ranks and pages the matches, and the client reads the
// page's rows only. The score is a local catalog's (fts.Rank of the
// query's terms and the entry's length in tokens, over the average
// length): for one query it grows with the length, so the server orders
// by the length, and the page's scores are computed here, the same
// function on the same figures as locally (to the bit). A common word's
// hundreds of thousands of matches never leave the server; before, every
// one was sent with its positions to be confirmed and ranked here
// (`the` over 1.3 GB: 6 s of client CPU, 456 MB).

// inSQL reports whether PostgreSQL decides q's matches alone.
func inSQL(q fts.Node) bool {
	tq := pgsearch.ToQuery(q, "text_index", keyCols, 2)
	return !tq.Truncated && !tq.Long
}

// args numbers a statement's arguments as they are added.
type args []any

// add appends v and returns its placeholder.
func (a *args) add(v any) string {
	*a = append(*a, v)
	return "$" + strconv.Itoa(len(*a))
}

// where appends the plan's filters, their placeholders numbered on.
func (a *args) where(p *query.SearchPlan) string {
	w, fargs := p.Where.SQL(query.Postgres)
	if w == "" {
		return ""
	}
	w = rebind(w, len(*a)+1)
	*a = append(*a, fargs...)
	return w
}

// keyCols are an entry's key columns, its machine first: every
// machine-owned table's keys lead with machine_id (migration 00011), so
// that a lookup by them is an index scan (on a partitioned catalog, of
// its machine's partition only); by file and offset alone it read the
// whole table.
const keyCols = `machine_id, file_id, "offset"`

// inFiles is text_index restricted to the files of the array arguments
// machines (integer[]) and files (bigint[]): file ids are unique over the
// catalog, so the machines only let the primary key (and the partitions)
// be used.
func inFiles(machines, files string) string {
	return `(SELECT * FROM text_index WHERE machine_id = ANY(` + machines + `::integer[]) AND file_id = ANY(` + files + `::bigint[])) t`
}

// matchTable is the search rows p's matches are looked for in: a
// session's own when p searches one (`--session X the` over 20 machines
// had looked at every match of the catalog: 334 ms, 34 ms locally),
// else the whole table.
func (a *args) matchTable(p *query.SearchPlan) string {
	if p.FileID == 0 {
		return "text_index"
	}
	id := a.add(p.FileID)
	return `(SELECT * FROM text_index WHERE machine_id = (SELECT machine_id FROM files WHERE id = ` + id + `) AND file_id = ` + id + `) t`
}

// matchSQL is the statement of the entries matching n (keyCols): the
// one-row entries by tsv @@ query (GIN), the windowed ones by set
// operations on their keys.
func (a *args) matchSQL(n fts.Node) string { return a.matchSQLIn(n, "text_index") }

// matchSQLIn is matchSQL within table (inFiles, or text_index whole).
func (a *args) matchSQLIn(n fts.Node, table string) string {
	tq := pgsearch.ToQuery(n, table, keyCols, len(*a)+2)
	p := a.add(tq.TSQuery)
	*a = append(*a, tq.Args...)
	return `SELECT ` + keyCols + ` FROM ` + table + ` WHERE NOT win AND tsv @@ ` + p + `::tsquery
		UNION ALL SELECT ` + keyCols + ` FROM (` + tq.Windows + `) w`
}

// confirmSQL is the condition that the candidate entry h (columns
// machine_id, file_id, off, win: its part-0 row's) matches n: a one-row
// entry's row holds every position, so tsv @@ query decides a phrase; a
// windowed entry is one of the windows' answer, those of table (inFiles).
func (a *args) confirmSQL(n fts.Node, table string) string {
	tq := pgsearch.ToQuery(n, table, keyCols, len(*a)+2)
	p := a.add(tq.TSQuery)
	*a = append(*a, tq.Args...)
	return `((NOT h.win AND (SELECT x.tsv @@ ` + p + `::tsquery FROM text_index x
			WHERE x.machine_id = h.machine_id AND x.file_id = h.file_id AND x."offset" = h.off AND x.part = 0))
		OR (h.win AND (h.machine_id, h.file_id, h.off) IN (SELECT ` + keyCols + ` FROM (` + tq.Windows + `) w)))`
}

// keys are entries' keys, column by column.
type keys struct {
	machines       []int32
	files, offsets []int64
}

func (k *keys) add(machine int32, file, off int64) {
	k.machines, k.files, k.offsets = append(k.machines, machine), append(k.files, file), append(k.offsets, off)
}

// hitFrom is the FROM clause joining the matches (c) to their entries,
// files, machines, sessions, part-0 search rows (rows: for their length
// and positions) and, for an active-branch search, the entries on each
// session's current path. Each is joined by the match's own key, the
// entries first: joined after the files and sessions, the planner looked
// each match's entry up by machine and file alone and filtered the
// file's every entry by offset (the count of `deadlock` over 20 machines:
// 2.3 million rows read for 2,323 matches, 0.55 s; 35 ms so). The tables
// after the entries are then read by their primary keys (EXPLAIN over 20
// machines, 2026-12): a plan that expected one row from the three-column
// join once read them whole for each match instead (0.87 s for `the`
// over 4 machines, before the keys led with machine_id), which the
// equality suite would not see but bench/pgpush.sh would.
func hitFrom(p *query.SearchPlan, rows bool) string {
	from := `m c
		` + joinEntry + `
		` + joinFile + `
		` + joinMachine + `
		` + joinSession
	if rows {
		from += ` ` + joinRow
	}
	if p.Active {
		from += ` AND ` + activeOn("e")
	}
	return from
}

// A match c's entry, session, part-0 search row, file and machine, each
// by c's key (hitFrom, and the statements that need fewer of them: see
// unfiltered and filterFrom).
const (
	joinEntry   = `JOIN entries e ON e.machine_id = c.machine_id AND e.file_id = c.file_id AND e.offset = c.offset`
	joinSession = `JOIN sessions s ON s.machine_id = c.machine_id AND s.file_id = c.file_id`
	joinRow     = `JOIN text_index ti ON ti.machine_id = c.machine_id AND ti.file_id = c.file_id AND ti.offset = c.offset AND ti.part = 0`
	joinFile    = `JOIN files f ON f.machine_id = c.machine_id AND f.id = c.file_id`
	joinMachine = `JOIN machines mm ON mm.id = c.machine_id`
)

// filterFrom is the matches c joined to what p's filters read, in the
// order that drops a match soonest: its file and machine first when a
// filter names them (--machine), else its session before its entry when
// one names the session (--project), then the rest of its entry, session
// and (rows) part-0 search row. Each filter is tested as soon as its
// table is joined (PostgreSQL pushes a condition down to the first join
// that has its columns), so a match another filter drops is never looked
// up further, and the file and machine of a match no filter names are
// read for the page's rows only (pageCut). Joined as hitFrom joins
// (entries, files, machines, sessions), `--project proj-03 the` over 20
// machines looked each of 188,000 matches up four times (over 2 minutes
// with the plan the misestimate chose; 1,000 ms by keys).
func filterFrom(p *query.SearchPlan, rows bool) string {
	joins := []string{"m c"}
	if !rows && len(p.Where) == 0 {
		// Nothing filters, or the branch alone (activeIf tests the match's
		// key): the session only, which a match needs to count, and no
		// lookup of its entry (the count of `the`: 10,001 matches, 63 → 35
		// ms).
		return strings.Join(append(joins, joinSession), "\n\t\t\t")
	}
	if p.Where.Needs("f") {
		joins = append(joins, joinFile, joinMachine)
	}
	if p.Where.Needs("s") {
		joins = append(joins, joinSession, joinEntry)
	} else {
		joins = append(joins, joinEntry, joinSession)
	}
	if rows {
		joins = append(joins, joinRow)
	}
	return strings.Join(joins, "\n\t\t\t")
}

// activeIf is activeOn the match c for an active-branch search, else
// nothing (with filterFrom, which may leave the entry out).
func activeIf(p *query.SearchPlan) string {
	if p.Active {
		return activeOn("c")
	}
	return ""
}

// unfiltered reports whether nothing filters p's matches (where: its
// filters' SQL): a search row's entry, file and machine exist (foreign
// keys), so a statement over its matches need not look them up for each
// match, but only for the rows it returns. (The sessions are looked up:
// a match counts only in a file that is a session, as hitFrom joins it.)
func unfiltered(p *query.SearchPlan, where string) bool { return where == "" && !p.Active }

// withMatches is the WITH clause of the matches m: the capped candidates
// (keys, confirmed in the statement's WHERE by the returned condition) or
// every match.
func (a *args) withMatches(p *query.SearchPlan, ks *keys) (with, confirm string) {
	if ks != nil {
		machines, files := a.add(ks.machines), a.add(ks.files)
		with = `WITH RECURSIVE m(` + keyCols + `) AS (SELECT * FROM unnest(` + machines + `::integer[], ` + files + `::bigint[], ` + a.add(ks.offsets) + `::bigint[]))`
		if _, exact := fts.Loose(p.Query); !exact {
			confirm = a.confirmSQL(p.Query, inFiles(`ARRAY(SELECT DISTINCT unnest(`+machines+`::integer[]))`, `ARRAY(SELECT DISTINCT unnest(`+files+`::bigint[]))`))
		}
	} else {
		with = `WITH RECURSIVE m AS MATERIALIZED (` + a.matchSQLIn(p.Query, a.matchTable(p)) + `)`
	}
	return with, confirm
}

// and joins conditions of a WHERE clause.
func and(conds ...string) string {
	out := ""
	for _, c := range conds {
		switch {
		case c == "":
		case out == "":
			out = " WHERE " + c
		default:
			out += " AND " + c
		}
	}
	return out
}

// pageSQL reads a search's page: the matches among keys (nil: all of
// them) within the plan's filters, in the local catalog's order (see
// Search), Limit of them past Offset.
func (r *Reader) pageSQL(ctx context.Context, tx *sqlx.Tx, p *query.SearchPlan, ks *keys) ([]candidate, error) {
	var a args
	with, confirm := a.withMatches(p, ks)
	where := a.where(p)
	first, rest := `tokens, ts_ms DESC NULLS LAST`, `, path DESC, machine DESC, off DESC`
	if p.Newest {
		first = `ts_ms DESC NULLS LAST, tokens`
	}
	order := first + rest
	// The candidates in the page's order, then (a phrase's) confirmed as
	// the page's LIMIT reads them: the shortest first, as a local catalog
	// confirms them, so that the positions of a few dozen entries are read,
	// not of all 5,000 (1.2 s for "if err != nil").
	var stmt string
	if confirm == "" {
		stmt = with + a.pageCut(p, first, order, where)
	} else {
		stmt = with + `
		SELECT machine_id, file_id, path, session_id, id, off, line, role, ts_ms, name, first_message, cwd, machine, tokens FROM (
			SELECT e.machine_id, e.file_id, f.path, s.session_id, e.id, e.offset AS off, e.line, COALESCE(e.role, e.type) AS role, e.ts_ms,
				s.name, s.first_message, s.cwd, mm.name AS machine, ti.tokens, ti.win
			FROM ` + hitFrom(p, true) + and(where) + `
			ORDER BY ` + order + ` OFFSET 0) h` + and(confirm) + `
		ORDER BY ` + order + ` LIMIT ` + a.add(p.Limit) + ` OFFSET ` + a.add(p.Offset)
	}
	// Each candidate to its rows by their keys: the planner, expecting a
	// handful of rows from joins on two columns, otherwise scanned the
	// whole search table to confirm a phrase (2.2 s for "the test").
	if err := set(ctx, tx, nested...); err != nil {
		return nil, err
	}
	out, err := query.Collect(ctx, tx, "search", stmt, a, func(c *candidate) []any {
		return []any{&c.machineID, &c.fileID, &c.Path, &c.SessionID, &c.EntryID, &c.Offset, &c.Line, &c.Role, &c.ts,
			&c.name, &c.fm, &c.Cwd, &c.Machine, &c.tokens}
	})
	for i := range out {
		out[i].fill()
	}
	return out, err
}

// pageCut is pageSQL's statement after its WITH clause when nothing
// confirms the matches: the matches within the filters (where, and the
// active branch), joined as filterFrom joins them, are cut by the order's
// first two keys (first: length and time, or time and length), with
// their ties, and only those rows are joined to their files and machines
// for the rest of the order (`the`: two of five lookups for each of 5,000
// candidates). A search row's file and machine exist (foreign keys), so
// the cut drops no match.
func (a *args) pageCut(p *query.SearchPlan, first, order, where string) string {
	return `
		SELECT h.machine_id, h.file_id, f.path, h.session_id, h.id, h.off, h.line, h.role, h.ts_ms, h.name, h.first_message, h.cwd, mm.name AS machine, h.tokens FROM (
			SELECT e.machine_id, e.file_id, s.session_id, e.id, e.offset AS off, e.line, COALESCE(e.role, e.type) AS role, e.ts_ms,
				s.name, s.first_message, s.cwd, ti.tokens
			FROM ` + filterFrom(p, true) + and(where, activeIf(p)) + `
			ORDER BY ` + first + ` FETCH FIRST (` + a.add(p.Offset+p.Limit) + `::bigint) ROWS WITH TIES) h
		JOIN files f ON f.machine_id = h.machine_id AND f.id = h.file_id
		JOIN machines mm ON mm.id = f.machine_id
		ORDER BY ` + order + ` LIMIT ` + a.add(p.Limit) + ` OFFSET ` + a.add(p.Offset)
}

// fill sets the hit's fields read as nullable columns.
func (c *candidate) fill() {
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

// nested are the settings of a statement that reads its matches' rows
// one by one, by their keys, in the order its FROM clause joins them (the
// matches first): expecting four rows from the join on two columns, the
// planner otherwise put the 4,000 files outside and went over 40,000
// matches for each (16 s). Sequential scans off too: a filter the planner
// thinks leaves one match (`--role user`) made it scan the 4,000 files and
// sessions once for each of 18,000 matches (9 s for `the`, 1.1 s by keys).
var nested = []string{"enable_hashjoin = off", "enable_mergejoin = off", "max_parallel_workers_per_gather = 0", "join_collapse_limit = 1",
	"enable_material = off", "enable_seqscan = off"}

// set changes planner settings for the transaction's next statements.
func set(ctx context.Context, tx *sqlx.Tx, settings ...string) error {
	for _, v := range settings {
		if _, err := tx.ExecContext(ctx, `SET LOCAL `+v); err != nil {
			return fmt.Errorf("search: %w", err)
		}
	}
	return nil
}

// avgLen is bm25's average entry length in tokens over the catalog.
func avgLen(ctx context.Context, tx *sqlx.Tx) (float64, error) {
	var st struct {
		Rows   int64 `db:"rows"`
		Tokens int64 `db:"tokens"`
	}
	if err := tx.GetContext(ctx, &st, `SELECT COALESCE(sum(text_entries), 0)::bigint AS rows, COALESCE(sum(text_tokens), 0)::bigint AS tokens FROM push_state`); err != nil {
		return 0, fmt.Errorf("search: %w", err)
	}
	if st.Rows > 0 && st.Tokens > 0 {
		return float64(st.Tokens) / float64(st.Rows), nil
	}
	return 1, nil
}

// searchSQL is Search for a query PostgreSQL decides alone (inSQL). A
// plain search's first pages rank the newest RankCap loose candidates,
// confirmed (a local catalog's rule); when they give fewer hits than the
// page asks for while there may be more (files outside the filters took
// places), every match is ranked, as locally.
func (r *Reader) searchSQL(ctx context.Context, tx *sqlx.Tx, p *query.SearchPlan) ([]pidex.Hit, error) {
	var cs []candidate
	var err error
	all := !p.Capped()
	if !all {
		ks, err := r.newestShared(ctx, tx, p)
		if err != nil {
			return nil, err
		}
		if cs, err = r.pageSQL(ctx, tx, p, &ks); err != nil {
			return nil, err
		}
		all = len(cs) < p.Limit && len(ks.files) >= p.Cap
	}
	if all {
		if cs, err = r.pageSQL(ctx, tx, p, nil); err != nil {
			return nil, err
		}
	}
	avgdl, err := avgLen(ctx, tx)
	if err != nil {
		return nil, err
	}
	if err := texts(ctx, tx, cs); err != nil {
		return nil, err
	}
	terms := p.Terms()
	hits := make([]pidex.Hit, len(cs))
	for i := range cs {
		cs[i].Score = fts.Rank(len(terms), float64(cs[i].tokens), avgdl)
		query.Snippet(&cs[i].Hit, *cs[i].text, terms)
		hits[i] = cs[i].Hit
	}
	return hits, nil
}

// searchSessionsSQL is SearchSessions for a query PostgreSQL decides
// alone: the matches grouped by session in the server, each session's
// best match its shortest entry (the lowest score), the page's sessions
// read.
func (r *Reader) searchSessionsSQL(ctx context.Context, tx *sqlx.Tx, p *query.SearchPlan) ([]pidex.SessionHits, error) {
	var a args
	with, _ := a.withMatches(p, nil)
	where := a.where(p)
	order := "modified DESC, f.path, mm.name"
	if !p.Newest {
		order = "g.best, " + order
	}
	from := hitFrom(p, true)
	if unfiltered(p, where) {
		// Each match's search row alone, for its length; the sessions,
		// files and machines once a session (goroutine* over 20 machines:
		// 17,153 matches in 2,416 sessions: the command 340 → 238 ms).
		from = `m c ` + joinRow
		// By key, one by one (see nested): expecting few matches, the
		// planner hashed the whole search table (1.8 s), and expecting
		// one session, it read all of them for each (2.7 s).
		if err := set(ctx, tx, nested...); err != nil {
			return nil, err
		}
	}
	stmt := with + `,
		g AS (SELECT c.machine_id, c.file_id, count(*) AS hits, min(ti.tokens) AS best FROM ` + from + and(where) + ` GROUP BY c.machine_id, c.file_id)
		SELECT f.path, s.session_id, s.name, COALESCE(s.first_message, '(no messages)'), g.hits, mm.name, s.cwd,
			COALESCE(s.last_activity_ms, s.created_ms, f.mtime_ns / 1000000) AS modified
		FROM g JOIN sessions s ON s.machine_id = g.machine_id AND s.file_id = g.file_id
		JOIN files f ON f.machine_id = g.machine_id AND f.id = g.file_id JOIN machines mm ON mm.id = f.machine_id
		ORDER BY ` + order + ` LIMIT ` + a.add(p.Limit) + ` OFFSET ` + a.add(p.Offset)
	type row struct {
		pidex.SessionHits
		modified int64
	}
	rows, err := query.Collect(ctx, tx, "search", stmt, a, func(h *row) []any {
		return []any{&h.Path, &h.SessionID, &h.Name, &h.FirstMessage, &h.Hits, &h.Machine, &h.Cwd, &h.modified}
	})
	out := make([]pidex.SessionHits, len(rows))
	for i, h := range rows {
		out[i] = h.SessionHits
		out[i].Modified = pidex.Time(h.modified)
	}
	return out, err
}

// searchTotalsSQL is SearchTotals for a query PostgreSQL decides alone:
// the matches within the filters counted by the server, up to
// pidex.CountCap (and the sessions of the first CountCap+1, as a local
// catalog counts them).
func (r *Reader) searchTotalsSQL(ctx context.Context, tx *sqlx.Tx, p *query.SearchPlan) (pidex.SearchTotals, error) {
	if _, exact := fts.Loose(p.Query); !exact {
		return r.searchTotalsLoose(ctx, tx, p)
	}
	if p.Recent && p.FileID == 0 {
		return r.searchTotalsNewest(ctx, tx, p)
	}
	var a args
	with := `WITH RECURSIVE m AS (` + a.matchSQLIn(p.Query, a.matchTable(p)) + `)`
	where := a.where(p)
	stmt := with + `
		SELECT count(*), count(DISTINCT file_id) FROM (SELECT c.file_id FROM ` + filterFrom(p, false) + and(where, activeIf(p)) + ` LIMIT ` + a.add(pidex.CountCap+1) + `) x`
	// Matches joined one by one and counted as they come, stopping at the
	// cap: the planner expects a handful of matches from the join on two
	// columns and hashed every entry (1.5 s for `the` over 1.3 GB, 0.24 s
	// so), and a parallel plan ran the windows' query beside the one-row
	// entries' however few the cap needed; and the matches by the GIN
	// index (see seqscan: three common words ANDed, fewer than the cap,
	// were tested row by row over the whole table, 28 s).
	if err := set(ctx, tx, nested...); err != nil {
		return pidex.SearchTotals{}, err
	}
	var t pidex.SearchTotals
	if err := tx.QueryRowContext(ctx, stmt, a...).Scan(&t.Hits, &t.Sessions); err != nil {
		return t, fmt.Errorf("search: %w", err)
	}
	if t.Hits > pidex.CountCap {
		t.Hits, t.AtLeast = pidex.CountCap, true
	}
	return t, nil
}

// searchTotalsNewest counts as searchTotalsSQL does, over the newest
// CountCap+1 matches within the filters, gathered file batch by file
// batch (newestLoose). For a lower bound on time (SearchPlan.Recent) the
// newest files hold the matches that pass, where the one statement reads
// the GIN index's matches in the pushes' order, oldest first, and tests
// most of them (`--since 2026-08-01 the` over 20 machines: 188,000
// matches, 0.7 s). Other filters keep matches of any age, and there the
// one statement wins (ten thousand keys gathered in batches cost more).
func (r *Reader) searchTotalsNewest(ctx context.Context, tx *sqlx.Tx, p *query.SearchPlan) (pidex.SearchTotals, error) {
	changes, err := catalogChanges(ctx, tx)
	if err != nil {
		return pidex.SearchTotals{}, err
	}
	q := *p
	q.Cap = pidex.CountCap + 1
	ks, err := r.newestLoose(ctx, tx, &q)
	if err != nil {
		return pidex.SearchTotals{}, err
	}
	r.memo.keep(p, changes, ks, q.Cap)
	files := map[int64]bool{}
	for _, f := range ks.files {
		files[f] = true
	}
	t := pidex.SearchTotals{Hits: len(ks.files), Sessions: len(files)}
	if t.Hits > pidex.CountCap {
		t.Hits, t.AtLeast = pidex.CountCap, true
	}
	return t, nil
}
