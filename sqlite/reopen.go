package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/jmoiron/sqlx"
	"github.com/pidex-dev/pidex"
	msqlite "modernc.org/sqlite"
)

// A catalog is a cache: a user may delete it, or another command may make
// a new one at its path, while a process has it open (`pidex serve`,
// `index --watch`). SQLite would go on with the deleted file through the
// connections already open and, through new ones, create an empty file
// with the default mode (0644: docs/reliability.md promises 0600), on which every
// refresh fails with "no such table". So the handle remembers which file
// it set up; before a refresh, and before opening any connection, it
// checks that the path still names that file (Verify). When it does not,
// the handle sets up the file now there — a new private catalog if there
// is none — and its connections to the old file are dropped as they come
// back to the pool: each carries the generation of the file it was opened
// on.

// fileIdentity is the catalog file a handle's connections use.
type fileIdentity struct {
	fi os.FileInfo
}

// verifier is the state behind DB.Verify, shared by the handle and its
// connector.
type verifier struct {
	path string
	gen  atomic.Int64 // bumped when the handle moves to another file
	mu   sync.Mutex   // one move at a time
	cur  atomic.Pointer[fileIdentity]
}

// adopt records the file now at the path as the handle's.
func (v *verifier) adopt() error {
	fi, err := os.Stat(v.path)
	if err != nil {
		return fmt.Errorf("stat catalog %s: %w", v.path, err)
	}
	v.cur.Store(&fileIdentity{fi: fi})
	return nil
}

// moved reports whether the path no longer names the handle's file.
func (v *verifier) moved() bool {
	cur := v.cur.Load()
	if cur == nil {
		return false
	}
	fi, err := os.Stat(v.path)
	return err != nil || !os.SameFile(cur.fi, fi)
}

