package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/pidex-dev/pidex"
)

func TestOpenMigratesAndUsesWAL(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "sub", "index.sqlite")
	for i := 0; i < 2; i++ { // the second open finds the schema current
		db, err := Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		var n int
		if err := db.GetContext(ctx, &n, "SELECT count(*) FROM sqlite_master WHERE type IN ('table', 'view') AND name IN ('files','sessions','entries','edges','labels','usage')"); err != nil {
			t.Fatal(err)
		}
		if n != 6 {
			t.Fatalf("got %d catalog tables, want 6", n)
		}
		var mode string
		if err := db.GetContext(ctx, &mode, "PRAGMA journal_mode"); err != nil || mode != "wal" {
			t.Fatalf("journal_mode = %q, %v", mode, err)
		}
		db.Close()
	}
}

// The pool is bounded: every connection may hold its own page cache.
func TestOpenBoundsThePool(t *testing.T) {
	db, err := Open(context.Background(), filepath.Join(t.TempDir(), "index.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	got, want := db.Stats().MaxOpenConnections, max(4, runtime.GOMAXPROCS(0))+1
	if got != want || got <= 0 {
		t.Fatalf("MaxOpenConnections = %d, want %d", got, want)
	}
}

// Idle connections stay open (until connMaxIdleTime): with two kept, the
// indexer's writer lost its connection, page cache and statements at every
// commit that found the readers' connections idle.
func TestPoolKeepsIdleConnections(t *testing.T) {
	ctx := context.Background()
	db := openTemp(t)
	// Four connections at once: three open cursors and a transaction.
	var open []*sql.Rows
	for range 3 {
		rows, err := db.QueryContext(ctx, "SELECT 1 UNION ALL SELECT 2")
		if err != nil {
			t.Fatal(err)
		}
		open = append(open, rows)
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, "INSERT INTO meta (key, value) VALUES ('k', 'v')"); err != nil {
		t.Fatal(err)
	}
	for _, rows := range open {
		rows.Close()
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	st := db.Stats()
	if st.MaxIdleClosed != 0 || st.Idle != 4 {
		t.Fatalf("after four connections at once: %d idle, %d closed for the idle bound; want 4 and 0", st.Idle, st.MaxIdleClosed)
	}
}

// Many more readers than connections all finish, and so does a writer that
// holds its transaction's connection while it takes a second one to
// prepare a statement, as the indexer's writer does: a reader never holds
// a connection while it waits for another, so the writer's wait ends.
func TestBoundedPoolManyReadersAndAWriter(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	db := openTemp(t)
	if _, err := db.ExecContext(ctx, "CREATE TABLE scratch (n INTEGER)"); err != nil {
		t.Fatal(err)
	}
	bound := db.Stats().MaxOpenConnections
	if bound <= 0 {
		t.Fatal("the pool is unbounded")
	}
	readers := max(50, 4*bound)
	const queries = 10
	// Each query takes a few milliseconds, long enough to be preempted, so
	// that the readers overlap and queue for connections.
	const slow = `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 5000)
		SELECT count(*) FROM c, (SELECT count(*) FROM scratch)`
	start := make(chan struct{})
	errs := make(chan error, readers+1)
	var wg sync.WaitGroup
	for range readers {
		wg.Go(func() {
			<-start
			for range queries {
				var n int
				if err := db.GetContext(ctx, &n, slow); err != nil {
					errs <- err
					return
				}
				if n != 5000 {
					errs <- fmt.Errorf("count = %d", n)
					return
				}
			}
		})
	}
	wg.Go(func() {
		<-start
		for i := range queries {
			tx, err := db.BeginTxx(ctx, nil)
			if err != nil {
				errs <- err
				return
			}
			// A statement new to the pool is prepared on some connection
			// other than the transaction's.
			st, err := db.PreparexContext(ctx, fmt.Sprintf("INSERT INTO scratch (n) VALUES (? + %d)", i))
			if err == nil {
				_, err = tx.StmtxContext(ctx, st).ExecContext(ctx, i)
				st.Close()
			}
			if err == nil {
				err = tx.Commit()
			}
			if err != nil {
				tx.Rollback()
				errs <- err
				return
			}
		}
	})
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	var n int
	if err := db.GetContext(ctx, &n, "SELECT count(*) FROM scratch"); err != nil || n != queries {
		t.Fatalf("%d rows written (%v), want %d", n, err, queries)
	}
	st := db.Stats()
	if st.OpenConnections > bound {
		t.Fatalf("%d connections open, bound %d", st.OpenConnections, bound)
	}
	t.Logf("bound %d, %d readers: %d waits for a connection, %v waited in all", bound, readers, st.WaitCount, st.WaitDuration.Round(time.Millisecond))
}

// A new catalog is private: its folder 0700, the file and its WAL 0600.
func TestNewCatalogIsPrivate(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Unix modes")
	}
	dir := filepath.Join(t.TempDir(), "cache", "pidex")
	p := filepath.Join(dir, "index.sqlite")
	db, err := Open(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.MustExec("INSERT INTO meta (key, value) VALUES ('x', 'y')")
	for path, want := range map[string]os.FileMode{dir: 0o700, p: 0o600, p + "-wal": 0o600} {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != want {
			t.Errorf("%s: mode %o, want %o", filepath.Base(path), got, want)
		}
	}
}

// Processes creating one new catalog at once all succeed: setup is
// retried while another one holds it (each handle here is its own
// connection pool, as a process would be).
func TestConcurrentCreation(t *testing.T) {
	for round := range 3 {
		p := filepath.Join(t.TempDir(), fmt.Sprintf("c%d.sqlite", round))
		errs := make(chan error, 8)
		for range 8 {
			go func() {
				db, err := Open(context.Background(), p)
				if err == nil {
					db.Close()
				}
				errs <- err
			}()
		}
		for range 8 {
			if err := <-errs; err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
		}
	}
}

// Planner statistics leave the full-text index alone: gathered while it
// is empty, they made FTS5's own statements slow for the text pass.
func TestAnalyzeLeavesTheTextIndexAlone(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "c.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`INSERT INTO meta (key, value) VALUES ('k', 'v')`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO text_index (rowid, text) VALUES (1, 'some words')`); err != nil {
		t.Fatal(err)
	}
	if err := db.Analyze(ctx); err != nil {
		t.Fatal(err)
	}
	var fts, others int
	if err := db.Get(&fts, `SELECT count(*) FROM sqlite_stat1 WHERE tbl LIKE 'text_index%'`); err != nil {
		t.Fatal(err)
	}
	if err := db.Get(&others, `SELECT count(*) FROM sqlite_stat1 WHERE tbl = 'meta'`); err != nil {
		t.Fatal(err)
	}
	if fts != 0 || others == 0 {
		t.Errorf("statistics rows: %d for the text index (want 0), %d for meta (want some)", fts, others)
	}
}

// --db at something that is not a regular file is refused with an error
// naming it, before anything opens it: a FIFO used to block Open forever,
// and /dev/null made SQLite create /dev/null-journal (as root). (A
// device is checked by hand: as root, a regression would write in /dev.)
func TestCatalogPathMustBeARegularFile(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no FIFOs")
	}
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.sqlite")
	if err := mkfifo(fifo); err != nil {
		t.Fatal(err)
	}
	// Whatever happens, the FIFO gets a writer at the end, so that an
	// Open blocked in it returns and the test can end.
	defer func() {
		if f, err := os.OpenFile(fifo, os.O_RDWR, 0); err == nil {
			f.Close()
		}
	}()
	folder := filepath.Join(dir, "folder.sqlite")
	if err := os.Mkdir(folder, 0o700); err != nil {
		t.Fatal(err)
	}
	for path, what := range map[string]string{fifo: "named pipe", folder: "folder"} {
		done := make(chan error, 1)
		go func() {
			db, err := Open(context.Background(), path)
			if err == nil {
				db.Close()
			}
			done <- err
		}()
		select {
		case err := <-done:
			if !errors.Is(err, pidex.ErrNotCatalog) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), what) {
				t.Errorf("Open(%s): %v, want a refusal naming the path and saying it is a %s", filepath.Base(path), err, what)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("Open(%s) still blocked after 30 s", filepath.Base(path))
		}
	}
	for _, side := range []string{"-journal", "-wal", "-shm"} {
		if _, err := os.Stat(fifo + side); err == nil {
			t.Errorf("%s was created beside the FIFO", side)
		}
	}
}

