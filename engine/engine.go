// Package engine implements pidex's operations over a catalog: it opens
// the catalog (rebuilding it when another pidex derived it), refreshes it
// from the session files, watches the session roots and tells
// subscribers, rebuilds it in place, resolves session references, and
// answers every read (listings, trees, contexts, documents for reading,
// search, cost, SQL) in the domain's types (package pidex), keeping what
// is costly to rebuild (previews, contexts) between calls.
//
// It is the library's entry point: open an Engine, Refresh it, ask it.
// The CLI, the web server and the MCP server are faces over it: they
// translate their inputs into pidex options and render the results.
package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/indexer"
	"github.com/pidex-dev/pidex/internal/catalog"
	"github.com/pidex-dev/pidex/pgstore"
	"github.com/pidex-dev/pidex/query"
)

// Derivation is the version of the ingest logic this build derives
// catalogs with (indexer.Derivation): a catalog stamped with another is
// rebuilt when it is opened. Faces print it (pidex version) without
// knowing the indexer.
const Derivation = indexer.Derivation

// Options configure an Engine.
type Options struct {
	// DBPath is the catalog file; "" is the default place: $PIDEX_DB, else
	// $XDG_CACHE_HOME/pidex/index.sqlite, else ~/.cache/pidex/index.sqlite.
	DBPath string
	// Catalog, a postgres:// URL, reads a team catalog instead (see
	// package pgstore): every machine's sessions, pushed by pidex push. The
	// engine then refreshes nothing, and DBPath and Roots play no part.
	Catalog string
	// Roots are the session roots (a folder, or source:folder, see
	// indexer.ParseRoot); none means every agent's own (docs/sources.md,
	// Session roots: pi's with its sessionDir settings, oh-my-pi's profiles and
	// OpenClaw's agents where they exist).
	Roots []string
	// Notify receives one-line messages meant for the user, such as an
	// automatic rebuild (nil: dropped).
	Notify func(msg string)
	// Progress, if set, counts the work of every refresh and rebuild; the
	// caller draws it.
	Progress *pidex.Progress
	// OneShot: the process exits after one command (catalog.DB.OneShot:
	// read caches are mapped, not copied). A server or watcher leaves it
	// false.
	OneShot bool
	// RefreshFirst: the caller refreshes as soon as the engine is open (a
	// command that reads a current catalog). The session folders are then
	// listed while the catalog opens, and the first Refresh takes that
	// listing when it shows nothing changed (indexer.Listing).
	RefreshFirst bool
}

// withDefaults fills in the default catalog.
func (o Options) withDefaults() Options {
	if o.DBPath == "" {
		o.DBPath = catalog.DefaultPath()
	}
	return o
}

// Engine is an open catalog over a set of session roots. Its methods are
// safe for concurrent use.
type Engine struct {
	db *catalog.DB // the local catalog (nil for a team catalog)
	// reader answers a local catalog's reads; a new one when the roots
	// change (roots.go)
	reader atomic.Pointer[query.Reader]
	team   *pgstore.Store // the team catalog (nil for a local one)
	teamRd Backend        // its reads
	opts   Options
	// auto: the roots are the agents' own (no Options.Roots), found again
	// when sessions of new working directories appear (roots.go).
	auto     bool
	roots    []string     // absolute; guarded by mu once the engine is open
	specs    []string     // the same as indexer root specs (source:path)
	rootInfo []pidex.Root // what Roots says of them

	previews previewCache
	contexts contextCache

	missingRoots sync.Once // said once per engine: a root that does not exist
	// early: the roots' files listed while the catalog opened
	// (Options.RefreshFirst), for the first Refresh
	early atomic.Pointer[indexer.Listing]

	mu    sync.Mutex
	extra map[string]bool // folders outside the roots named on the command line
	subs  map[chan Event]struct{}
}

// Open opens (creating if needed) the catalog. When the catalog was
// derived by another version of pidex's ingest logic, it is rebuilt from
// the session files first, with a message through Notify: it is only a
// cache.
func Open(ctx context.Context, opts Options) (*Engine, error) {
	if opts.Catalog != "" {
		return openTeam(ctx, opts)
	}
	opts = opts.withDefaults()
	early, named := listEarly(opts)
	db, err := catalog.Open(ctx, opts.DBPath)
	if errors.Is(err, catalog.ErrSchema) {
		// Its migrations fail (a build whose migrations differ): keep the
		// error if even emptying it does not help.
		if fresh, rerr := reopenEmpty(ctx, opts, fmt.Sprintf(" (%v)", err)); rerr == nil {
			db, err = fresh, nil
		}
	}
	if errors.Is(err, pidex.ErrNotCatalog) || errors.Is(err, pidex.ErrReadOnly) {
		return nil, err // rebuilding would not help
	}
	if err != nil {
		return nil, fmt.Errorf("%w\n(the catalog is only a cache: 'pidex index --full' rebuilds it, or delete %s)", err, opts.DBPath)
	}
	db.OneShot = opts.OneShot
	e := &Engine{db: db, opts: opts, auto: len(opts.Roots) == 0, extra: map[string]bool{}, subs: map[chan Event]struct{}{}}
	e.early.Store(early)
	info := named
	if info == nil {
		if info, err = e.findRoots(ctx); err != nil {
			db.Close()
			return nil, err
		}
	}
	e.setRoots(info)
	if !db.ReadOnly {
		removeStaleSides(opts.DBPath) // what killed rebuilds left (rebuild.go)
	}
	if err := e.checkDerivation(ctx); err != nil {
		if e.db != nil { // checkDerivation may have reopened it
			e.db.Close()
		}
		return nil, err
	}
	return e, nil
}

