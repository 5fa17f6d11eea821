// Package sqlite is the local catalog, a SQLite file: the one place that
// opens it (WAL, busy timeout, IMMEDIATE write transactions, the schema
// migrations, the derivation stamp, the read caches), used by the writer
// (package indexer), and its side of the read layer (Reader, a
// query.Backend): rows and read caches, the FTS5 text index, lines read
// back from the session files, and ad-hoc SQL that cannot write.
package sqlite

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/pressly/goose/v3"
	msqlite "modernc.org/sqlite" // registers the "sqlite" driver
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/files"
	"github.com/pidex-dev/pidex/migrations"
)

// DB is an open catalog.
type DB struct {
	*sqlx.DB
	Path string
	// ReadOnly: this process cannot write the catalog (pidex.ErrReadOnly); it
	// was opened to be read as it is.
	ReadOnly bool
	// OneShot: this process exits once it has answered (a CLI command), so
	// the read caches' files are mapped and never unmapped, and what is
	// decoded from them shares their bytes. A long-lived process (a server,
	// a watcher) leaves it false and reads copies: each of its refreshes
	// would leave a mapping, and a replaced file, behind.
	OneShot bool
	mapped  mappedCount

	// writer serialises the writers of this handle: one refresh at a time
	// per process (a watcher and a request may both want one). Other
	// processes queue on SQLite's write lock instead.
	writer sync.Mutex

	// v follows the file the handle's connections use (reopen.go); nil
	// for a read-only handle.
	v *verifier
}

// LockWriter takes this handle's writer lock; call the returned function
// to release it. The indexer holds it for a whole refresh, so that
// refreshes on one handle never compete for the bounded connection pool.
func (c *DB) LockWriter() (unlock func()) {
	c.writer.Lock()
	return c.writer.Unlock
}

// ErrNotWAL is returned when the catalog could not be put in WAL mode (for
// example on a file system without shared memory), which would make readers
// block the writer.
var ErrNotWAL = errors.New("catalog is not in WAL mode")

// DefaultPath is where the catalog lives unless --db or PIDEX_DB says
// otherwise: $XDG_CACHE_HOME/pidex/index.sqlite, else ~/.cache/pidex/index.sqlite.
func DefaultPath() string {
	if p := os.Getenv("PIDEX_DB"); p != "" {
		return p
	}
	dir := os.Getenv("XDG_CACHE_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			home = "."
		}
		dir = filepath.Join(home, ".cache")
	}
	return filepath.Join(dir, "pidex", "index.sqlite")
}

// dsn builds the modernc connection string. Every connection gets the
// pragmas (the pool opens several); _txlock=immediate makes every write
// transaction take the write lock up front, so two writers queue on the
// busy timeout instead of failing with SQLITE_BUSY on lock upgrade.
//
// mode=rw: SQLite never creates the file itself (it would with the
// default mode, 0644); pidex creates it first, private (createPrivate).
func dsn(path string) string { return dsnMapped(path, MmapPragma) }

// dsnMapped is dsn with the memory map pragma given.
func dsnMapped(path, mmap string) string {
	q := url.Values{}
	q.Set("mode", "rw")
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Add("_pragma", CachePragma)
	q.Add("_pragma", TempPragma)
	q.Add("_pragma", mmap)
	q.Set("_txlock", "immediate")
	return "file:" + path + "?" + q.Encode()
}

// CachePragma bounds each connection's page cache at 8 MB. SQLite through
// modernc's allocator keeps each 4 KiB page (with its header, 4.3 KB) in
// an 8 KiB slot that it touches on both halves, so the cache costs twice
// its size in resident memory. At 32 MB, a cold index's two writing
// connections (the metadata pass's and the text pass's) held about
// 130 MB between them: a cold index in one command peaked at 248–325 MB
// of RSS, against 221 MB at 8 MB, and neither pass was slower (metadata
// 28.0 and 28.7 s against 29.0 and 28.6; text 51.7 and 49.2 against 52.2
// and 45.1; BENCHMARKS.md). Readers map the file instead (MmapPragma).
const CachePragma = "cache_size(-8000)"

