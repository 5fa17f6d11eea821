// Package query is pidex's read side over the SQLite catalog: resolving
// session references, listings, trees and paths, search, cost reports,
// and entries read back from the session files by their offsets. It never
// writes the catalog's rows (it only hands back a read cache it had to
// make again: listing.go, costcache.go) and never imports the indexer:
// package engine refreshes the catalog first when an answer must be
// fresh, then asks a Reader.
package query

import (
	"context"

	"github.com/pidex-dev/pidex/sqlite"
)

// Reader answers questions about one catalog, for the sessions under its
// roots. It is safe for concurrent use.
type Reader struct {
	db    *sqlite.DB
	roots []string // absolute; none: every session of the catalog
	// keep stores a read cache the reader had to make again from the rows
	// (sqlite.DB.StoreCache; nil for a read-only catalog).
	keep func(ctx context.Context, name string, gen int64, data []byte) error
	// What the reader last decoded of its read caches (memo.go): the
	// listing (listing.go) and the rollups (costcache.go).
	listings *cacheMemo[[]listedRow]
	rollups  *cacheMemo[*rollupCache]
	// noCostCache: cost reports always run their SQL (tests compare the
	// two: costcache.go).
	noCostCache bool
}

// New returns a reader of db for the sessions under roots (absolute
// paths; none means every session the catalog holds).
func New(db *sqlite.DB, roots []string) *Reader {
	rd := &Reader{db: db, roots: roots, listings: &cacheMemo[[]listedRow]{}, rollups: &cacheMemo[*rollupCache]{}}
	if !db.ReadOnly {
		rd.keep = db.StoreCache
	}
	return rd
}

// Machines reports false: a local catalog is one machine's, and holds no
// machine names (a team catalog does: package postgres).
func (rd *Reader) Machines() bool { return false }
