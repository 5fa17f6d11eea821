package postgres

import (
	"context"
	"fmt"
	"sync"

	"github.com/jmoiron/sqlx"

	"github.com/pidex-dev/pidex/query"
)

// newestMemo keeps the newest matches a search's totals last gathered
// within a lower time bound (searchTotalsNewest), so that the page of the
// same search takes its newest Cap from them instead of gathering them
// again (the CLI, serve and MCP ask for the totals, then the page: the
// page's batch was 85 ms of `--since 2026-08-01 the` over 20 machines).
// The keys hold while the team catalog has not changed: every push
// transaction that changes it bumps push_state's count (changesSQL), read
// before the keys are gathered and again before they are taken.
type newestMemo struct {
	mu      sync.Mutex
	plan    string
	changes int64
	keys    keys
	all     bool // every match within the filters (fewer than gathered for)
}

// memoPlan names what the newest keys depend on: the loose query, the
// filters' SQL and arguments, and the branch.
func memoPlan(p *query.SearchPlan) string {
	var a args
	where := a.where(p)
	return fmt.Sprintf("%s\x00%s\x00%#v\x00%v", p.Query.Match(), where, []any(a), p.Active)
}

// catalogChanges reads the team catalog's change count in tx.
func catalogChanges(ctx context.Context, tx *sqlx.Tx) (int64, error) {
	var n int64
	if err := tx.GetContext(ctx, &n, changesSQL); err != nil {
		return 0, fmt.Errorf("search: %w", err)
	}
	return n, nil
}

// keep records ks, the newest n matches asked for of plan p, gathered
// when the catalog's change count was changes.
func (m *newestMemo) keep(p *query.SearchPlan, changes int64, ks keys, n int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.plan, m.changes, m.keys, m.all = memoPlan(p), changes, ks, len(ks.files) < n
}

// take returns the newest p.Cap matches of p from the memo, when it holds
// them for the catalog as it is.
func (m *newestMemo) take(ctx context.Context, tx *sqlx.Tx, p *query.SearchPlan) (keys, bool, error) {
	m.mu.Lock()
	plan, changes, ks, all := m.plan, m.changes, m.keys, m.all
	m.mu.Unlock()
	if plan != memoPlan(p) || (len(ks.files) < p.Cap && !all) {
		return keys{}, false, nil
	}
	now, err := catalogChanges(ctx, tx)
	if err != nil || now != changes {
		return keys{}, false, err
	}
	n := min(p.Cap, len(ks.files))
	return keys{machines: ks.machines[:n], files: ks.files[:n], offsets: ks.offsets[:n]}, true, nil
}

// newestShared is newestLoose, from the memo when the totals of the same
// search gathered them (SearchPlan.Recent).
func (r *Reader) newestShared(ctx context.Context, tx *sqlx.Tx, p *query.SearchPlan) (keys, error) {
	if p.Recent {
		ks, ok, err := r.memo.take(ctx, tx, p)
		if err != nil || ok {
			return ks, err
		}
	}
	return r.newestLoose(ctx, tx, p)
}
