package query

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/fts"
)

// countCTE is the matches without their scores: counting needs no score
// and no materialising.
const countCTE = `WITH RECURSIVE m(r) AS (SELECT rowid FROM text_index WHERE text_index MATCH ?)`

// confirmedCTE is matches confirmed on their lines (see Reader.confirm),
// as a JSON array of rowids.
const confirmedCTE = `WITH RECURSIVE m(r) AS MATERIALIZED (SELECT value FROM json_each(?))`

// SearchTotals counts the entries q and f match, and the sessions that
// hold them, up to pidex.CountCap entries (AtLeast: it stopped there), so
// that a word in every entry costs a bounded count, not a scan of them
// all. Limit and Offset are ignored: the totals are the whole answer's.
// A query the index cannot answer alone (a phrase: see fts.IndexMatch)
// counts its candidates confirmed on their lines, the newest first, up to
// the cap.
func (rd *Reader) SearchTotals(ctx context.Context, q fts.Node, f pidex.SearchFilter) (pidex.SearchTotals, error) {
	from, fargs := rd.searchFrom(f)
	expr, exact := fts.IndexMatch(q)
	cte, args := countCTE, []any{expr}
	if !exact {
		ids, err := rd.confirm(ctx, q, expr, f, pidex.CountCap+1)
		if err != nil {
			return pidex.SearchTotals{}, err
		}
		b, _ := json.Marshal(ids)
		cte, args = confirmedCTE, []any{string(b)}
	}
	if f.Active {
		cte += activeCTE
	} else {
		cte += "\n"
	}
	var t pidex.SearchTotals
	err := rd.db.QueryRowContext(ctx, cte+`SELECT count(*), count(DISTINCT file_id) FROM (SELECT e.file_id AS file_id FROM `+from+` LIMIT ?)`,
		append(append(args, fargs...), pidex.CountCap+1)...).Scan(&t.Hits, &t.Sessions)
	if err != nil {
		return t, fmt.Errorf("search: %w", err)
	}
	if t.Hits > pidex.CountCap {
		t.Hits, t.AtLeast = pidex.CountCap, true
	}
	return t, nil
}