// A database whose header happens to say "pidx" but that holds none of
// pidex's tables is someone else's: refused, and its bytes stay as they
// were (it used to be taken for an old catalog and emptied). In WAL mode
// too, where Open checks the tables on its own connection instead of a
// read-only one first.
func TestHeaderIDAloneIsNotACatalog(t *testing.T) {
	for _, mode := range []string{"DELETE", "WAL"} {
		t.Run(mode, func(t *testing.T) { testHeaderIDAlone(t, mode) })
	}
}

func testHeaderIDAlone(t *testing.T, mode string) {
	path := filepath.Join(t.TempDir(), "notes.db")
	db := sqlx.MustOpen("sqlite", path)
	db.MustExec(fmt.Sprintf("PRAGMA application_id = %d", applicationID))
	db.MustExec("PRAGMA journal_mode = " + mode)
	db.MustExec("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('keep me')")
	db.Close()
	if h, err := inspectHeader(path); err != nil || h.pidexWAL() != (mode == "WAL") {
		t.Fatalf("header %+v, %v", h, err)
	}
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if kind, err := Inspect(path); err != nil || kind != KindForeign {
		t.Errorf("Inspect: %v, %v; want KindForeign", kind, err)
	}
	if c, err := Open(context.Background(), path); !errors.Is(err, pidex.ErrNotCatalog) {
		if err == nil {
			c.Close()
		}
		t.Errorf("Open: %v, want pidex.ErrNotCatalog", err)
	}
	if err := Reset(context.Background(), path); err == nil {
		t.Error("Reset emptied it")
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Error("the database was changed")
	}
}

