package query_test

import (
	"context"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/sqlite"
	"github.com/pidex-dev/pidex/pi"
	"github.com/pidex-dev/pidex/query"
)

// exactContext is pi's context at leaf, every line read whole.
func exactContext(ctx context.Context, db *sqlite.DB, ref pidex.SessionRef, leaf string) (*pi.SessionContext, error) {
	sc, _, _, err := query.New(db, nil).Context(ctx, ref, query.ContextSpec{Leaf: leaf})
	return sc, err
}
