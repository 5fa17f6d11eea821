package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/indexer"
	"github.com/pidex-dev/pidex/sqlite"
)

// Rebuild indexes every session afresh into a side catalog next to the
// live one, then replaces the live catalog's rows with it in one
// transaction (sqlite.ReplaceFrom). The live file stays the same file:
// readers see the old catalog or the new one, never a half-built one, and
// other processes that have it open — a running `index --watch` — keep
// reading and writing the live catalog, which now holds the new rows (an
// append they ingest after the swap lands in it; a batch they planned
// before the swap finds the stored offset moved and backs off).
//
// With text, the search index is built too before the swap; without it
// (an automatic rebuild before a `list`) the swapped-in catalog's text
// is left to the next text pass, as after any cold index.
func (e *Engine) Rebuild(ctx context.Context, text bool) (*pidex.IndexStats, error) {
	if err := e.writable(); err != nil {
		return nil, fmt.Errorf("rebuild catalog: %w", err)
	}
	// The rows go into the file now at the path (it may have been deleted
	// or replaced since the engine opened it).
	if _, err := e.db.Verify(ctx); err != nil {
		return nil, fmt.Errorf("rebuild catalog: %w", err)
	}
	removeStaleSides(e.opts.DBPath)
	side, release, err := sidePath(e.opts.DBPath)
	if err != nil {
		return nil, err
	}
	defer func() { removeDB(side); release() }()
	if e.afterSide != nil {
		e.afterSide(side)
	}
	db, err := sqlite.Open(ctx, side)
	if err != nil {
		return nil, fmt.Errorf("rebuild catalog: %w", err)
	}
	ix := e.indexer(db)
	ix.SideText = text
	st, err := ix.Refresh(ctx)
	if err == nil && text {
		st.Text, err = ix.IndexText(ctx)
	}
	if err == nil {
		err = sqlite.SetDerivation(ctx, db.DB, indexer.Derivation)
	}
	if err == nil {
		_, err = db.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)")
	}
	db.Close()
	if err != nil {
		return nil, fmt.Errorf("rebuild catalog: %w", err)
	}
	if err := sqlite.ReplaceFrom(ctx, e.db, side); err != nil {
		return nil, err
	}
	return st, nil
}

// sidePath creates a new, unique side catalog next to the live one, so two
// rebuilds at once never share one, and locks it (sqlite.LockFile) until release
// is called: a rebuild that dies (SIGKILL, a crash) leaves an unlocked
// side file, which the next run removes (removeStaleSides), while a live
// one keeps its file.
func sidePath(live string) (path string, release func(), err error) {
	dir := filepath.Dir(live)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", nil, fmt.Errorf("create catalog dir: %w", err)
	}
	for {
		f, err := os.CreateTemp(dir, filepath.Base(live)+sideInfix+"*")
		if err != nil {
			return "", nil, fmt.Errorf("create rebuild catalog: %w", err)
		}
		release, err := sqlite.LockFile(f, true)
		if err != nil {
			f.Close()
			os.Remove(f.Name())
			return "", nil, fmt.Errorf("lock rebuild catalog: %w", err)
		}
		// Between its creation and the lock, another run may have taken
		// the new file for a stale one and removed it: then make another.
		if held, err := f.Stat(); err == nil {
			if now, err := os.Stat(f.Name()); err == nil && os.SameFile(held, now) {
				return f.Name(), release, nil
			}
		}
		release()
	}
}

// sideInfix marks a rebuild's side files: CATALOG.rebuild-RANDOM.
const sideInfix = ".rebuild-"

// removeStaleSides removes the side files of rebuilds that died (killed
// during `index --full`: each left a copy of the whole catalog): those no
// process holds locked. A live rebuild's file is locked and stays, and so
// does everything on a platform without the lock.
func removeStaleSides(live string) {
	matches, err := filepath.Glob(sqlite.GlobEscape(live) + sideInfix + "*")
	if err != nil {
		return
	}
	for _, m := range matches {
		if main, ok := companionOf(m); ok {
			if !exists(main) {
				os.Remove(m) // its database is gone: this is all that is left of it
			}
			continue
		}
		f, err := os.Open(m)
		if err != nil {
			continue
		}
		if release, err := sqlite.LockFile(f, false); err == nil {
			removeDB(m) // removed while locked: a rebuild starting on it sees it gone
			release()
		} else {
			f.Close()
		}
	}
}

// companionOf returns the catalog whose companion file m is (SQLite's
// -wal, -shm and -journal, a read cache's file or its temporary file).
func companionOf(m string) (string, bool) {
	for _, s := range sqlite.CompanionSuffixes() {
		if strings.HasSuffix(m, s) {
			return strings.TrimSuffix(m, s), true
		}
		if i := strings.LastIndex(m, s+"."); i > 0 && strings.HasSuffix(m, ".tmp") {
			return m[:i], true
		}
	}
	return "", false
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

func removeDB(p string) {
	os.Remove(p)
	for _, s := range sqlite.CompanionSuffixes() {
		os.Remove(p + s)
	}
}

// Recreate builds a new catalog at opts.DBPath from the session files when
// the one there cannot be opened at all (not a database, damaged): it
// indexes into a side file and renames it over the broken one. A broken
// catalog serves no one, so no other process can be relying on it; for a
// catalog that opens, use Rebuild, which keeps the file.
func Recreate(ctx context.Context, opts Options) (*Engine, *pidex.IndexStats, error) {
	opts = opts.withDefaults()
	// Only a pidex catalog (by its header) is replaced: a file of anyone
	// else's is refused (pidex.ErrNotCatalog) and never changed.
	if kind, err := sqlite.Inspect(opts.DBPath); err != nil {
		return nil, nil, err
	} else if kind != sqlite.KindPidex && kind != sqlite.KindNew {
		_, err := Open(ctx, opts)
		return nil, nil, err
	}
	removeStaleSides(opts.DBPath)
	side, release, err := sidePath(opts.DBPath)
	if err != nil {
		return nil, nil, err
	}
	defer func() { removeDB(side); release() }() // after the rename, removeDB finds nothing
	sideOpts := opts
	sideOpts.DBPath = side
	e, err := Open(ctx, sideOpts)
	if err != nil {
		return nil, nil, err
	}
	st, err := e.RefreshBeforeText(ctx)
	if err == nil {
		st.Text, err = e.RefreshText(ctx)
	}
	if err == nil {
		_, err = e.db.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)")
	}
	e.Close()
	if err != nil {
		return nil, nil, err
	}
	for _, s := range []string{"-wal", "-shm", "-journal"} {
		os.Remove(opts.DBPath + s) // they belong to the broken file
	}
	if err := os.Rename(side, opts.DBPath); err != nil {
		return nil, nil, fmt.Errorf("replace broken catalog: %w", err)
	}
	// The file is the catalog now: let go of pidex's own descriptor before
	// SQLite opens it (closing one later would drop SQLite's POSIX locks).
	release()
	e, err = Open(ctx, opts)
	return e, st, err
}