// The setup lock excludes a second holder (another process, or another
// handle in this one) until the first lets go.
func TestSetupLockExcludes(t *testing.T) {
	if !setupLocked {
		t.Skip("no setup lock on this platform")
	}
	path := filepath.Join(t.TempDir(), "c.sqlite")
	unlock, err := lockSetup(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := lockSetup(ctx, path); !errors.Is(err, context.Canceled) {
		t.Fatalf("a second lock while the first is held: %v, want to wait (and give up with the context)", err)
	}
	unlock()
	unlock2, err := lockSetup(ctx, path)
	if err != nil {
		t.Fatalf("the lock once released: %v", err)
	}
	unlock2()
}

// A catalog deleted under an open handle: the handle makes a new private
// one (0600, its folder 0700) and its connections move to it, the ones
// already open on the deleted file included; replaced by another file (a
// command made a new catalog there), the handle moves to that one.
func TestDeletedCatalogIsRecreatedPrivate(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("an open file cannot be deleted")
	}
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "cache", "index.sqlite")
	c, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.MustExec("INSERT INTO meta (key, value) VALUES ('where', 'the first file')")
	where := func() string {
		var w string
		if err := c.Get(&w, "SELECT COALESCE((SELECT value FROM meta WHERE key = 'where'), 'nowhere')"); err != nil {
			t.Fatal(err)
		}
		return w
	}
	if moved, err := c.Verify(ctx); err != nil || moved {
		t.Fatalf("Verify on the catalog as opened: %v, %v", moved, err)
	}
	for _, s := range []string{"", "-wal", "-shm"} {
		os.Remove(path + s)
	}
	if !c.Moved() {
		t.Error("Moved does not see the deletion")
	}
	if moved, err := c.Verify(ctx); err != nil || !moved {
		t.Fatalf("Verify after the deletion: %v, %v", moved, err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the new catalog: %v, %v; want mode 600", fi, err)
	}
	if w := where(); w != "nowhere" {
		t.Errorf("a query after the move read %q", w)
	}
	var n int
	if err := c.Get(&n, "SELECT count(*) FROM files"); err != nil {
		t.Errorf("the new catalog has no schema: %v", err)
	}

	// Replaced: deleted again, and another handle makes a catalog there.
	for _, s := range []string{"", "-wal", "-shm"} {
		os.Remove(path + s)
	}
	other, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	other.MustExec("INSERT INTO meta (key, value) VALUES ('where', 'the other file')")
	defer other.Close()
	if moved, err := c.Verify(ctx); err != nil || !moved {
		t.Fatalf("Verify after the replacement: %v, %v", moved, err)
	}
	if w := where(); w != "the other file" {
		t.Errorf("after the replacement the handle reads %q", w)
	}
}

