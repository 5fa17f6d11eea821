package engine

import (
	"context"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/fts"
	"github.com/pidex-dev/pidex/internal/readside"
)

// Backend is the read side of a catalog: what the engine asks, in the
// domain's types. Two implement it: query.Reader over the local SQLite
// catalog (entry lines read back from the session files) and
// postgres.Reader over a team catalog in PostgreSQL (entry lines from its
// entry_lines table). What is not SQL — the context rebuild from lines,
// previews, trees, sort rules, snippets, bm25, the folding of cost sums —
// lives in package readside and is called by both, so they answer alike.
//
// Filters arrive checked (the options' Filter methods); the engine
// refuses a machine filter on a backend without machines (Machines).
type Backend interface {
	readside.ContextSource // Lines, Path, Facts

	// Resolve finds one session by, in order: file path, full session
	// id, unique id prefix, or unique session name; machine ("": any)
	// narrows it to one machine's files. No match is pidex.ErrNotFound;
	// several are a *pidex.AmbiguousError, with the candidates.
	Resolve(ctx context.Context, ref, machine string) (pidex.SessionRef, error)
	// List returns the sessions matching f, newest first by default;
	// Count how many match (its sort, limit and offset aside).
	List(ctx context.Context, f pidex.ListFilter) ([]pidex.Session, error)
	Count(ctx context.Context, f pidex.ListFilter) (int, error)
	// Session is one session's listing record.
	Session(ctx context.Context, fileID int64) (pidex.Session, error)
	// Tree is a session's entry tree (readside.BuildTree); Entries its
	// entries in file order.
	Tree(ctx context.Context, fileID int64) ([]*pidex.TreeNode, error)
	Entries(ctx context.Context, fileID int64) ([]pidex.Entry, error)
	// Search returns the entries matching q and f, best first (or newest
	// first), with snippets; SearchSessions one row per session with its
	// number of matching entries.
	Search(ctx context.Context, q fts.Node, f pidex.SearchFilter) ([]pidex.Hit, error)
	SearchSessions(ctx context.Context, q fts.Node, f pidex.SearchFilter) ([]pidex.SessionHits, error)
	// SearchTotals counts the entries q and f match past any page, and
	// the sessions holding them, up to pidex.CountCap entries.
	SearchTotals(ctx context.Context, q fts.Node, f pidex.SearchFilter) (pidex.SearchTotals, error)
	// SessionIDs lists every session id of the catalog: what a short id
	// must be unique among (pidex.ShortIDs).
	SessionIDs(ctx context.Context) ([]string, error)
	// TextCoverage says how much of the sessions' bytes have their text
	// in the search index (locally the text pass runs behind the
	// metadata); 0 of 0 when none is behind, which it need not count.
	TextCoverage(ctx context.Context) (indexed, total int64, err error)
	// Cost sums the usage records f selects.
	Cost(ctx context.Context, f pidex.CostFilter) (*pidex.CostReport, error)
	// Warnings lists every line the catalog skipped, by file and line.
	Warnings(ctx context.Context) ([]pidex.Warning, error)
	// SQL runs one read-only statement on the catalog's views (checked by
	// pidex.SQLOptions.Check first), with its timeout.
	SQL(ctx context.Context, o pidex.SQLOptions, sink pidex.RowSink) error
	// Machines reports whether the catalog holds several machines' files
	// (a team catalog): only then do machine filters and the machine key
	// apply.
	Machines() bool
}
