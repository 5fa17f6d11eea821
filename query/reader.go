// Package query is pidex's read side, one layer for both catalogs: every
// read in the domain's types (pidex.Catalog) — listings, lookups, trees
// and paths, the context rebuild, documents for reading, search, cost
// reports, SQL — written once over a Backend, which the local SQLite
// catalog (package sqlite) and a team catalog in PostgreSQL (package
// postgres) implement. A filter, a lookup rule or a cost selection is
// defined here once (where.go), and from that definition come each
// catalog's SQL and the test on the rows a read cache holds.
//
// It never writes a catalog and never imports the indexer: the engine
// refreshes a local catalog first when an answer must be fresh, then
// asks a Reader.
package query

import (
	"sync"
	"sync/atomic"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/pi"
)

// Reader answers every read of one catalog (pidex.Catalog), keeping what
// is costly to rebuild (previews, contexts) between calls. Its catalog
// and roots may change under it (Set): the engine's do when it rebuilds
// the catalog or follows new projects. It is safe for concurrent use.
type Reader struct {
	scope    atomic.Pointer[scope]
	setting  sync.Mutex // serialises Set and SetRoots
	previews previewCache
	contexts contextCache
	walkAt   int64 // pathWalkAt; tests lower it
	capAt    int   // RankCap when 0; tests lower it
}

// rankCap is the newest matches a capped search page ranks (RankCap).
func (rd *Reader) rankCap() int {
	if rd.capAt > 0 {
		return rd.capAt
	}
	return RankCap
}

// scope is the catalog a reader reads and the roots its listings,
// searches and reports cover (absolute; none: every session). Lookups
// cover the whole catalog.
type scope struct {
	b     Backend
	roots []string
}

var _ pidex.Catalog = (*Reader)(nil)

// New returns a reader of b for the sessions under roots (absolute paths;
// none means every session the catalog holds).
func New(b Backend, roots []string) *Reader {
	rd := &Reader{walkAt: pathWalkAt}
	rd.Set(b, roots)
	return rd
}

// Set makes the reader read b, for the sessions under roots.
func (rd *Reader) Set(b Backend, roots []string) {
	rd.setting.Lock()
	defer rd.setting.Unlock()
	rd.scope.Store(&scope{b: b, roots: append([]string(nil), roots...)})
}

// SetRoots makes the reader's listings, searches and reports cover the
// sessions under roots, on the same catalog.
func (rd *Reader) SetRoots(roots []string) {
	rd.setting.Lock()
	defer rd.setting.Unlock()
	rd.scope.Store(&scope{b: rd.backend(), roots: append([]string(nil), roots...)})
}

func (rd *Reader) backend() Backend { return rd.scope.Load().b }

func (rd *Reader) roots() []string { return rd.scope.Load().roots }

// Vocabulary is what options may name (search role groups, usage
// sources), from the registry of kinds and roles (package pi).
func (rd *Reader) Vocabulary() pidex.Vocabulary { return pi.Vocabulary() }
