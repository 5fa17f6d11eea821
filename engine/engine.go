// Package engine opens a catalog and keeps it current: the local SQLite
// catalog (rebuilt when another pidex derived it, refreshed from the
// session files, watched, rebuilt in place, pushed to a team catalog) or
// a team catalog in PostgreSQL (read, and watched for pushes). Every read
// is the read layer's (package query), which an Engine embeds: an Engine
// is a pidex.Catalog.
//
// It is the library's entry point: open an Engine, Refresh it, ask it.
// The CLI, the web server and the MCP server are faces over a
// pidex.Catalog: they translate their inputs into pidex options and
// render the results.
package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/indexer"
	"github.com/pidex-dev/pidex/postgres"
	"github.com/pidex-dev/pidex/query"
	"github.com/pidex-dev/pidex/sqlite"
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
	// package postgres): every machine's sessions, pushed by pidex push. The
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
	// OneShot: the process exits after one command (sqlite.DB.OneShot:
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
		o.DBPath = sqlite.DefaultPath()
	}
	return o
}

// Engine is an open catalog over a set of session roots. Its methods are
// safe for concurrent use.
type Engine struct {
	// Reader answers every read: of the local catalog under the roots, or
	// of the team catalog. Its catalog and roots follow the engine's (a
	// rebuilt catalog, new projects' roots).
	*query.Reader
	db   *sqlite.DB      // the local catalog (nil for a team catalog)
	team *postgres.Store // the team catalog (nil for a local one)
	opts Options
	// auto: the roots are the agents' own (no Options.Roots), found again
	// when sessions of new working directories appear (roots.go).
	auto     bool
	roots    []string     // absolute; guarded by mu once the engine is open
	specs    []string     // the same as indexer root specs (source:path)
	rootInfo []pidex.Root // what Roots says of them

	missingRoots sync.Once // said once per engine: a root that does not exist
	// early: the roots' files listed while the catalog opened
	// (Options.RefreshFirst), for the first Refresh
	early atomic.Pointer[indexer.Listing]

	// afterSide (a test's) runs once a rebuild's side file exists.
	afterSide func(side string)

	// newer is the derivation of the newer pidex that built the catalog
	// (0: none): this build reads it as it is and never writes it.
	newer int

	mu    sync.Mutex
	extra map[string]bool // folders outside the roots named on the command line
	subs  map[chan pidex.Event]struct{}
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
	db, err := sqlite.Open(ctx, opts.DBPath)
	if errors.Is(err, sqlite.ErrSchema) {
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
	e := &Engine{db: db, opts: opts, auto: len(opts.Roots) == 0, extra: map[string]bool{}, subs: map[chan pidex.Event]struct{}{}}
	e.Reader = query.New(sqlite.NewReader(db, sqlite.ReaderOptions{}), nil)
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
	d, err := sqlite.Derivation(ctx, e.db.DB)
	if err != nil || d == indexer.Derivation {
		return err
	}
	if d > indexer.Derivation {
		// A newer pidex built it, and may be using it now (a pinned pidex
		// an agent started for MCP beside a newer CLI): rebuilding it here
		// would empty its catalog, and it would empty this one's in turn.
		// This build reads it as it is instead (issue 39: two builds on
		// one catalog), as a catalog it cannot write.
		if !e.db.ReadOnly {
			ro, err := sqlite.OpenReadOnly(ctx, e.db.Path)
			if err != nil {
				return fmt.Errorf("open catalog built by a newer pidex (derivation %d, this one %d): %w", d, indexer.Derivation, err)
			}
			e.db.Close()
			e.setDB(ro)
		}
		e.newer = d
		return nil
	}
	if e.db.ReadOnly {
		return fmt.Errorf("catalog %s is %w and was built by another version of pidex (derivation %d, this one %d): rebuilding it needs writing it (make it writable, or choose another --db)",
			e.db.Path, pidex.ErrReadOnly, d, indexer.Derivation)
	}
	if ok, err := sqlite.SchemaMatches(ctx, e.db.DB); err != nil {
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
		if d, err = sqlite.Derivation(ctx, e.db.DB); err != nil || d == indexer.Derivation {
			return err
		}
	}
	empty, err := sqlite.IsEmpty(ctx, e.db.DB)
	if err != nil {
		return err
	}
	if empty {
		return sqlite.SetDerivation(ctx, e.db.DB, indexer.Derivation)
	}
	e.notify(fmt.Sprintf("the catalog was built by another version of pidex (derivation %d, this one %d): rebuilding it from the session files", d, indexer.Derivation))
	_, err = e.Rebuild(ctx, false)
	return err
}

// reopenEmpty empties a catalog whose schema came from another pidex build
// (it is a cache; sqlite.Reset refuses anything but a pidex catalog) and
// opens it afresh; the derivation check then fills it.
func reopenEmpty(ctx context.Context, opts Options, detail string) (*sqlite.DB, error) {
	if opts.Notify != nil {
		opts.Notify("the catalog's schema is from another pidex build: emptying it to rebuild" + detail)
	}
	if err := sqlite.Reset(ctx, opts.DBPath); err != nil {
		return nil, err
	}
	return sqlite.Open(ctx, opts.DBPath)
}

// setDB makes db the engine's catalog, for the writers and the readers.
func (e *Engine) setDB(db *sqlite.DB) {
	db.OneShot = e.opts.OneShot
	e.db = db
	e.Reader.Set(sqlite.NewReader(db, sqlite.ReaderOptions{}), e.Roots())
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
	if e.newer > 0 {
		return fmt.Errorf("catalog %s is %w for this pidex: it was %w (derivation %d, this one %d), and this one never writes it (run the newer pidex, or give this one a catalog of its own with --db)",
			e.db.Path, pidex.ErrReadOnly, pidex.ErrNewerCatalog, e.newer, indexer.Derivation)
	}
	if e.db.ReadOnly {
		return fmt.Errorf("catalog %s is %w: pidex cannot write it (make the file and its folder writable, or choose another --db)", e.db.Path, pidex.ErrReadOnly)
	}
	return nil
}

// ReadOnlyWhy says why the catalog is read-only for this process, as a
// clause after its path ("" when it is not).
func (e *Engine) ReadOnlyWhy() string {
	switch {
	case e.team != nil:
		return "is a team catalog"
	case e.newer > 0:
		return fmt.Sprintf("was built by a newer pidex (derivation %d, this one %d)", e.newer, indexer.Derivation)
	case e.db.ReadOnly:
		return "is read-only"
	}
	return ""
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
func (e *Engine) indexer(db *sqlite.DB) *indexer.Indexer {
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
	return e.refresh(ctx, false)
}

// RefreshBeforeText is Refresh for a caller that runs RefreshText right
// after (search, index): a bulk load then writes its text beside the
// catalog while it writes the metadata (indexer.Indexer.SideText), and
// the text pass only takes it in. The metadata is in later than with
// Refresh, the text much sooner.
func (e *Engine) RefreshBeforeText(ctx context.Context) (*pidex.IndexStats, error) {
	return e.refresh(ctx, true)
}

func (e *Engine) refresh(ctx context.Context, text bool) (*pidex.IndexStats, error) {
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
	ix.SideText = text
	st, err := ix.Refresh(ctx)
	if errors.Is(err, indexer.ErrOlderCatalog) {
		// An older pidex rebuilt it under this process, as it rebuilds a
		// catalog of any other derivation: this one's rows go back.
		e.notify(fmt.Sprintf("%v: rebuilding it from the session files", err))
		st, err = e.Rebuild(ctx, false)
	}
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
		if indexer.InChildRun(r, abs) {
			return "" // pi-subagents' child runs, deeper
		}
	}
	return dir
}