// TempPragma puts the temporary tables and sorts of a statement that
// outgrow their page cache in files, not in memory: with
// temp_store(MEMORY) every sort of a large table (CREATE INDEX, a GROUP BY,
// a window's partitions) and every spill of a temporary b-tree stayed in
// the process's memory, so that memory grew with the history (issue 38).
// The end of a cold index of 10,000 sessions (usage_entry built, every
// usage row derived and summed into the rollups) peaked at 198 MB of RSS
// in MEMORY and 106 MB in FILE. A statement whose temporaries fit the
// cache (most) opens no file at all: SQLite opens a temporary file when
// it first spills.
const TempPragma = "temp_store(FILE)"

// MmapPragma lets a connection read the catalog's pages through a memory
// map of the file instead of copying each into its page cache: a short
// command reads a table or a blob once, and every page it copied was fresh
// memory to fault in (cost --by day's rollup and the refresh's blobs: 750
// reads of 4 KiB; on a machine whose page faults cost 11 µs, `pidex cost`
// 100 → 81 ms). Writers turn it off on their connection (conn.BeginTx):
// a cold index maps most of the file and its pages count in the process's
// memory (peak RSS 310 → 367 MB, and slower, measured).
//
// The map is bounded at 64 MB, so that what a command touches of the file
// is not its memory (issue 38: memory must not grow with the history). At
// a gigabyte, a search of a common word over 3,000 sessions touched its
// way to 154–174 MB of RSS (`search error --sessions-only`, `search the
// --sessions-only`), 53–71 MB without the map, in the same time within the
// noise (BENCHMARKS.md); past the first 64 MB of the file, pages are read
// into the bounded page cache (CachePragma). 32-bit builds do without.
var MmapPragma = fmt.Sprintf("mmap_size(%d)", mmapSize)

const mmapSize = 64 << 20 * (strconv.IntSize / 64)

// maxOpenConns bounds the pool, which database/sql leaves unbounded (one
// connection per concurrent query) while each connection may hold up to
// 8 MB of page cache (CachePragma), 16 MB of memory. SQLite here is Go
// code running on the caller's goroutine: readers beyond GOMAXPROCS add
// memory, not speed.
// A floor of four lets a few readers overlap their I/O; the +1 is for the
// indexer's writer beside them.
//
// It cannot deadlock: the only code in pidex that holds a connection while
// it waits for another is that writer, which holds its transaction's
// connection and takes a second one to prepare a statement (the stmtCache
// in indexer/writer.go prepares on the DB). The parsers never touch the
// catalog (plan loads what they need first), the writer's other reads come
// before its transaction, and readers finish each result (Select, Get, rows
// drained and closed) before their next query. So with one refresh at a
// time per DB, as in the CLI and Watch, every other holder finishes and the
// writer gets its second connection. (Several refreshes at once through one
// DB could fill the pool with writers waiting for SQLite's write lock until
// the busy timeout; separate processes have separate pools.)
func maxOpenConns() int { return max(4, runtime.GOMAXPROCS(0)) + 1 }

// connMaxIdleTime closes connections idle this long, so a long-running
// watcher that has gone quiet (a refresh only once a minute) gives back
// the page caches a cold index filled. Reopening is cheap: open the file,
// run the pragmas.
//
// Until then every idle connection is kept, up to the pool's bound: a text
// pass has the writer's two and a reader per core, a list beside its
// refresh three. With two kept, the writer's connection was closed at
// commit whenever the readers' were idle: its page cache of the index's
// pages freed and its statements compiled again on another (a cold text
// pass spent 2.6 s in the freeing alone; profiled).
const connMaxIdleTime = 30 * time.Second

// setPool bounds a catalog handle's connections (see maxOpenConns) and
// keeps the idle ones until connMaxIdleTime.
func setPool(db *sqlx.DB) {
	db.SetMaxOpenConns(maxOpenConns())
	db.SetMaxIdleConns(maxOpenConns())
	db.SetConnMaxIdleTime(connMaxIdleTime)
}

