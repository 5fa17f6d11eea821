package sqlite

import (
	"context"

	"github.com/jmoiron/sqlx"

	"github.com/pidex-dev/pidex/query"
)

// Reader is the local catalog's side of the read layer (query.Backend):
// its rows through the catalog's pool, the listing and the rollups from
// their read caches, the FTS5 text index with matches confirmed on the
// lines, lines read back from the session files by their offsets, and
// ad-hoc SQL on a connection that cannot write. It is safe for
// concurrent use.
type Reader struct {
	db *DB
	// keep stores a read cache the reader had to make again from the rows
	// (DB.StoreCache; nil for a read-only catalog).
	keep func(ctx context.Context, name string, gen int64, data []byte) error
	// What the reader last decoded of its read caches (memo.go): the
	// listing (listing.go) and the rollups (costcache.go).
	listings *cacheMemo[[]query.SessionRow]
	blobs    *cacheMemo[[]byte] // a OneShot reader's listing blob (pageBlob)
	rollups  *cacheMemo[*rollupCache]
	o        ReaderOptions
}

var _ query.Backend = (*Reader)(nil)

// ReaderOptions tune a Reader: the zero value is pidex's own; tests turn
// them to reach what the defaults take other ways.
type ReaderOptions struct {
	// NoCostCache: cost reports always run their SQL, never the rollup
	// cache (costcache.go; a test compares the two).
	NoCostCache bool
	// ConfirmBudget: how many bytes of lines SearchTotals reads to confirm
	// a phrase's matches past its page (search_count.go; 0: 2 MiB).
	ConfirmBudget int64
}

// NewReader returns the read side of db.
func NewReader(db *DB, o ReaderOptions) *Reader {
	if o.ConfirmBudget == 0 {
		o.ConfirmBudget = confirmBudget
	}
	r := &Reader{db: db, listings: &cacheMemo[[]query.SessionRow]{}, blobs: &cacheMemo[[]byte]{}, rollups: &cacheMemo[*rollupCache]{}, o: o}
	if !db.ReadOnly {
		r.keep = db.StoreCache
	}
	return r
}

// Rows is the catalog's pool.
func (r *Reader) Rows() *sqlx.DB { return r.db.DB }

// Dialect is SQLite's.
func (r *Reader) Dialect() query.Dialect { return query.SQLite }
