package postgres

import (
	"context"
	"fmt"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/fts"
)

// SearchTotals counts the entries q and f match and the sessions holding
// them (query.Reader.SearchTotals' answer). The index's candidates are
// confirmed as Search confirms them (score drops the few it could not
// decide), so that a total never counts an entry a page would not show;
// past pidex.CountCap entries it says AtLeast.
func (r *Reader) SearchTotals(ctx context.Context, q fts.Node, f pidex.SearchFilter) (pidex.SearchTotals, error) {
	tx, err := r.searchTx(ctx)
	if err != nil {
		return pidex.SearchTotals{}, err
	}
	defer tx.Rollback()
	cs, err := r.candidates(ctx, tx, q, f, false)
	if err != nil {
		return pidex.SearchTotals{}, err
	}
	if cs, err = r.score(ctx, tx, q, cs); err != nil {
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

// SessionIDs lists the id of every session in the team catalog (every
// machine's): what a prefix must be unique among for Resolve.
func (r *Reader) SessionIDs(ctx context.Context) ([]string, error) {
	var ids []string
	if err := r.s.db.SelectContext(ctx, &ids, `SELECT DISTINCT session_id FROM sessions`); err != nil {
		return nil, fmt.Errorf("list session ids: %w", err)
	}
	return ids, nil
}
