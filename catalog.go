package pidex

import (
	"context"
	"encoding/json"
)

// Catalog is every read of a catalog, in the domain's types: what the
// faces (the CLI, the web server, the MCP server) ask. Package query
// implements it over either catalog (the local SQLite one, a team
// catalog in PostgreSQL); a face depends on this interface only. Options
// are checked, and their defaults applied, by their Filter methods: a bad
// value is an *OptionError.
type Catalog interface {
	// Vocabulary is what options may name (search role groups, usage
	// sources), from the registry of kinds and roles.
	Vocabulary() Vocabulary
	// Team reports whether the catalog holds several machines' sessions
	// (a team catalog); CheckMachine refuses a machine filter where it
	// does not.
	Team() bool
	CheckMachine(machine string) error

	// Resolve finds the session a reference names: a file path, a full
	// session id, a unique id prefix or a unique session name, among
	// machine's sessions ("": any machine's). No match is a
	// *NotFoundError, several an *AmbiguousError.
	Resolve(ctx context.Context, ref, machine string) (SessionRef, error)
	// Suggest lists sessions a reference that matched none may have
	// meant, at most n.
	Suggest(ctx context.Context, ref string, n int) ([]Session, error)
	// Handles are the references that open exactly each of refs' files,
	// in their order: the session id (its shortest unique prefix when
	// short), and @N where several files hold that id. Resolve takes them.
	Handles(ctx context.Context, refs []SessionRef, short bool) ([]string, error)
	// Resume is the command that continues a session in the agent that
	// wrote it (NewResume): o.Leaf must be one of its entries.
	Resume(ctx context.Context, ref SessionRef, o ResumeOptions) (*Resume, error)

	// List lists the sessions o selects; Count says how many there are
	// past any page.
	List(ctx context.Context, o ListOptions) ([]Session, error)
	Count(ctx context.Context, o ListOptions) (int, error)
	// Info is one session's listing record; Overview the session at a
	// glance (its subagents in Session.Subagents); Subagents the sessions
	// it started, in the order they started, each with its own.
	Info(ctx context.Context, ref SessionRef) (Session, error)
	Overview(ctx context.Context, ref SessionRef) (*Overview, error)
	Subagents(ctx context.Context, ref SessionRef) ([]Session, error)

	// Tree is a session's entry tree (pi's getTree); Previews the one-line
	// summaries of its entries, by offset; Path the entries from the root
	// to leaf ("": pi's leaf); BranchThrough the leaf of the branch a
	// reader expects when jumping to an entry.
	Tree(ctx context.Context, ref SessionRef, o TreeOptions) ([]*TreeNode, error)
	Previews(ctx context.Context, ref SessionRef) (map[int64]string, error)
	Path(ctx context.Context, ref SessionRef, leaf string) ([]Entry, error)
	BranchThrough(ctx context.Context, ref SessionRef, entryID string) (string, error)

	// Context is the model context pi would rebuild at leaf, exactly;
	// EntryObjects hands each of the path's entries as pi holds them to
	// each, in order (show --json: a stream, so that a session of any size
	// is written in the memory of a few of its lines); Read a session for
	// reading.
	Context(ctx context.Context, ref SessionRef, leaf string) (*Context, error)
	EntryObjects(ctx context.Context, ref SessionRef, leaf string, each func(json.RawMessage) error) error
	Read(ctx context.Context, ref SessionRef, o ReadOptions) (*Document, error)

	// Search finds the entries o matches; SearchSessions the sessions with
	// how many; SearchTotals counts them past any page; Marker highlights
	// a query's words in any text; TextCoverage says how much of the text
	// is indexed yet.
	Search(ctx context.Context, o SearchOptions) ([]Hit, error)
	SearchSessions(ctx context.Context, o SearchOptions) ([]SessionHits, error)
	SearchTotals(ctx context.Context, o SearchOptions) (SearchTotals, error)
	Marker(query string) (Marker, error)
	TextCoverage(ctx context.Context) (indexed, total int64, err error)

	// Cost sums the usage records o selects; Abandoned is what a session
	// spent on the branches its user left.
	Cost(ctx context.Context, o CostOptions) (*CostReport, error)
	Abandoned(ctx context.Context, ref SessionRef) (cost float64, calls int64, err error)
	// Stats is the activity report o selects: how the work went (turns,
	// tools and their failures, stop reasons, time, context), docs/stats.md.
	Stats(ctx context.Context, o StatsOptions) (*StatsReport, error)

	// SQL runs one read-only statement on the catalog's views (at most
	// o.MaxRows rows); SQLStream hands each row to sink as it is read.
	SQL(ctx context.Context, o SQLOptions) (*Rows, error)
	SQLStream(ctx context.Context, o SQLOptions, sink RowSink) error

	// Warnings lists every line the catalog could not read.
	Warnings(ctx context.Context) ([]Warning, error)
}

// Live is a catalog that says when it changed: a local catalog's watcher
// refreshed it, or a push changed a team catalog.
type Live interface {
	// Subscribe returns a channel that receives every change, and a
	// function that ends the subscription. A subscriber that falls behind
	// misses events: an event only says "the catalog changed, ask again".
	Subscribe() (<-chan Event, func())
}

// Event is one refresh done by a watcher, or (a team catalog) a push
// seen.
type Event struct {
	Stats *IndexStats
	Err   error
	// Pushed: a push changed the team catalog.
	Pushed bool
}

// Changed reports whether the refresh (or push) changed the catalog.
func (ev Event) Changed() bool { return ev.Pushed || ev.Stats.Changed() }
