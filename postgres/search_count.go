package postgres

import (
	"context"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/query"
)

// SearchTotals counts the entries q and f match and the sessions holding
// them (query.Reader.SearchTotals' answer). The index's candidates are
// confirmed as Search confirms them (score drops the few it could not
// decide), so that a total never counts an entry a page would not show;
// past pidex.CountCap entries it says AtLeast.
func (r *Reader) SearchTotals(ctx context.Context, p *query.SearchPlan) (pidex.SearchTotals, error) {
	tx, err := r.searchTx(ctx)
	if err != nil {
		return pidex.SearchTotals{}, err
	}
	defer tx.Rollback()
	if inSQL(p.Query) {
		return r.searchTotalsSQL(ctx, tx, p)
	}
	cs, err := r.candidates(ctx, tx, p, false)
	if err != nil {
		return pidex.SearchTotals{}, err
	}
	if cs, err = r.score(ctx, tx, p.Query, cs); err != nil {
		return pidex.SearchTotals{}, err
	}
	more := len(cs) > pidex.CountCap
	if more {
		cs = cs[:pidex.CountCap]
	}
	files := map[int64]bool{}
	for _, c := range cs {
		files[c.fileID] = true
	}
	return pidex.SearchTotals{Hits: len(cs), Sessions: len(files), AtLeast: more}, nil
}