// Open opens (creating if needed) the catalog at path and migrates it to
// the current schema. A catalog this process cannot write is opened
// read-only (DB.ReadOnly), if it needs no migration.
//
// Setting a catalog up — creating it, switching it to WAL, marking it,
// migrating it — happens under a lock shared by every pidex process
// (lockSetup), as does Reset: without it, processes opening an old
// catalog at once raced through its migrations and one could empty the
// catalog under the others.
//
// A file whose header says it is pidex's and in WAL mode (every catalog
// pidex has set up) has its tables checked on the pool's own connection,
// under the lock, before anything is written: opening it changes nothing,
// and each connection reads the whole schema once (a millisecond; the
// separate read-only look that other files get cost two of the four
// milliseconds of opening a catalog).
func Open(ctx context.Context, path string) (*DB, error) {
	if _, err := readHeader(path); err != nil { // not a regular file, or not SQLite: refused before the lock
		return nil, err
	}
	if err := createDir(path); err != nil {
		return nil, err
	}
	if exists(path) && !writable(path) {
		if err := refuseForeign(path); err != nil {
			return nil, err
		}
		return openReadOnly(ctx, path)
	}
	unlock, err := lockSetup(ctx, path)
	if err != nil {
		return nil, err
	}
	defer unlock()
	// Again under the lock: another process may have created, emptied or
	// replaced the file meanwhile.
	h, err := readHeader(path)
	if err != nil {
		return nil, err
	}
	if !h.pidexWAL() {
		if err := refuseForeign(path); err != nil {
			return nil, err
		}
	}
	if err := createPrivate(path); err != nil {
		return nil, err
	}
	if !writable(path) {
		if err := refuseForeign(path); err != nil {
			return nil, err
		}
		return openReadOnly(ctx, path)
	}
	db, v, err := openPool(path)
	if err != nil {
		return nil, err
	}
	setPool(db)
	c := &DB{DB: db, Path: path, v: v}
	err = c.setup(ctx, h.pidexWAL())
	if err == nil {
		err = v.adopt()
	}
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("open catalog %s: %w", path, err)
	}
	return c, nil
}

// setup brings an open catalog to this pidex's schema, under the setup
// lock. A migration that fails is ErrSchema (a catalog from a build whose
// migrations differ: Reset empties it).
//
// checkTables: the file was not looked at read-only first (Open): its
// tables are checked here, before the first write.
func (c *DB) setup(ctx context.Context, checkTables bool) error {
	var migrateErr error
	err := retryBusy(ctx, func() error {
		if checkTables {
			if err := c.refuseForeignTables(ctx); err != nil {
				return err
			}
		}
		if err := c.check(ctx); err != nil {
			return err
		}
		// Marked before the first migration: a creation that stops
		// halfway leaves a file Inspect still knows as pidex's.
		if err := stampApplicationID(ctx, c.DB); err != nil {
			return err
		}
		migrateErr = Migrate(ctx, c.DB)
		return migrateErr
	})
	if errors.Is(err, pidex.ErrNotCatalog) {
		return err
	}
	if err != nil && err == migrateErr && !isBusy(err) {
		return fmt.Errorf("%w: %w", ErrSchema, err)
	}
	return err
}

// ErrSchema: the catalog's schema cannot be brought to this pidex's (a
// catalog from a development build whose migrations differ). It is a
// cache: Reset empties it.
var ErrSchema = errors.New("catalog schema from another pidex")

