package query_test

import (
	"context"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/pi"
	"github.com/pidex-dev/pidex/query"
	"github.com/pidex-dev/pidex/sqlite"
)

// exactContext is pi's context at leaf, every line read whole.
func exactContext(ctx context.Context, db *sqlite.DB, ref pidex.SessionRef, leaf string) (*pi.SessionContext, error) {
	sc, _, _, err := newReader(db, nil).Rebuild(ctx, ref, query.ContextSpec{Leaf: leaf})
	return sc, err
}

// newReader is the read layer over a local catalog, for the sessions
// under roots (none: every session).
func newReader(db *sqlite.DB, roots []string) *query.Reader {
	return query.New(sqlite.NewReader(db, sqlite.ReaderOptions{}), roots)
}