// TestWritersDoNotMap: a connection reads through a memory map (MmapPragma)
// except in a write transaction, whose pages would otherwise stay mapped
// and count in the memory of a cold index; a read-only transaction on the
// same connection maps again.
func TestWritersDoNotMap(t *testing.T) {
	ctx := context.Background()
	db := openTemp(t)
	db.SetMaxOpenConns(1) // every transaction on the same connection
	mapped := func(tx *sql.Tx) int64 {
		t.Helper()
		var n int64
		if err := tx.QueryRowContext(ctx, "PRAGMA mmap_size").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	want := int64(mmapSize)
	for i, readOnly := range []bool{true, false, false, true, false} {
		tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: readOnly})
		if err != nil {
			t.Fatal(err)
		}
		got, wantNow := mapped(tx), want
		if !readOnly {
			wantNow = 0
		}
		tx.Rollback()
		if got != wantNow {
			t.Errorf("transaction %d (read-only %v): mmap_size %d, want %d", i, readOnly, got, wantNow)
		}
	}
}

// openTemp opens a new catalog in a temporary folder, closed at the
// test's end.
func openTemp(t *testing.T) *DB {
	t.Helper()
	db, err := Open(context.Background(), filepath.Join(t.TempDir(), "index.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// Migrate leaves goose out only when the applied versions are exactly the
// embedded ones; any other state is goose's to decide (and Migrate then
// applies what is missing, as goose would).
func TestMigratedIsExactlyTheEmbeddedVersions(t *testing.T) {
	ctx := context.Background()
	want, err := embeddedVersions()
	if err != nil || len(want) < 16 || want[0] != 1 {
		t.Fatalf("embedded versions %v, %v", want, err)
	}
	last := want[len(want)-1]
	for _, tc := range []struct {
		name    string
		change  string // run on a migrated catalog
		current bool
	}{
		{"migrated", "", true},
		{"the last one undone", fmt.Sprintf("INSERT INTO goose_db_version (version_id, is_applied) VALUES (%d, 0)", last), false},
		{"the last one missing", fmt.Sprintf("DELETE FROM goose_db_version WHERE version_id = %d", last), false},
		{"one more than this pidex knows", fmt.Sprintf("INSERT INTO goose_db_version (version_id, is_applied) VALUES (%d, 1)", last+1), false},
		{"undone, then applied again", fmt.Sprintf("INSERT INTO goose_db_version (version_id, is_applied) VALUES (%d, 0), (%d, 1)", last, last), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db, err := Open(ctx, filepath.Join(t.TempDir(), "c.sqlite"))
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if tc.change != "" {
				if _, err := db.ExecContext(ctx, tc.change); err != nil {
					t.Fatal(err)
				}
			}
			if got, err := migrated(ctx, db.DB); got != tc.current || err != nil {
				t.Fatalf("migrated = %v, %v; want %v", got, err, tc.current)
			}
		})
	}
	raw, err := sqlx.Open("sqlite", filepath.Join(t.TempDir(), "new.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if got, err := migrated(ctx, raw); got || err == nil {
		t.Fatalf("a database without goose's table: migrated = %v, %v; want false and an error", got, err)
	}
}

// A catalog made before the newest migration gets it: undone with its own
// Down section, it is applied again by Migrate, and the catalog's schema
// (and the rows a migration writes, read_caches) is a fresh one's again.
func TestMigrateAppliesWhatIsMissing(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "c.sqlite")
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	schema := func() string {
		var rows []string
		if err := db.SelectContext(ctx, &rows, `SELECT type || ' ' || name || ': ' || COALESCE(sql, '') FROM sqlite_master
			WHERE name NOT LIKE 'sqlite_%' UNION ALL SELECT 'read_caches ' || name FROM read_caches ORDER BY 1`); err != nil {
			t.Fatal(err)
		}
		return strings.Join(rows, "\n")
	}
	want := schema()
	// The newest migration undone by its own Down: goose must apply it again.
	p, err := provider(db.DB)
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Down(ctx)
	if err != nil {
		t.Fatalf("undo the newest migration: %v", err)
	}
	if current, _ := migrated(ctx, db.DB); current || schema() == want {
		t.Fatalf("migration %d's Down changed nothing: the test would prove nothing", res.Source.Version)
	}
	if err := Migrate(ctx, db.DB); err != nil {
		t.Fatal(err)
	}
	if ok, err := migrated(ctx, db.DB); !ok || err != nil {
		t.Fatalf("after Migrate: migrated = %v, %v; want true (migration %d applied again)", ok, err, res.Source.Version)
	}
	if got := schema(); got != want {
		t.Errorf("after Migrate (migration %d applied again), the schema differs from a fresh catalog's:\n%s\n--- fresh:\n%s", res.Source.Version, got, want)
	}
}
