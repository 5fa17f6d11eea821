package engine

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/indexer"
	"github.com/pidex-dev/pidex/internal/fts"
	"github.com/pidex-dev/pidex/internal/readside"
	"github.com/pidex-dev/pidex/internal/view"
	"github.com/pidex-dev/pidex/pi"
)

// The read side. Each method answers from the catalog as it is: a face
// refreshes first (Refresh, with its progress) when an answer must be
// fresh. Options are checked and their defaults applied by their Filter
// methods (package pidex); a bad value is a *pidex.OptionError.

// Vocabulary is what options may name (search role groups, usage
// sources), from the registry of kinds and roles (package pi).
func (e *Engine) Vocabulary() pidex.Vocabulary { return Vocabulary() }

// Vocabulary is what options may name, before any catalog is open (a
// shell completion, a flag's help): every Engine's Vocabulary.
func Vocabulary() pidex.Vocabulary { return pi.Vocabulary() }

// List lists the sessions of the engine's roots.
func (e *Engine) List(ctx context.Context, o pidex.ListOptions) ([]pidex.Session, error) {
	f, err := o.Filter()
	if err != nil {
		return nil, err
	}
	if err := e.machines(f.Machine, nil); err != nil {
		return nil, err
	}
	return e.backend().List(ctx, f)
}

// Count is the number of sessions List would return without its limit
// and offset: the length of a listing shown a page at a time.
func (e *Engine) Count(ctx context.Context, o pidex.ListOptions) (int, error) {
	f, err := o.Filter()
	if err != nil {
		return 0, err
	}
	if err := e.machines(f.Machine, nil); err != nil {
		return 0, err
	}
	return e.backend().Count(ctx, f)
}

// Info is one session's listing record (the fields of List).
func (e *Engine) Info(ctx context.Context, ref pidex.SessionRef) (pidex.Session, error) {
	return e.backend().Session(ctx, ref.FileID)
}

// Tree is a session's entry tree, like pi's getTree(): children ordered
// by timestamp, file order breaking ties.
func (e *Engine) Tree(ctx context.Context, ref pidex.SessionRef, o pidex.TreeOptions) ([]*pidex.TreeNode, error) {
	roots, err := e.backend().Tree(ctx, ref.FileID)
	if err != nil || !o.PathOnly {
		return roots, err
	}
	return pathOnly(roots), nil
}

// pathOnly keeps only the nodes on the way to the leaf. Iterative: a
// conversation is as deep as it is long.
func pathOnly(roots []*pidex.TreeNode) []*pidex.TreeNode {
	keep := map[*pidex.TreeNode]bool{}
	parent := map[*pidex.TreeNode]*pidex.TreeNode{}
	stack := append([]*pidex.TreeNode(nil), roots...)
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if n.Leaf {
			for m := n; m != nil && !keep[m]; m = parent[m] {
				keep[m] = true
			}
		}
		for _, c := range n.Children {
			parent[c] = n
			stack = append(stack, c)
		}
	}
	prune := func(ns []*pidex.TreeNode) []*pidex.TreeNode {
		out := []*pidex.TreeNode{}
		for _, n := range ns {
			if keep[n] {
				out = append(out, n)
			}
		}
		return out
	}
	for n := range keep {
		n.Children = prune(n.Children)
	}
	return prune(roots)
}

// Previews are the one-line summaries of a session's entries, by offset
// (pi.Preview). They are kept between calls: reading them decodes every
// line of the file, and a session file only grows, so a later call reads
// only the new entries.
func (e *Engine) Previews(ctx context.Context, ref pidex.SessionRef) (map[int64]string, error) {
	rows, err := e.backend().Entries(ctx, ref.FileID)
	if err != nil {
		return nil, err
	}
	return e.previews.previews(ctx, e.backend(), ref, rows)
}

// Path is the root-to-leaf path ("" = pi's leaf, the last entry of the
// file).
func (e *Engine) Path(ctx context.Context, ref pidex.SessionRef, leaf string) ([]pidex.Entry, error) {
	path, err := e.backend().Path(ctx, ref.FileID, leaf)
	return path, entryNotFound(err, ref, leaf)
}

