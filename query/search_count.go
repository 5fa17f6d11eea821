package query

import (
	"context"
	"fmt"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/fts"
)

// countCTE is the matches without their scores: counting needs no bm25,
// which costs about 3 µs a match, and no materialising.
const countCTE = `WITH RECURSIVE m(r) AS (SELECT rowid FROM text_index WHERE text_index MATCH ?)`

// SearchTotals counts the entries q and f match, and the sessions that
// hold them, up to pidex.CountCap entries (AtLeast: it stopped there), so
// that a word in every entry costs a bounded count, not a scan of them
// all. Limit and Offset are ignored: the totals are the whole answer's.
func (rd *Reader) SearchTotals(ctx context.Context, q fts.Node, f pidex.SearchFilter) (pidex.SearchTotals, error) {
	from, args := rd.searchFrom(q, f)
	cte := countCTE + "\n"
	if f.Active {
		cte = countCTE + activeCTE
	}
	var t pidex.SearchTotals
	err := rd.db.QueryRowContext(ctx, cte+`SELECT count(*), count(DISTINCT file_id) FROM (SELECT e.file_id AS file_id FROM `+from+` LIMIT ?)`,
		append(args, pidex.CountCap+1)...).Scan(&t.Hits, &t.Sessions)
	if err != nil {
		return t, fmt.Errorf("search: %w", err)
	}
	if t.Hits > pidex.CountCap {
		t.Hits, t.AtLeast = pidex.CountCap, true
	}
	return t, nil
}
