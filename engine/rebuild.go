package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/pidex-dev/pidex/catalog"
	"github.com/pidex-dev/pidex/indexer"
)

// Rebuild indexes every session afresh into a side catalog next to the
// live one, then replaces the live catalog's rows with it in one
// transaction (catalog.ReplaceFrom). The live file stays the same file:
// readers see the old catalog or the new one, never a half-built one, and
// other processes that have it open — a running `index --watch` — keep
// reading and writing the live catalog, which now holds the new rows (an
// append they ingest after the swap lands in it; a batch they planned
// before the swap finds the stored offset moved and backs off).
//
// With text, the search index is built too before the swap; without it
// (an automatic rebuild before a `list`) the swapped-in catalog's text
// is left to the next text pass, as after any cold index.
func (e *Engine) Rebuild(ctx context.Context, text bool) (*indexer.Stats, error) {
	if err := e.writable(); err != nil {
		return nil, fmt.Errorf("rebuild catalog: %w", err)
	}
	side, err := sidePath(e.opts.DBPath)
	if err != nil {
		return nil, err
	}
	defer removeDB(side)
	db, err := catalog.Open(ctx, side)
	if err != nil {
		return nil, fmt.Errorf("rebuild catalog: %w", err)
	}
	ix := e.indexer(db)
	st, err := ix.Refresh(ctx)
	if err == nil && text {
		st.Text, err = ix.IndexText(ctx)
	}
	if err == nil {
		err = catalog.SetDerivation(ctx, db.DB, indexer.Derivation)
	}
	if err == nil {
		_, err = db.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)")
	}
	db.Close()
	if err != nil {
		return nil, fmt.Errorf("rebuild catalog: %w", err)
	}
	if err := catalog.ReplaceFrom(ctx, e.db, side); err != nil {
		return nil, err
	}
	return st, nil
}

// sidePath names a new, unique side catalog next to the live one, so two
// rebuilds at once never share one.
func sidePath(live string) (string, error) {
	dir := filepath.Dir(live)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("create catalog dir: %w", err)
	}
	f, err := os.CreateTemp(dir, filepath.Base(live)+".rebuild-*")
	if err != nil {
		return "", fmt.Errorf("create rebuild catalog: %w", err)
	}
	f.Close()
	return f.Name(), nil
}

func removeDB(p string) {
	for _, s := range []string{"", "-wal", "-shm", "-journal"} {
		os.Remove(p + s)
	}
}

// Recreate builds a new catalog at opts.DBPath from the session files when
// the one there cannot be opened at all (not a database, damaged): it
// indexes into a side file and renames it over the broken one. A broken
// catalog serves no one, so no other process can be relying on it; for a
// catalog that opens, use Rebuild, which keeps the file.
func Recreate(ctx context.Context, opts Options) (*Engine, *indexer.Stats, error) {
	// Only a pidex catalog (by its header) is replaced: a file of anyone
	// else's is refused (catalog.ErrNotCatalog) and never changed.
	if kind, err := catalog.Inspect(opts.DBPath); err != nil {
		return nil, nil, err
	} else if kind != catalog.KindPidex && kind != catalog.KindNew {
		_, err := Open(ctx, opts)
		return nil, nil, err
	}
	side, err := sidePath(opts.DBPath)
	if err != nil {
		return nil, nil, err
	}
	defer removeDB(side)
	sideOpts := opts
	sideOpts.DBPath = side
	e, err := Open(ctx, sideOpts)
	if err != nil {
		return nil, nil, err
	}
	st, err := e.Refresh(ctx)
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
	e, err = Open(ctx, opts)
	return e, st, err
}