// Context is the model context pi would rebuild at leaf ("" = pi's leaf),
// exactly: every line is read whole.
func (e *Engine) Context(ctx context.Context, ref pidex.SessionRef, leaf string) (*pidex.Context, error) {
	sc, _, _, err := e.context(ctx, ref, readside.ContextSpec{Leaf: leaf})
	if err != nil {
		return nil, err
	}
	return &sc.Context, nil
}

// EntryObjects are the entries of the path to leaf as pi holds them after
// loading, each a JSON object with pidex's annotations (`pidex show
// --json`; see pi.PathItem). Every line is read whole.
func (e *Engine) EntryObjects(ctx context.Context, ref pidex.SessionRef, leaf string) ([]json.RawMessage, error) {
	sc, _, _, err := e.context(ctx, ref, readside.ContextSpec{Leaf: leaf})
	if err != nil {
		return nil, err
	}
	out := make([]json.RawMessage, len(sc.Path))
	for i := range sc.Path {
		if out[i], err = sc.Path[i].MarshalJSON(); err != nil {
			return nil, fmt.Errorf("write entry at line %d: %w", sc.Path[i].Entry.Line, err)
		}
	}
	return out, nil
}

// Read is a session for reading (see pidex.Document): the entries of the
// branch to o.Leaf, or the messages of its model context, a window of
// them if o.Window says so.
func (e *Engine) Read(ctx context.Context, ref pidex.SessionRef, o pidex.ReadOptions) (*pidex.Document, error) {
	spec := readside.ContextSpec{Leaf: o.Leaf}
	if !o.Whole {
		spec.MaxLine, spec.MaxString = pidex.ReadCutLine, pidex.ReadCutString
	}
	if o.Context {
		spec.Messages = o.Window // only the entries of the messages shown are read whole
	} else {
		spec.Window = o.Window // only the entries shown are read whole
	}
	info, err := e.backend().Session(ctx, ref.FileID)
	if err != nil {
		return nil, err
	}
	sc, from, to, err := e.contextOf(ctx, ref, info, spec)
	if err != nil {
		return nil, err
	}
	if o.Context {
		return view.ContextDocument(ref, info, sc, o.Window), nil
	}
	return view.BranchDocument(ref, info, sc, from, to), nil
}

// context rebuilds (or finds kept) the context of a branch: the one way
// every read of a session's content goes.
func (e *Engine) context(ctx context.Context, ref pidex.SessionRef, spec readside.ContextSpec) (*pi.SessionContext, int, int, error) {
	info, err := e.backend().Session(ctx, ref.FileID)
	if err != nil {
		return nil, 0, 0, err
	}
	return e.contextOf(ctx, ref, info, spec)
}

// contextOf is context for a session whose listing record (info: its
// size and entries key the cache) the caller has read already.
func (e *Engine) contextOf(ctx context.Context, ref pidex.SessionRef, info pidex.Session, spec readside.ContextSpec) (*pi.SessionContext, int, int, error) {
	key := contextKey{path: ref.Path, machine: ref.Machine, size: info.SizeBytes, entries: info.EntryCount, spec: spec}
	sc, from, to, err := e.contexts.get(key, func() (*pi.SessionContext, int, int, error) {
		return readside.Context(ctx, e.backend(), ref, spec)
	})
	return sc, from, to, entryNotFound(err, ref, spec.Leaf)
}

// Warnings lists every line that could not be read.
// A catalog made by an earlier pidex may hold the decoder's own words for
// a line ("cannot unmarshal number into Go struct field …"): they are said
// again as the format's (indexer.Reword).
func (e *Engine) Warnings(ctx context.Context) ([]pidex.Warning, error) {
	ws, err := e.backend().Warnings(ctx)
	for i := range ws {
		ws[i].Message = indexer.Reword(ws[i].Message)
	}
	return ws, err
}

