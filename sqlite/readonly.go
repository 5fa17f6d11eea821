package sqlite

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"

	"github.com/jmoiron/sqlx"
	"github.com/pidex-dev/pidex"
)

// writable reports whether Open can write the catalog at path: the file
// and its folder (where SQLite makes the -wal and -shm files) both.
func writable(path string) bool {
	return canWrite(path) && canWrite(filepath.Dir(path))
}

// ReadOnlyURI is the SQLite URI that reads the catalog at path without
// writing to it, with the given pragmas: mode=ro, plus immutable=1 when
// SQLite could not make the -shm file that reading a WAL database needs
// (a folder this process cannot write, without one). immutable=1 ignores
// the -wal file, so a catalog with a non-empty one there is refused
// (pidex.ErrReadOnly); pidex leaves none when it closes a catalog.
func ReadOnlyURI(path string, pragmas ...string) (string, error) {
	q := url.Values{}
	q.Set("mode", "ro")
	for _, p := range pragmas {
		q.Add("_pragma", p)
	}
	if _, err := os.Stat(path + "-shm"); err != nil && !canWrite(filepath.Dir(path)) {
		if fi, err := os.Stat(path + "-wal"); err == nil && fi.Size() > 0 {
			return "", fmt.Errorf("catalog %s is %w, and its -wal file cannot be read without a -shm file, which its folder does not let pidex make", path, pidex.ErrReadOnly)
		}
		q.Set("immutable", "1")
	}
	return "file:" + path + "?" + q.Encode(), nil
}

// OpenReadOnly opens the catalog at path for reading it as it is, though
// this process could write it: a catalog a newer pidex built (engine.Open).
func OpenReadOnly(ctx context.Context, path string) (*DB, error) { return openReadOnly(ctx, path) }

// openReadOnly opens a catalog this process cannot write, for reading it
// as it is. Nothing is written: not the WAL switch, not the application
// id, not a migration — a catalog that needs one is refused.
func openReadOnly(ctx context.Context, path string) (*DB, error) {
	uri, err := ReadOnlyURI(path, "busy_timeout(10000)", CachePragma, TempPragma, MmapPragma)
	if err != nil {
		return nil, fmt.Errorf("open catalog: %w", err)
	}
	db, err := sqlx.Open("sqlite", uri)
	if err != nil {
		return nil, fmt.Errorf("open catalog %s: %w", path, err)
	}
	setPool(db)
	if err := current(ctx, db, path); err != nil {
		db.Close()
		return nil, fmt.Errorf("open catalog: %w", err)
	}
	return &DB{DB: db, Path: path, ReadOnly: true}, nil
}

// current checks, without writing, that a read-only catalog has every
// migration of this pidex.
func current(ctx context.Context, db *sqlx.DB, path string) error {
	p, err := provider(db)
	if err != nil {
		return err
	}
	pending, err := p.HasPending(ctx)
	if err != nil {
		return fmt.Errorf("catalog %s is %w and its schema cannot be read: %w", path, pidex.ErrReadOnly, err)
	}
	if pending {
		return fmt.Errorf("catalog %s is %w and from an older pidex: migrating it needs writing it (make it writable, or choose another --db)", path, pidex.ErrReadOnly)
	}
	return nil
}