// Reset empties a pidex catalog whose schema this pidex cannot use: every
// table, view and index goes, in one transaction, and the next Open
// creates the schema afresh. Only for a file whose tables are pidex's
// (isPidex); anything else is refused and left alone.
//
// It decides under the setup lock, on the catalog as it is then: when
// another process got there first and the catalog now migrates and has
// exactly this pidex's tables (or is empty), nothing is dropped — that
// process may already be filling it.
func Reset(ctx context.Context, path string) error {
	if err := createDir(path); err != nil {
		return fmt.Errorf("reset catalog: %w", err)
	}
	unlock, err := lockSetup(ctx, path)
	if err != nil {
		return fmt.Errorf("reset catalog: %w", err)
	}
	defer unlock()
	// Decided read-only first: the connection below switches the file to
	// WAL, which already changes someone else's database.
	switch kind, err := Inspect(path); {
	case err != nil:
		return fmt.Errorf("reset catalog: %w", err)
	case kind == KindNew:
		return nil // emptied already
	case kind != KindPidex:
		return fmt.Errorf("reset catalog %s: %w, left alone", path, pidex.ErrNotCatalog)
	}
	db, err := sqlx.Open("sqlite", dsn(path))
	if err != nil {
		return fmt.Errorf("reset catalog: %w", err)
	}
	defer db.Close()
	if Migrate(ctx, db) == nil {
		if ok, err := SchemaMatches(ctx, db); err != nil {
			return fmt.Errorf("reset catalog: %w", err)
		} else if ok {
			return nil // another process emptied it and migrated it again
		}
	}
	var names []struct {
		Type string `db:"type"`
		Name string `db:"name"`
	}
	err = db.SelectContext(ctx, &names, `SELECT type, name FROM sqlite_master
		WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%'
		AND (sql IS NULL OR sql NOT LIKE 'CREATE TABLE ''text_index_%')`)
	if err != nil {
		return fmt.Errorf("reset catalog: %w", err)
	}
	tx, err := db.BeginTxx(ctx, nil)
	if err != nil {
		return fmt.Errorf("reset catalog: %w", err)
	}
	defer tx.Rollback()
	for _, n := range names {
		if n.Type == "view" {
			if _, err := tx.ExecContext(ctx, `DROP VIEW IF EXISTS "`+n.Name+`"`); err != nil {
				return fmt.Errorf("reset catalog: %w", err)
			}
		}
	}
	for _, n := range names {
		if n.Type == "table" {
			if _, err := tx.ExecContext(ctx, `DROP TABLE IF EXISTS "`+n.Name+`"`); err != nil {
				return fmt.Errorf("reset catalog: %w", err)
			}
		}
	}
	return tx.Commit()
}

// retryBusy runs setup again while another process holds the catalog:
// switching to WAL, recovering a WAL and each migration take locks that the
// busy timeout does not always wait for (SQLITE_BUSY_RECOVERY does not call
// the busy handler). Where the setup lock is not available (lockSetup), a
// migration another process applied between goose's version check and its
// own attempt fails with "already exists": a second run sees the work done.
func retryBusy(ctx context.Context, setup func() error) error {
	var err error
	for range 50 {
		if err = setup(); err == nil || !(isBusy(err) || (!setupLocked && ddlRace(err))) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(100 * time.Millisecond):
		}
	}
	return err
}

// isBusy reports whether err is SQLite's "another connection holds the
// lock" (SQLITE_BUSY or SQLITE_LOCKED, any extended code), by its code.
func isBusy(err error) bool {
	var se *msqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	code := se.Code() & 0xff // the primary code of an extended one
	return code == sqlite3.SQLITE_BUSY || code == sqlite3.SQLITE_LOCKED
}

// ddlRace recognises a migration that another process applied first. SQLite
// reports it as a plain SQLITE_ERROR, whose only distinction is its text;
// it matters only where migrations are not serialized (setupLocked false).
func ddlRace(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "already exists") || strings.Contains(msg, "duplicate column")
}

func (c *DB) check(ctx context.Context) error {
	var mode string
	if err := c.GetContext(ctx, &mode, "PRAGMA journal_mode"); err != nil {
		return fmt.Errorf("read journal mode: %w", err)
	}
	if !strings.EqualFold(mode, "wal") {
		return fmt.Errorf("%w (journal_mode=%s)", ErrNotWAL, mode)
	}
	return nil
}

