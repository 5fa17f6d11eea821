package query

import (
	"context"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/fts"
	"github.com/pidex-dev/pidex/pi"
)

// Test seams: the reads by their checked filters (the options' Filter
// methods and the session lookup done), and the path walk's threshold.

func (rd *Reader) ListF(ctx context.Context, f pidex.ListFilter) ([]pidex.Session, error) {
	return rd.list(ctx, f)
}

func (rd *Reader) CountF(ctx context.Context, f pidex.ListFilter) (int, error) {
	return rd.count(ctx, f)
}

func (rd *Reader) CostF(ctx context.Context, f pidex.CostFilter) (*pidex.CostReport, error) {
	return rd.cost(ctx, f)
}

// SetRankCap lowers the newest matches a capped search page ranks.
func (rd *Reader) SetRankCap(n int) { rd.capAt = n }

func (rd *Reader) SearchF(ctx context.Context, q fts.Node, f pidex.SearchFilter) ([]pidex.Hit, error) {
	return rd.backend().Search(ctx, rd.planSearch(q, f))
}

func (rd *Reader) SearchSessionsF(ctx context.Context, q fts.Node, f pidex.SearchFilter) ([]pidex.SessionHits, error) {
	return rd.backend().SearchSessions(ctx, rd.planSearch(q, f))
}

func (rd *Reader) SearchTotalsF(ctx context.Context, q fts.Node, f pidex.SearchFilter) (pidex.SearchTotals, error) {
	return rd.backend().SearchTotals(ctx, rd.planSearch(q, f))
}

// Rebuild is the context rebuild, uncached.
func (rd *Reader) Rebuild(ctx context.Context, ref pidex.SessionRef, spec ContextSpec) (*pi.SessionContext, int, int, error) {
	return rd.rebuild(ctx, ref, spec)
}

func (rd *Reader) TreeOf(ctx context.Context, fileID int64) ([]*pidex.TreeNode, error) {
	return rd.tree(ctx, fileID)
}

func (rd *Reader) PathOf(ctx context.Context, fileID int64, leaf string) ([]pidex.Entry, error) {
	return rd.path(ctx, fileID, leaf)
}

func (rd *Reader) EntriesOf(ctx context.Context, fileID int64) ([]pidex.Entry, error) {
	return rd.entries(ctx, fileID)
}

// PreviewsOf are the previews of rows as a reader makes them from the
// lines, without the kept ones.
func PreviewsOf(ctx context.Context, b Backend, ref pidex.SessionRef, rows []pidex.Entry) (map[int64]string, error) {
	return previews(ctx, noKept{b}, ref, rows)
}

type noKept struct{ Backend }

func (noKept) Kept(pidex.SessionRef) Kept { return Kept{} }

// WalkInGoAt makes rd walk a path in Go from n entries on.
func WalkInGoAt(rd *Reader, n int64) { rd.walkAt = n }

func (rd *Reader) LabelsOf(ctx context.Context, fileID int64) ([]pidex.Label, error) {
	return rd.labels(ctx, fileID)
}
