package sqlite

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/fts"
	"github.com/pidex-dev/pidex/query"
)

// countCTE is the matches without their scores: counting needs no score
// and no materialising.
const countCTE = `WITH RECURSIVE m(r) AS ` + matchRows

// matchRows is the rowids of the entries the index's MATCH argument finds,
// as a CTE's body (in the index's order: callers that need the newest
// first ask for it).
const matchRows = `(SELECT rowid FROM text_index WHERE text_index MATCH ?)`

// confirmedCTE is matches confirmed on their lines (see confirmSome),
// as a JSON array of rowids.
const confirmedCTE = `WITH RECURSIVE m(r) AS MATERIALIZED (SELECT value FROM json_each(?))`

// SearchTotals counts the entries q and f match, and the sessions that
// hold them, up to pidex.CountCap entries (AtLeast: it stopped there), so
// that a word in every entry costs a bounded count, not a scan of them
// all. Limit and Offset are ignored: the totals are the whole answer's.
// A query the index cannot answer alone (a phrase: see fts.IndexMatch)
// counts its candidates confirmed on their lines (confirmSome), at least
// as many as the page needs: past a budget of lines read, the totals say
// "at least".
func (rd *Reader) SearchTotals(ctx context.Context, p *query.SearchPlan) (pidex.SearchTotals, error) {
	from, fargs := searchFrom(p)
	expr, exact := fts.IndexMatch(p.Query)
	cte, args := countCTE, []any{expr}
	complete := true
	if !exact {
		ids, all, err := rd.confirmSome(ctx, p, expr, p.Offset+p.Limit+1)
		if err != nil {
			return pidex.SearchTotals{}, err
		}
		b, _ := json.Marshal(ids)
		cte, args, complete = confirmedCTE, []any{string(b)}, all
	}
	cte += "\n"
	var t pidex.SearchTotals
	// The newest matches first, as a capped page takes them: FTS5 reads
	// its rowids backwards, and a filter the oldest matches fail (--since)
	// no longer goes through all of them before the cap (`--since
	// 2026-06-01 the` over 30,000 sessions: 4.4 s → 0.1 s).
	err := rd.db.QueryRowContext(ctx, cte+`SELECT count(*), count(DISTINCT file_id) FROM (SELECT e.file_id AS file_id FROM `+from+` ORDER BY m.r DESC LIMIT ?)`,
		append(append(args, fargs...), pidex.CountCap+1)...).Scan(&t.Hits, &t.Sessions)
	if err != nil {
		return t, fmt.Errorf("search: %w", err)
	}
	if t.Hits > pidex.CountCap {
		t.Hits, t.AtLeast = pidex.CountCap, true
	}
	if !complete {
		t.AtLeast = true
	}
	return t, nil
}

// confirmBudget is how many bytes of candidates' lines SearchTotals reads
// to confirm a phrase's matches past the page it needs (see confirmSome;
// a reader's own, which tests lower).
const confirmBudget = query.ConfirmBudget

// confirmSome confirms a loose query's candidates within f (see confirmer),
// the newest first (the page's order of candidates), until it has CountCap+1
// matches or has read confirmBudget bytes of lines and found at least
// need matches (a page's worth past the offset, so that the totals never
// say fewer hits than the page shows). all reports that every candidate
// was read: the count is exact (up to the cap), else at least that. A
// phrase whose words are in thousands of long tool outputs counted every
// candidate in seconds (`parse_header` on r3000: 6,449 candidates, 5 s).
func (rd *Reader) confirmSome(ctx context.Context, p *query.SearchPlan, expr string, need int) (ids []int64, all bool, err error) {
	// m first, in its order, each row joined to its entry only when it is
	// read (SQLite's CROSS JOIN keeps the order of the tables).
	from, args := searchFromJoin(p, "CROSS JOIN")
	// The newest candidates first, as FTS5 reads its posting lists
	// backwards, so that the rows are read, and joined to their entries,
	// only as far as the budget goes. Ordered shortest first, every
	// candidate was looked up in text_sizes and all of them sorted before
	// the first was read: a phrase of two common words over 30,000
	// sessions, 2.2 s (1.3 s of it those two steps), however few the
	// budget then read.
	// The order is the statement's own: SQLite flattens m into it, where
	// an ORDER BY inside m is dropped (the candidates then came oldest
	// first), and FTS5 gives the outer one its rowids backwards without
	// a sort.
	rows, err := rd.db.QueryContext(ctx, countCTE+`
		SELECT m.r, f.path, e.offset, e.length FROM `+from+` ORDER BY m.r DESC`,
		append([]any{expr}, args...)...)
	if err != nil {
		return nil, false, fmt.Errorf("search: %w", err)
	}
	defer rows.Close()
	cf := newConfirmer(p.Query)
	defer cf.close()
	ids = []int64{}
	var read int64
	for rows.Next() {
		if err := ctx.Err(); err != nil {
			return nil, false, err
		}
		var r, offset, length int64
		var path string
		if err := rows.Scan(&r, &path, &offset, &length); err != nil {
			return nil, false, fmt.Errorf("search: %w", err)
		}
		if len(ids) > pidex.CountCap || (read+length > rd.o.ConfirmBudget && len(ids) >= need) {
			return ids, false, nil
		}
		read += length
		if cf.match(path, offset, length) {
			ids = append(ids, r)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, false, fmt.Errorf("search: %w", err)
	}
	return ids, true, nil
}