// Migrate applies the embedded migrations with goose's Provider API. A
// catalog whose applied versions are exactly the embedded ones (any this
// pidex has opened before) is left as it is without asking goose, whose
// provider took half a millisecond of every command to find nothing to do;
// anything else is goose's to decide.
func Migrate(ctx context.Context, db *sqlx.DB) error {
	if current, err := migrated(ctx, db); err == nil && current {
		return nil
	}
	p, err := provider(db)
	if err != nil {
		return err
	}
	if _, err := p.Up(ctx); err != nil {
		return fmt.Errorf("apply migrations: %w", err)
	}
	return nil
}

// appliedSQL is the versions goose counts as applied: the latest row of
// each says so (goose records a migration undone as a row of its own).
const appliedSQL = `SELECT version_id FROM goose_db_version g
WHERE version_id > 0 AND is_applied AND id = (SELECT max(id) FROM goose_db_version WHERE version_id = g.version_id)
ORDER BY version_id`

// migrated says whether db's applied versions are the embedded
// migrations', no more and no fewer. A database without goose's table is
// an error (a new catalog: goose creates it).
func migrated(ctx context.Context, db *sqlx.DB) (bool, error) {
	var applied []int64
	if err := db.SelectContext(ctx, &applied, appliedSQL); err != nil {
		return false, err
	}
	want, err := embeddedVersions()
	return err == nil && slices.Equal(applied, want), err
}

// embeddedVersions is the versions of the embedded migrations, in order:
// the numbers their file names start with, as goose reads them.
var embeddedVersions = sync.OnceValues(func() ([]int64, error) {
	names, err := fs.Glob(migrations.FS, "*.sql")
	if err != nil {
		return nil, err
	}
	var out []int64
	for _, name := range names {
		num, _, ok := strings.Cut(name, "_")
		v, err := strconv.ParseInt(num, 10, 64)
		if !ok || err != nil {
			return nil, fmt.Errorf("migration %s: no version", name)
		}
		out = append(out, v)
	}
	slices.Sort(out)
	return out, nil
})

// provider is goose's view of the embedded migrations over db.
func provider(db *sqlx.DB) (*goose.Provider, error) {
	p, err := goose.NewProvider(goose.DialectSQLite3, db.DB, migrations.FS)
	if err != nil {
		return nil, fmt.Errorf("load migrations: %w", err)
	}
	return p, nil
}

// createDir creates the catalog's folder (0700) when it does not exist
// yet; an existing one keeps its mode.
func createDir(path string) error {
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("create catalog dir: %w", err)
		}
	}
	return nil
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// createPrivate creates the catalog's folder (0700) and an empty catalog
// file (0600) when they do not exist yet: session text holds secrets, and
// SQLite gives its -wal and -shm files the mode of the database file. An
// existing folder or file keeps its mode.
func createPrivate(path string) error {
	if err := createDir(path); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, os.ErrExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("create catalog: %w", err)
	}
	return f.Close()
}

// SchemaMatches reports whether the catalog's tables have exactly the
// columns a new catalog gets from the migrations. A catalog from a build
// whose already applied migrations were edited passes goose's version
// check and then fails queries ("no such column"); this finds it.
func SchemaMatches(ctx context.Context, db *sqlx.DB) (bool, error) {
	fresh, err := sqlx.Open("sqlite", "file:pidex-schema?mode=memory&cache=private")
	if err != nil {
		return false, fmt.Errorf("check schema: %w", err)
	}
	defer fresh.Close()
	fresh.SetMaxOpenConns(1)
	if err := Migrate(ctx, fresh); err != nil {
		return false, fmt.Errorf("check schema: %w", err)
	}
	want, err := columns(ctx, fresh)
	if err != nil {
		return false, err
	}
	got, err := columns(ctx, db)
	if err != nil {
		return false, err
	}
	return got == want, nil
}

