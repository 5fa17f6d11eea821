package engine

import (
	"context"

	"github.com/pidex-dev/pidex/pi"
	"github.com/pidex-dev/pidex/query"
	"github.com/pidex-dev/pidex/schema"
)

// The read side, over the catalog as it is (callers refresh first, or
// resolve with Session, which does).

// List lists the sessions of the engine's roots (f.Roots is set to them).
func (e *Engine) List(ctx context.Context, f query.ListFilter) ([]query.SessionInfo, error) {
	f.Roots = e.Roots()
	return query.List(ctx, e.db.DB, f)
}

// Count is the number of sessions List would return without a limit.
func (e *Engine) Count(ctx context.Context, f query.ListFilter) (int, error) {
	f.Roots = e.Roots()
	return query.Count(ctx, e.db.DB, f)
}

// Info is one session's listing record (the fields of List).
func (e *Engine) Info(ctx context.Context, ref schema.SessionRef) (query.SessionInfo, error) {
	return query.Session(ctx, e.db.DB, ref.FileID)
}

// Tree is a session's entry tree, like pi's getTree().
func (e *Engine) Tree(ctx context.Context, ref schema.SessionRef) ([]*query.TreeNode, error) {
	return query.Tree(ctx, e.db.DB, ref.FileID)
}

// Previews are the one-line summaries of a session's entries, by offset.
func (e *Engine) Previews(ctx context.Context, ref schema.SessionRef) (map[int64]string, error) {
	return query.Previews(ctx, e.db.DB, ref)
}

// Path is the root-to-leaf path ("" = pi's leaf).
func (e *Engine) Path(ctx context.Context, ref schema.SessionRef, leaf string) ([]schema.PathEntry, error) {
	return query.Path(ctx, e.db.DB, ref.FileID, leaf)
}

// Context is the model context pi would rebuild at leaf ("" = pi's leaf).
func (e *Engine) Context(ctx context.Context, ref schema.SessionRef, leaf string) (*pi.SessionContext, error) {
	return query.Context(ctx, e.db.DB, ref, leaf)
}

// ContextWindow is ContextForReading (or, whole, Context) for a reader
// who sees only the entries of the branch that window picks
// (query.ContextWindow).
func (e *Engine) ContextWindow(ctx context.Context, ref schema.SessionRef, leaf string, whole bool,
	window query.Window) (*pi.SessionContext, int, int, error) {
	maxLine := int64(query.ShowMaxLine)
	if whole {
		maxLine = 0
	}
	return query.ContextWindow(ctx, e.db.DB, ref, leaf, maxLine, window)
}

// ContextForReading is Context with every line longer than
// query.ShowMaxLine read cut (query.ContextCut): what `pidex show` prints,
// in memory that does not grow with a huge line.
func (e *Engine) ContextForReading(ctx context.Context, ref schema.SessionRef, leaf string) (*pi.SessionContext, error) {
	return query.ContextCut(ctx, e.db.DB, ref, leaf, query.ShowMaxLine)
}

// Warnings lists every line that could not be read.
func (e *Engine) Warnings(ctx context.Context) ([]schema.Warning, error) {
	return query.Warnings(ctx, e.db.DB)
}

// Search returns the entries matching f, with snippets (f.Roots is set to
// the engine's roots).
func (e *Engine) Search(ctx context.Context, f query.SearchFilter) ([]query.Hit, error) {
	f.Roots = e.Roots()
	return query.Search(ctx, e.db.DB, f)
}

// SearchSessions returns the sessions matching f with their hit counts.
func (e *Engine) SearchSessions(ctx context.Context, f query.SearchFilter) ([]query.SessionHits, error) {
	f.Roots = e.Roots()
	return query.SearchSessions(ctx, e.db.DB, f)
}

// TextCoverage says how many of the sessions' bytes have their text
// indexed, of how many.
func (e *Engine) TextCoverage(ctx context.Context) (indexed, total int64, err error) {
	return query.TextCoverage(ctx, e.db.DB, e.Roots())
}

// Cost sums usage records (see query.Cost), under the engine's roots.
func (e *Engine) Cost(ctx context.Context, f query.CostFilter) (*query.CostReport, error) {
	f.Roots = e.Roots()
	return query.Cost(ctx, e.db.DB, f)
}
