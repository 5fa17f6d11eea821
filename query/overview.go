package query

import (
	"context"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/view"
	"github.com/pidex-dev/pidex/pi"
)

// Overview is one session at a glance (see pidex.Overview): its listing
// record, branch points with where each branch ends, labels, compactions,
// and the cost of the branches the user left. It reads from the file only
// the entries it shows, so it stays fast on the largest sessions.
func (rd *Reader) Overview(ctx context.Context, ref pidex.SessionRef) (*pidex.Overview, error) {
	info, err := rd.Info(ctx, ref)
	if err != nil {
		return nil, err
	}
	roots, err := rd.tree(ctx, ref.FileID)
	if err != nil {
		return nil, err
	}
	path, err := rd.path(ctx, ref.FileID, "")
	if err != nil {
		return nil, err
	}
	onPath := make(map[string]bool, len(path))
	for _, p := range path {
		onPath[p.ID] = true
	}
	shown, compactions := view.OverviewNeeds(roots)
	// The backend's lines: a team catalog's files are not on this machine.
	previews, err := previews(ctx, rd.backend(), ref, shown)
	if err != nil {
		return nil, err
	}
	read, err := rd.backend().Lines(ctx, ref, compactions, overviewCutLine, overviewCutString)
	if err != nil {
		return nil, err
	}
	byOffset := make(map[int64]*pi.Entry, len(read))
	for i := range read {
		byOffset[read[i].Offset] = &read[i]
	}
	if info.Subagents, err = rd.Subagents(ctx, ref); err != nil {
		return nil, err
	}
	o := view.Overview(view.OverviewParts{Info: info, Roots: roots, OnPath: onPath, Previews: previews, Compactions: byOffset})
	if o.AbandonedCost, o.AbandonedCalls, err = rd.Abandoned(ctx, ref); err != nil {
		return nil, err
	}
	return o, nil
}

// Abandoned is what a session spent on branches left behind: its own
// calls (every copy it holds, like its total) off its current branch.
func (rd *Reader) Abandoned(ctx context.Context, ref pidex.SessionRef) (cost float64, calls int64, err error) {
	f, err := pidex.CostOptions{By: []string{"source"}, Branch: pidex.BranchAbandoned, NoDedup: true}.Filter(rd.Vocabulary())
	if err != nil {
		return 0, 0, err
	}
	f.FileID = ref.FileID // the session named already: no lookup by path
	rep, err := rd.cost(ctx, f)
	if err != nil {
		return 0, 0, err
	}
	return rep.Totals.Cost, rep.Totals.Calls, nil
}

// A compaction's line is read for its token count and first kept entry,
// not its summary (the preview has it): long lines are cut.
const (
	overviewCutLine   = 16 << 10
	overviewCutString = 2 << 10
)

// BranchThrough is the leaf of the branch a reader expects when jumping
// to an entry (a search hit): the session's current leaf when it lies
// below the entry, else the newest-written continuation. An unknown entry
// is pidex.ErrNotFound.
func (rd *Reader) BranchThrough(ctx context.Context, ref pidex.SessionRef, entryID string) (string, error) {
	roots, err := rd.tree(ctx, ref.FileID)
	if err != nil {
		return "", err
	}
	n := view.Find(roots, entryID)
	if n == nil {
		return "", &pidex.NotFoundError{Entry: entryID, Session: ref.SessionID}
	}
	return view.BranchLeaf(n), nil
}

// Suggest lists sessions a reference that matched none may have meant, at
// most n: those whose name contains it (ignoring case), else the most
// recently modified. A face shows them with its "not found".
func (rd *Reader) Suggest(ctx context.Context, ref string, n int) ([]pidex.Session, error) {
	if ref != "" {
		named, err := rd.List(ctx, pidex.ListOptions{Where: pidex.Where{"name": ref}, Limit: n})
		if err != nil || len(named) > 0 {
			return named, err
		}
	}
	return rd.List(ctx, pidex.ListOptions{Limit: n})
}