// columns lists every ordinary table's columns, in order, as text.
func columns(ctx context.Context, db *sqlx.DB) (string, error) {
	var rows []string
	err := db.SelectContext(ctx, &rows, `SELECT m.name || '.' || p.name FROM sqlite_master m, pragma_table_info(m.name) p
		WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%' AND m.name != 'goose_db_version'
		AND m.sql NOT LIKE 'CREATE VIRTUAL TABLE%' AND m.name NOT LIKE 'text_index_%'
		ORDER BY m.name, p.cid`)
	if err != nil {
		return "", fmt.Errorf("check schema: %w", err)
	}
	return strings.Join(rows, ","), nil
}

// applicationID marks a SQLite file as a pidex catalog ("pidx", in the
// database header's application_id field).
const applicationID = 0x70696478

// refuseForeign refuses a file that is not pidex's: anything but a
// regular file, a file that is not a SQLite database, or a SQLite database
// whose tables are not pidex's. An absent or empty file, or an empty
// database, is fine.
func refuseForeign(path string) error {
	kind, err := Inspect(path)
	if err != nil {
		return err
	}
	return refusal(path, kind)
}

// refusal is the error for a file of kind that pidex will not use as its
// catalog (nil for the others).
func refusal(path string, kind FileKind) error {
	switch kind {
	case KindNotSQLite:
		return fmt.Errorf("%s is %w (it is not a SQLite database): pidex will not change it; delete it or choose another --db", path, pidex.ErrNotCatalog)
	case KindForeign:
		return fmt.Errorf("%s is %w (a SQLite database of something else): pidex will not change it; choose another --db", path, pidex.ErrNotCatalog)
	}
	return nil
}

// FileKind says what a catalog path holds.
type FileKind int

// What Inspect finds.
const (
	KindNew       FileKind = iota // absent, empty, or a database without tables
	KindPidex                     // a pidex catalog (pidex's tables, or a damaged file with pidex's header id)
	KindForeign                   // a SQLite database of something else
	KindNotSQLite                 // not a SQLite database at all
)

// Inspect tells what the file at path is, without changing it. A path
// that exists but is not a regular file (a device such as /dev/null, a
// FIFO, a folder) is an error wrapping pidex.ErrNotCatalog, found before
// anything opens it: opening a FIFO blocks, and SQLite would create its
// journal next to a device.
func Inspect(path string) (FileKind, error) {
	h, err := inspectHeader(path)
	if err != nil || h.kind != KindPidex {
		return h.kind, err
	}
	tables, id, err := tableNames(path)
	if err != nil {
		if isBusy(err) {
			// Another process holds the file (creating it, or recovering
			// its WAL): it is no evidence either way, so say so rather
			// than call a catalog being created foreign.
			return 0, fmt.Errorf("inspect catalog %s: %w", path, err)
		}
		if h.ours {
			return KindPidex, nil // pidex's header, pages that do not read: ours to rebuild
		}
		return KindForeign, nil // not readable as ours either: leave it alone
	}
	return kindOf(tables, id == applicationID), nil
}

// header is what a catalog file's first 100 bytes say, read without
// SQLite. kind is KindNew (no file, or an empty one), KindNotSQLite, or
// KindPidex for any SQLite database (its tables decide: Inspect).
type header struct {
	kind FileKind
	ours bool // pidex's application id
	wal  bool // in WAL mode (file format versions 2)
}

// pidexWAL: a SQLite database with pidex's id, in WAL mode.
func (h header) pidexWAL() bool { return h.kind == KindPidex && h.ours && h.wal }

// inspectHeader reads the header of the file at path. A path that exists
// but is not a regular file is an error wrapping pidex.ErrNotCatalog.
func inspectHeader(path string) (header, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return header{kind: KindNew}, nil
	}
	if err != nil {
		return header{}, fmt.Errorf("inspect catalog %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return header{}, fmt.Errorf("%s is %w: it is %s, not a regular file; pidex keeps its catalog in a regular file (choose another --db)", path, pidex.ErrNotCatalog, files.Kind(fi.Mode()))
	}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return header{kind: KindNew}, nil
	}
	if err != nil {
		return header{}, fmt.Errorf("open catalog %s: %w", path, err)
	}
	defer f.Close()
	head := make([]byte, 100)
	n, _ := io.ReadFull(f, head)
	if n == 0 {
		return header{kind: KindNew}, nil
	}
	if n < 100 || string(head[:16]) != "SQLite format 3\x00" {
		return header{kind: KindNotSQLite}, nil
	}
	return header{kind: KindPidex, ours: binary.BigEndian.Uint32(head[68:72]) == applicationID,
		wal: head[18] == 2 && head[19] == 2}, nil
}