// Search returns the entries matching o, best first (or newest first),
// with snippets.
func (e *Engine) Search(ctx context.Context, o pidex.SearchOptions) ([]pidex.Hit, error) {
	q, f, err := e.searchFilter(ctx, o)
	if err != nil {
		return nil, err
	}
	return e.backend().Search(ctx, q, f)
}

// SearchSessions returns the sessions matching o with their number of
// matching entries, best match first (or most recently modified first).
func (e *Engine) SearchSessions(ctx context.Context, o pidex.SearchOptions) ([]pidex.SessionHits, error) {
	q, f, err := e.searchFilter(ctx, o)
	if err != nil {
		return nil, err
	}
	return e.backend().SearchSessions(ctx, q, f)
}

// SearchTotals counts the entries o matches and the sessions holding
// them, past any page (up to pidex.CountCap entries).
func (e *Engine) SearchTotals(ctx context.Context, o pidex.SearchOptions) (pidex.SearchTotals, error) {
	q, f, err := e.searchFilter(ctx, o)
	if err != nil {
		return pidex.SearchTotals{}, err
	}
	return e.backend().SearchTotals(ctx, q, f)
}

// Marker is the highlighter of a search query: it marks the words the
// query matches in any text, as a hit's snippet marks them (folding case
// and accents, code as typed, CJK inside running text).
func (e *Engine) Marker(query string) (pidex.Marker, error) {
	q, err := fts.Parse(query)
	if err != nil {
		return nil, err
	}
	terms := fts.Highlights(q)
	return func(text string) []pidex.Segment { return fts.Mark(text, terms) }, nil
}

func (e *Engine) searchFilter(ctx context.Context, o pidex.SearchOptions) (fts.Node, pidex.SearchFilter, error) {
	f, err := o.Filter(e.Vocabulary())
	if err != nil {
		return nil, f, err
	}
	if err := e.machines(f.Machine, nil); err != nil {
		return nil, f, err
	}
	q, err := fts.Parse(o.Query)
	if err != nil {
		return nil, f, err
	}
	f.FileID, err = e.fileOf(ctx, o.Session, f.Machine)
	return q, f, err
}

// fileOf resolves a session filter ("": none), on machine ("": any).
func (e *Engine) fileOf(ctx context.Context, session, machine string) (int64, error) {
	if session == "" {
		return 0, nil
	}
	ref, err := e.backend().Resolve(ctx, session, machine)
	return ref.FileID, err
}

// TextCoverage says how many of the sessions' bytes have their text
// indexed, of how many (the text pass runs behind the metadata); 0 of 0
// when none is behind (view.Coverage says nothing then).
func (e *Engine) TextCoverage(ctx context.Context) (indexed, total int64, err error) {
	return e.backend().TextCoverage(ctx)
}

// Cost sums the usage records o selects (see docs/cost.md).
func (e *Engine) Cost(ctx context.Context, o pidex.CostOptions) (*pidex.CostReport, error) {
	f, err := o.Filter(e.Vocabulary())
	if err != nil {
		return nil, err
	}
	if err := e.machines(f.Machine, f.By); err != nil {
		return nil, err
	}
	if f.FileID, err = e.fileOf(ctx, o.Session, f.Machine); err != nil {
		return nil, err
	}
	return e.backend().Cost(ctx, f)
}

// SQL runs one read-only statement on the catalog's views, on a
// connection of its own that cannot change anything (see query.SQLConn
// and pgstore's read-only transactions), and returns its rows (at most
// o.MaxRows).
func (e *Engine) SQL(ctx context.Context, o pidex.SQLOptions) (*pidex.Rows, error) {
	c := &pidex.RowCollector{Max: o.MaxRows}
	if err := e.SQLStream(ctx, o, c); err != nil {
		return nil, err
	}
	return &c.Rows, nil
}

// SQLStream runs one read-only statement as SQL does, handing each row to
// sink as it is read (o.MaxRows does not apply: sink stops when it wants),
// so that a result of any size costs the memory of a row.
func (e *Engine) SQLStream(ctx context.Context, o pidex.SQLOptions, sink pidex.RowSink) error {
	if err := o.Check(); err != nil {
		return err
	}
	return e.backend().SQL(ctx, o, sink)
}