// checkDerivation rebuilds a catalog that an older (or newer) pidex
// derived, and stamps a new one.
func (e *Engine) checkDerivation(ctx context.Context) error {
	d, err := catalog.Derivation(ctx, e.db.DB)
	if err != nil || d == indexer.Derivation {
		return err
	}
	if e.db.ReadOnly {
		return fmt.Errorf("catalog %s is %w and was built by another version of pidex (derivation %d, this one %d): rebuilding it needs writing it (make it writable, or choose another --db)",
			e.db.Path, pidex.ErrReadOnly, d, indexer.Derivation)
	}
	if ok, err := catalog.SchemaMatches(ctx, e.db.DB); err != nil {
		return err
	} else if !ok {
		// Its tables differ though its migrations passed (an edited,
		// already applied migration): the rebuild below would copy rows
		// into them.
		e.db.Close()
		db, err := reopenEmpty(ctx, e.opts, "")
		if err != nil {
			e.db = nil
			return err
		}
		e.setDB(db)
		// Another process may have emptied it first and stamped it since
		// (then the reset dropped nothing).
		if d, err = catalog.Derivation(ctx, e.db.DB); err != nil || d == indexer.Derivation {
			return err
		}
	}
	empty, err := catalog.IsEmpty(ctx, e.db.DB)
	if err != nil {
		return err
	}
	if empty {
		return catalog.SetDerivation(ctx, e.db.DB, indexer.Derivation)
	}
	e.notify(fmt.Sprintf("the catalog was built by another version of pidex (derivation %d, this one %d): rebuilding it from the session files", d, indexer.Derivation))
	_, err = e.Rebuild(ctx, false)
	return err
}

// reopenEmpty empties a catalog whose schema came from another pidex build
// (it is a cache; catalog.Reset refuses anything but a pidex catalog) and
// opens it afresh; the derivation check then fills it.
func reopenEmpty(ctx context.Context, opts Options, detail string) (*catalog.DB, error) {
	if opts.Notify != nil {
		opts.Notify("the catalog's schema is from another pidex build: emptying it to rebuild" + detail)
	}
	if err := catalog.Reset(ctx, opts.DBPath); err != nil {
		return nil, err
	}
	return catalog.Open(ctx, opts.DBPath)
}

// backend is what reads answer from: the team catalog, else the local
// catalog's current reader.
func (e *Engine) backend() Backend {
	if e.team != nil {
		return e.teamRd
	}
	return e.reader.Load()
}

// setDB makes db the engine's catalog, for the writers and the readers.
func (e *Engine) setDB(db *catalog.DB) {
	db.OneShot = e.opts.OneShot
	e.db = db
	e.reader.Store(query.New(db, e.Roots()))
}

func (e *Engine) notify(msg string) {
	if e.opts.Notify != nil {
		e.opts.Notify(msg)
	}
}

// Close closes the catalog.
func (e *Engine) Close() error {
	if e.team != nil {
		return e.team.Close()
	}
	return e.db.Close()
}

// ReadOnly reports whether the catalog cannot be written by this process:
// it can be read as it is, and Refresh, RefreshText, Rebuild and Watch
// fail with pidex.ErrReadOnly.
func (e *Engine) ReadOnly() bool { return e.team != nil || e.db.ReadOnly }

// writable refuses work that writes a read-only catalog, before SQLite
// would fail halfway with "attempt to write a readonly database".
func (e *Engine) writable() error {
	if e.team != nil {
		return ErrTeamCatalog
	}
	if e.db.ReadOnly {
		return fmt.Errorf("catalog %s is %w: pidex cannot write it (make the file and its folder writable, or choose another --db)", e.db.Path, pidex.ErrReadOnly)
	}
	return nil
}

// DBPath is the catalog file.
func (e *Engine) DBPath() string { return e.opts.DBPath }

// Roots returns the session roots, absolute.
func (e *Engine) Roots() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.roots...)
}

// indexer returns an indexer over the roots and the extra folders.
func (e *Engine) indexer(db *catalog.DB) *indexer.Indexer {
	e.mu.Lock()
	roots := append([]string(nil), e.specs...)
	for d := range e.extra {
		roots = append(roots, d)
	}
	e.mu.Unlock()
	return &indexer.Indexer{DB: db, Roots: roots, Progress: e.opts.Progress}
}