// readHeader is inspectHeader refusing a file that is not SQLite, in
// refuseForeign's words.
func readHeader(path string) (header, error) {
	h, err := inspectHeader(path)
	if err == nil && h.kind == KindNotSQLite {
		err = refusal(path, KindNotSQLite)
	}
	return h, err
}

// refuseForeignTables refuses an open catalog whose tables are not
// pidex's (Inspect's rule; the header said pidex's id, see Open).
func (c *DB) refuseForeignTables(ctx context.Context) error {
	var tables []string
	if err := c.SelectContext(ctx, &tables, tablesSQL); err != nil {
		return err
	}
	if kind := kindOf(tables, true); kind == KindForeign {
		return refusal(c.Path, kind)
	}
	return nil
}

// kindOf decides by a database's tables. The header id alone does not
// make a file pidex's (any program may pick the same four bytes, and
// taking its file for a catalog emptied it); pidex's own tables do. A
// database with pidex's header id and no table but goose's (pidex stamps
// the id before the first migration) is a catalog whose creation stopped
// early.
func kindOf(tables []string, ours bool) FileKind {
	if isPidex(tables) {
		return KindPidex
	}
	if len(tables) == 0 || (ours && len(tables) == 1 && tables[0] == "goose_db_version") {
		return KindNew
	}
	return KindForeign
}

// pidexTables are the tables every pidex catalog has had since the first
// (migration 00001, and goose's version table): a database holding all of
// them is a pidex catalog, whatever its header says.
var pidexTables = []string{"goose_db_version", "files", "sessions", "entries"}

func isPidex(tables []string) bool {
	for _, want := range pidexTables {
		if !slices.Contains(tables, want) {
			return false
		}
	}
	return true
}

// tablesSQL lists a database's tables, SQLite's own aside: what kindOf
// decides by.
const tablesSQL = "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"

// tableNames lists the tables of the database at path, read-only. A lock
// held by a process creating the catalog (or SQLite's WAL recovery, which
// answers SQLITE_BUSY_RECOVERY without calling the busy handler) is waited
// out, as Open's setup is.
//
// It also reads the application id through SQLite: in WAL mode the header
// in the file lags what the WAL holds (a catalog being created has its id
// in the WAL until a checkpoint), so the file's bytes are no evidence then.
func tableNames(path string) (tables []string, appID uint32, err error) {
	uri, err := ReadOnlyURI(path, "busy_timeout(5000)")
	if err != nil {
		return nil, 0, err
	}
	db, err := sqlx.Open("sqlite", uri)
	if err != nil {
		return nil, 0, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1) // both reads on one connection, one snapshot apart at most
	err = retryBusy(context.Background(), func() error {
		tables = tables[:0]
		if err := db.Select(&tables, tablesSQL); err != nil {
			return err
		}
		var id int64
		err := db.Get(&id, "PRAGMA application_id")
		appID = uint32(id)
		return err
	})
	return tables, appID, err
}

func stampApplicationID(ctx context.Context, db *sqlx.DB) error {
	var id int64
	if err := db.GetContext(ctx, &id, "PRAGMA application_id"); err != nil {
		return fmt.Errorf("read application id: %w", err)
	}
	if id == applicationID {
		return nil
	}
	if _, err := db.ExecContext(ctx, fmt.Sprintf("PRAGMA application_id = %d", applicationID)); err != nil {
		return fmt.Errorf("mark catalog: %w", err)
	}
	return nil
}
