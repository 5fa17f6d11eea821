package redact

import (
	"context"
	"encoding/json"
	"strings"
	"sync"

	"github.com/pidex-dev/pidex"
)

// Catalog is a catalog whose every answer is redacted (Value): what pidex
// serve --redact and pidex mcp --redact read, so that a face shows no
// secret whatever it asks. The questions pass as they are: a search for
// a secret's own text still finds its entry (shown redacted), so a
// reader who knows a secret can confirm that it is there.
//
// A session's path is redacted too (a working directory may hold a
// secret, and pi names its sessions' folder after it): the paths it
// shows are remembered, so that a reference it gave (a SessionRef, a
// path) still opens the session.
type Catalog struct {
	pidex.Catalog
}

// shownPaths are the paths the catalogs showed redacted: redacted path →
// the path (a path names a file whatever catalog shows it).
var shownPaths sync.Map

// Wrap is cat with its answers redacted. Its Subscribe is cat's, when it
// is live.
func Wrap(cat pidex.Catalog) *Catalog { return &Catalog{Catalog: cat} }

// shown is a path as the catalog shows it, remembered.
func (c *Catalog) shown(path string) string {
	safe, n := String(path)
	if n > 0 {
		shownPaths.Store(safe, path)
	}
	return safe
}

// real is the path a shown one stands for.
func (c *Catalog) real(path string) string {
	if p, ok := shownPaths.Load(path); ok {
		return p.(string)
	}
	return path
}

// ref is a reference the catalog gave, as the wrapped catalog knows it.
func (c *Catalog) ref(r pidex.SessionRef) pidex.SessionRef {
	r.Path = c.real(r.Path)
	return r
}

// Subscribe passes on the changes of a live catalog (none otherwise).
func (c *Catalog) Subscribe() (<-chan pidex.Event, func()) {
	if l, ok := c.Catalog.(pidex.Live); ok {
		return l.Subscribe()
	}
	ch := make(chan pidex.Event)
	return ch, func() {}
}

// clean redacts an answer, remembering the paths of session files it
// redacted.
func clean[T any](v T, err error) (T, error) {
	if err != nil {
		return v, err
	}
	out, _ := value(v, func(from, to string) {
		if strings.HasSuffix(from, ".jsonl") {
			shownPaths.Store(to, from)
		}
	})
	return out, nil
}

func (c *Catalog) Suggest(ctx context.Context, ref string, n int) ([]pidex.Session, error) {
	return c.sessions(c.Catalog.Suggest(ctx, ref, n))
}

func (c *Catalog) Resolve(ctx context.Context, ref, machine string) (pidex.SessionRef, error) {
	r, err := c.Catalog.Resolve(ctx, c.real(ref), machine)
	if err != nil {
		return r, err
	}
	r.Path = c.shown(r.Path)
	r.Name, _ = Text(r.Name)
	return r, nil
}

func (c *Catalog) Handles(ctx context.Context, refs []pidex.SessionRef, short bool) ([]string, error) {
	real := make([]pidex.SessionRef, len(refs))
	for i, r := range refs {
		real[i] = c.ref(r)
	}
	return clean(c.Catalog.Handles(ctx, real, short))
}

func (c *Catalog) BranchThrough(ctx context.Context, ref pidex.SessionRef, entryID string) (string, error) {
	return c.Catalog.BranchThrough(ctx, c.ref(ref), entryID)
}

func (c *Catalog) Abandoned(ctx context.Context, ref pidex.SessionRef) (float64, int64, error) {
	return c.Catalog.Abandoned(ctx, c.ref(ref))
}

func (c *Catalog) Resume(ctx context.Context, ref pidex.SessionRef, o pidex.ResumeOptions) (*pidex.Resume, error) {
	return clean(c.Catalog.Resume(ctx, c.ref(ref), o))
}

func (c *Catalog) List(ctx context.Context, o pidex.ListOptions) ([]pidex.Session, error) {
	return c.sessions(c.Catalog.List(ctx, o))
}

// sessions redacts a listing, remembering its paths.
func (c *Catalog) sessions(ss []pidex.Session, err error) ([]pidex.Session, error) {
	for _, s := range ss {
		c.shown(s.Path)
	}
	return clean(ss, err)
}