// Refresh brings the catalog up to date with the roots (and any folder
// added by Session). One unreadable file never stops the others: problems
// are in the Stats.
func (e *Engine) Refresh(ctx context.Context) (*pidex.IndexStats, error) {
	if err := e.writable(); err != nil {
		return nil, fmt.Errorf("refresh catalog: %w", err)
	}
	e.missingRoots.Do(func() {
		for _, r := range e.Roots() {
			if _, err := os.Stat(r); err != nil {
				// Not an error (pi may simply not have run yet), but worth a word.
				e.notify("no session folder at " + r)
			}
		}
	})
	ix := e.indexer(e.db)
	ix.Listing = e.early.Swap(nil)
	st, err := ix.Refresh(ctx)
	if err != nil {
		return nil, fmt.Errorf("refresh catalog: %w", err)
	}
	return e.followProjects(ctx, st)
}

// RefreshText brings the full-text index up to date behind the metadata
// (see indexer.IndexText); Refresh first.
func (e *Engine) RefreshText(ctx context.Context) (*pidex.TextStats, error) {
	if err := e.writable(); err != nil {
		return nil, fmt.Errorf("index text: %w", err)
	}
	st, err := e.indexer(e.db).IndexText(ctx)
	if err != nil {
		return nil, fmt.Errorf("index text: %w", err)
	}
	return st, nil
}

// Include makes a session file outside the roots, named by path (a copy,
// a file someone sent), part of every later refresh, with its folder, for
// the life of the engine; anything else is ignored. Call it before the
// refresh that should index it, then Resolve.
func (e *Engine) Include(arg string) {
	if dir := outsideRoot(arg, e.Roots()); dir != "" {
		e.mu.Lock()
		e.extra[dir] = true
		e.mu.Unlock()
	}
}

// Resolve finds the session a reference names: a file path, a full
// session id, a unique id prefix or a unique session name (see
// Backend.Resolve).
func (e *Engine) Resolve(ctx context.Context, arg string) (pidex.SessionRef, error) {
	return e.ResolveOn(ctx, arg, "")
}

// entryNotFound words a read's unknown leaf as the domain's error (the
// reader says only "not found").
func entryNotFound(err error, ref pidex.SessionRef, leaf string) error {
	var nf *pidex.NotFoundError
	if leaf != "" && errors.Is(err, pidex.ErrNotFound) && !errors.As(err, &nf) {
		return &pidex.NotFoundError{Entry: leaf, Session: ref.SessionID}
	}
	return err
}

// ShortIDs returns the shortest unique prefix of each of ids among every
// session of the catalog (pidex.ShortIDs): what a listing shows, so that
// the id a reader copies resolves.
func (e *Engine) ShortIDs(ctx context.Context, ids []string) (map[string]string, error) {
	all, err := e.backend().SessionIDs(ctx)
	if err != nil {
		return nil, err
	}
	return pidex.ShortIDs(all, ids), nil
}

// ResolveOn is Resolve among one machine's sessions ("": any machine's):
// a team catalog may hold the same session on two machines.
func (e *Engine) ResolveOn(ctx context.Context, arg, machine string) (pidex.SessionRef, error) {
	if err := e.machines(machine, nil); err != nil {
		return pidex.SessionRef{}, err
	}
	ref, err := e.backend().Resolve(ctx, arg, machine)
	if errors.Is(err, pidex.ErrNotFound) { // an AmbiguousError is not ErrNotFound
		return ref, &pidex.NotFoundError{Ref: arg}
	}
	return ref, err
}

// machines refuses a machine filter or key on a catalog without
// machines.
func (e *Engine) machines(machine string, by []string) error {
	if (machine != "" || slices.Contains(by, "machine")) && !e.backend().Machines() {
		return query.ErrNoMachines
	}
	return nil
}

// CheckMachine refuses a machine filter (non-empty) on a catalog
// without machines, as every read would; a face checks a machine it
// applies to all its calls once, up front.
func (e *Engine) CheckMachine(machine string) error { return e.machines(machine, nil) }

// Team reports whether the engine reads a team catalog (several
// machines' sessions, pushed by pidex push), which it never refreshes.
func (e *Engine) Team() bool { return e.backend().Machines() }

// outsideRoot returns the folder of a session file named by path when it
// lies outside every root, else "".
func outsideRoot(arg string, roots []string) string {
	if !strings.HasSuffix(arg, ".jsonl") {
		return ""
	}
	abs, err := filepath.Abs(arg)
	if err != nil {
		return ""
	}
	if fi, err := os.Stat(abs); err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	dir := filepath.Dir(abs)
	for _, r := range roots {
		if dir == r || filepath.Dir(dir) == r || filepath.Dir(filepath.Dir(dir)) == r {
			return "" // omp's subagents and OpenClaw's agents lie two folders deep
		}
	}
	return dir
}
