package query

import (
	"context"

	"github.com/jmoiron/sqlx"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/pi"
)

// Backend is what differs between the two catalogs, and only that: the
// local SQLite catalog (package sqlite) and a team catalog in PostgreSQL
// (package postgres) each implement it, checked at compile time. Every
// rule of reading — which rows a filter selects, how a session is looked
// up, how a cost report is selected and folded, how a context is rebuilt
// — is written once in this package, and its statements run on either
// catalog through Rows in the catalog's Dialect.
type Backend interface {
	// Rows is the catalog's SQL handle: the statements this package writes
	// ('?' placeholders, rebound for the driver) run on it.
	Rows() *sqlx.DB
	// Dialect is how the catalog spells what SQLite and PostgreSQL do not
	// agree on, and whether it holds several machines' files.
	Dialect() Dialect

	// Sessions are the listed sessions p selects, sorted and paged as p
	// says (all of them, and only their number when p.Count). A catalog
	// may answer from a cache of its rows, with p's filters tested in Go:
	// the rows are then the cache's, to be read, never changed.
	Sessions(ctx context.Context, p *ListPlan) ([]*SessionRow, int, error)
	// Usage sums the usage rows p selects, per the report's keys: the
	// rollups' whole buckets and, at the edges, single records.
	Usage(ctx context.Context, p *CostPlan) ([]CostPart, error)

	// The text index: the entries p's query and filters match, best first
	// (or newest), with snippets; one row per session with its number of
	// matches; how many match past any page.
	Search(ctx context.Context, p *SearchPlan) ([]pidex.Hit, error)
	SearchSessions(ctx context.Context, p *SearchPlan) ([]pidex.SessionHits, error)
	SearchTotals(ctx context.Context, p *SearchPlan) (pidex.SearchTotals, error)

	// Lines reads entries' lines back, decoded, from wherever the catalog
	// keeps them (the session files; a team catalog's line_chunks). A line
	// longer than maxLine bytes (0: no limit) is read as a stream and kept
	// cut (its strings keep maxString bytes, see jsonl.Shrink), so that
	// memory does not grow with the longest line. A line that is not the
	// entry the catalog says (the file changed since) is
	// pidex.ErrFileChanged.
	Lines(ctx context.Context, ref pidex.SessionRef, rows []pidex.Entry, maxLine int64, maxString int) ([]pi.Entry, error)
	// Kept is what the catalog keeps of a session beside its rows and
	// lines: previews made at ingest, oh-my-pi's image blobs.
	Kept(ref pidex.SessionRef) Kept

	// SQL runs one read-only statement (checked already) on the catalog's
	// views, on a connection that cannot change anything; the views show
	// the sessions under roots (none: every session, as a team catalog's
	// always do).
	SQL(ctx context.Context, o pidex.SQLOptions, roots []string, sink pidex.RowSink) error
}

// Kept is what a catalog keeps of a session beside its rows and lines
// (a nil function: nothing of that kind).
type Kept struct {
	// Previews are the entries' previews made when they were ingested
	// (pi.Preview), by offset: a tree shown without reading a line.
	Previews func(ctx context.Context) (map[int64]KeptPreview, error)
	// Blob reads an oh-my-pi image blob by its hash.
	Blob func(hash string) ([]byte, bool)
}