func (c *Catalog) Info(ctx context.Context, ref pidex.SessionRef) (pidex.Session, error) {
	return clean(c.Catalog.Info(ctx, c.ref(ref)))
}

func (c *Catalog) Overview(ctx context.Context, ref pidex.SessionRef) (*pidex.Overview, error) {
	return clean(c.Catalog.Overview(ctx, c.ref(ref)))
}

func (c *Catalog) Subagents(ctx context.Context, ref pidex.SessionRef) ([]pidex.Session, error) {
	return c.sessions(c.Catalog.Subagents(ctx, c.ref(ref)))
}

func (c *Catalog) Tree(ctx context.Context, ref pidex.SessionRef, o pidex.TreeOptions) ([]*pidex.TreeNode, error) {
	return clean(c.Catalog.Tree(ctx, c.ref(ref), o))
}

func (c *Catalog) Previews(ctx context.Context, ref pidex.SessionRef) (map[int64]string, error) {
	return clean(c.Catalog.Previews(ctx, c.ref(ref)))
}

func (c *Catalog) Path(ctx context.Context, ref pidex.SessionRef, leaf string) ([]pidex.Entry, error) {
	return clean(c.Catalog.Path(ctx, c.ref(ref), leaf))
}

func (c *Catalog) Context(ctx context.Context, ref pidex.SessionRef, leaf string) (*pidex.Context, error) {
	return clean(c.Catalog.Context(ctx, c.ref(ref), leaf))
}

func (c *Catalog) EntryObjects(ctx context.Context, ref pidex.SessionRef, leaf string, each func(json.RawMessage) error) error {
	return c.Catalog.EntryObjects(ctx, c.ref(ref), leaf, func(o json.RawMessage) error {
		o, _ = clean(o, nil)
		return each(o)
	})
}

func (c *Catalog) Read(ctx context.Context, ref pidex.SessionRef, o pidex.ReadOptions) (*pidex.Document, error) {
	return clean(c.Catalog.Read(ctx, c.ref(ref), o))
}

func (c *Catalog) Search(ctx context.Context, o pidex.SearchOptions) ([]pidex.Hit, error) {
	o.Session = c.real(o.Session)
	hits, err := c.Catalog.Search(ctx, o)
	for _, h := range hits {
		c.shown(h.Path)
	}
	return clean(hits, err)
}

func (c *Catalog) SearchSessions(ctx context.Context, o pidex.SearchOptions) ([]pidex.SessionHits, error) {
	o.Session = c.real(o.Session)
	hits, err := c.Catalog.SearchSessions(ctx, o)
	for _, h := range hits {
		c.shown(h.Path)
	}
	return clean(hits, err)
}

func (c *Catalog) Cost(ctx context.Context, o pidex.CostOptions) (*pidex.CostReport, error) {
	o.Session = c.real(o.Session)
	return clean(c.Catalog.Cost(ctx, o))
}

func (c *Catalog) Stats(ctx context.Context, o pidex.StatsOptions) (*pidex.StatsReport, error) {
	o.Session = c.real(o.Session)
	return clean(c.Catalog.Stats(ctx, o))
}

func (c *Catalog) SQL(ctx context.Context, o pidex.SQLOptions) (*pidex.Rows, error) {
	return clean(c.Catalog.SQL(ctx, o))
}

func (c *Catalog) SQLStream(ctx context.Context, o pidex.SQLOptions, sink pidex.RowSink) error {
	return c.Catalog.SQLStream(ctx, o, rowSink{sink})
}

func (c *Catalog) Warnings(ctx context.Context) ([]pidex.Warning, error) {
	return clean(c.Catalog.Warnings(ctx))
}

// rowSink redacts each row on its way to sink.
type rowSink struct{ pidex.RowSink }

func (r rowSink) Row(vals []any) (bool, error) {
	out, _ := Value(vals)
	return r.RowSink.Row(out)
}

func (c *Catalog) SearchTotals(ctx context.Context, o pidex.SearchOptions) (pidex.SearchTotals, error) {
	o.Session = c.real(o.Session)
	return c.Catalog.SearchTotals(ctx, o)
}

// The rest of pidex.Catalog returns no session text: Vocabulary, Team,
// CheckMachine, Count, Marker, TextCoverage pass through the embedded
// catalog.
var _ pidex.Catalog = (*Catalog)(nil)
var _ pidex.Live = (*Catalog)(nil)