// verify moves the handle to the file at the path if it is another one
// (setting up a new private catalog where there is none). It reports
// whether it moved.
func (v *verifier) verify(ctx context.Context) (bool, error) {
	if !v.moved() {
		return false, nil
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if !v.moved() { // another goroutine moved it meanwhile
		return false, nil
	}
	if err := prepareFile(ctx, v.path); err != nil {
		return false, err
	}
	if err := v.adopt(); err != nil {
		return false, err
	}
	v.gen.Add(1)
	return true, nil
}

// prepareFile makes the file at path a set-up pidex catalog, as Open
// does, through a handle of its own (not the pool being moved): a new
// private one where the file is gone, after removing what the deleted
// one left beside it (a -wal or -shm of another database would be taken
// for the new one's).
func prepareFile(ctx context.Context, path string) error {
	if err := refuseForeign(path); err != nil {
		return err
	}
	if err := createDir(path); err != nil {
		return err
	}
	unlock, err := lockSetup(ctx, path)
	if err != nil {
		return err
	}
	defer unlock()
	if err := refuseForeign(path); err != nil {
		return err
	}
	if !exists(path) {
		for _, s := range []string{"-wal", "-shm", "-journal"} {
			if err := os.Remove(path + s); err != nil && !os.IsNotExist(err) {
				return fmt.Errorf("remove the deleted catalog's %s: %w", s, err)
			}
		}
	}
	if err := createPrivate(path); err != nil {
		return err
	}
	if !writable(path) {
		return fmt.Errorf("catalog %s was replaced by one that is %w: pidex cannot write it (restart the command to read it as it is)", path, pidex.ErrReadOnly)
	}
	db, err := sqlx.Open("sqlite", dsn(path))
	if err != nil {
		return fmt.Errorf("open catalog %s: %w", path, err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if err := (&DB{DB: db, Path: path}).setup(ctx, false); err != nil {
		return fmt.Errorf("open catalog %s: %w", path, err)
	}
	return nil
}

// Verify makes sure the handle uses the file now at its path: when the
// catalog was deleted it creates a new, private one there (0600, in a
// 0700 folder, migrated); when another file replaced it (a command run
// after the deletion made one), it moves to that one. It reports whether
// it moved: the catalog may then be empty, and the caller refreshes it.
// A read-only handle never moves.
func (c *DB) Verify(ctx context.Context) (moved bool, err error) {
	if c.ReadOnly || c.v == nil {
		return false, nil
	}
	return c.v.verify(ctx)
}

// Moved reports, with one stat and without changing anything, whether the
// path no longer names the file the handle uses (Verify would move it).
func (c *DB) Moved() bool {
	if c.ReadOnly || c.v == nil {
		return false
	}
	return c.v.moved()
}

// Generation counts the handle's moves to another file (Verify).
func (c *DB) Generation() int64 {
	if c.v == nil {
		return 0
	}
	return c.v.gen.Load()
}

// connector opens the pool's connections: each on the file the handle
// verified, tagged with its generation.
type connector struct {
	base driver.Connector
	v    *verifier
}

func (c *connector) Connect(ctx context.Context) (driver.Conn, error) {
	if _, err := c.v.verify(ctx); err != nil {
		return nil, err
	}
	gen := c.v.gen.Load()
	inner, err := c.base.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &conn{inner: inner.(sqliteConn), gen: gen, v: c.v}, nil
}

func (c *connector) Driver() driver.Driver { return c.base.Driver() }

// sqliteConn is what every modernc connection implements (see
// msqlite.NewConnector): a wrapper must pass all of it on, or database/sql
// falls back on context-free calls and skips the driver's own validation.
type sqliteConn interface {
	driver.Conn
	driver.ConnBeginTx
	driver.ConnPrepareContext
	driver.ExecerContext
	driver.QueryerContext
	driver.Pinger
	driver.SessionResetter
	driver.Validator
}

var _ sqliteConn = (*conn)(nil)

// conn is a connection to the file of one generation of its handle.
type conn struct {
	inner sqliteConn
	gen   int64
	v     *verifier
	// unmapped: a write transaction turned this connection's memory map
	// off (see MmapPragma); a read-only one turns it on again.
	unmapped bool
}

// stale: the handle has moved to another file since this connection was
// opened; database/sql drops it instead of reusing it.
func (c *conn) stale() bool { return c.gen != c.v.gen.Load() }

func (c *conn) ResetSession(ctx context.Context) error {
	if c.stale() {
		return driver.ErrBadConn
	}
	return c.inner.ResetSession(ctx)
}

func (c *conn) IsValid() bool { return !c.stale() && c.inner.IsValid() }

func (c *conn) Prepare(q string) (driver.Stmt, error) { return c.inner.Prepare(q) }
func (c *conn) Close() error                          { return c.inner.Close() }

func (c *conn) Begin() (driver.Tx, error) { return c.inner.Begin() }

func (c *conn) BeginTx(ctx context.Context, o driver.TxOptions) (driver.Tx, error) {
	if err := c.mapFor(ctx, o.ReadOnly); err != nil {
		return nil, err
	}
	return c.inner.BeginTx(ctx, o)
}

// mapFor sets the connection's memory map for a transaction: none for a
// writer, whose pages would stay mapped and count in the process's
// memory, the catalog's MmapPragma for a reader. Reads outside a
// transaction keep what the connection has.
func (c *conn) mapFor(ctx context.Context, readOnly bool) error {
	if c.unmapped == !readOnly {
		return nil
	}
	p := "PRAGMA " + MmapPragma
	if !readOnly {
		p = "PRAGMA mmap_size(0)"
	}
	if _, err := c.inner.ExecContext(ctx, p, nil); err != nil {
		return fmt.Errorf("set catalog memory map: %w", err)
	}
	c.unmapped = !readOnly
	return nil
}

func (c *conn) PrepareContext(ctx context.Context, q string) (driver.Stmt, error) {
	return c.inner.PrepareContext(ctx, q)
}

func (c *conn) ExecContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Result, error) {
	return c.inner.ExecContext(ctx, q, args)
}

func (c *conn) QueryContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Rows, error) {
	return c.inner.QueryContext(ctx, q, args)
}

func (c *conn) Ping(ctx context.Context) error { return c.inner.Ping(ctx) }

// Unwrap is the modernc connection (msqlite.Limit and others look for it).
func (c *conn) Unwrap() driver.Conn { return c.inner }

// openPool opens a handle's pool on the catalog at path through the
// verifying connector.
func openPool(path string) (*sqlx.DB, *verifier, error) {
	base, err := msqlite.NewConnector(dsn(path))
	if err != nil {
		return nil, nil, fmt.Errorf("open catalog %s: %w", path, err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	v := &verifier{path: abs}
	return sqlx.NewDb(sql.OpenDB(&connector{base: base, v: v}), "sqlite"), v, nil
}
