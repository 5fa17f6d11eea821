package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/pidex-dev/pidex"
)

// The read caches (migration 00012): one blob each of what every command
// reads whole, kept beside the rows it is made from.
const (
	// CacheStamps: every file's stamp (path, root, kind, racy, stat), which
	// a refresh compares with the disk.
	CacheStamps = "stamps"
	// CacheListing: every session's listing record (query.Reader.List).
	CacheListing = "listing"
	// Each rollup (pidex.Rollups) is a cache of its own, named after its
	// table (migration 00016): its rows, which a cost report sums in Go.
)

// cacheNames are every read cache's name.
func cacheNames() []string {
	out := []string{CacheStamps, CacheListing}
	for _, r := range pidex.Rollups {
		out = append(out, r.Table)
	}
	return out
}

// Cache is a read cache as one read transaction found it: Gen is the
// generation of the rows then, Data the blob if it was made from exactly
// those rows (else nil: make it from the rows, read in the same
// transaction, and StoreCache it with Gen).
type Cache struct {
	Gen  int64
	Data []byte
}

// LoadCache reads the cache name in q, which must be the transaction the
// rows are read in when the blob is not valid: its generation and the rows
// then agree. The blob comes from the cache's file when the row names it
// (cachefile.go), mapped if the handle is OneShot; callers must not change
// it, and may keep strings that share its bytes.
func (c *DB) LoadCache(ctx context.Context, q sqlx.QueryerContext, name string) (Cache, error) {
	var ca Cache
	var dataGen sql.NullInt64
	err := q.QueryRowxContext(ctx, `SELECT gen, data_gen, CASE WHEN data_gen = gen THEN data END FROM read_caches WHERE name = ?`, name).
		Scan(&ca.Gen, &dataGen, (*driverBytes)(&ca.Data))
	if errors.Is(err, sql.ErrNoRows) {
		return Cache{Gen: -1}, nil // never stored: StoreCache will not either
	}
	if err != nil {
		return Cache{}, fmt.Errorf("read %s cache: %w", name, err)
	}
	if !dataGen.Valid || dataGen.Int64 != ca.Gen {
		ca.Data = nil
	}
	if isToken(ca.Data) {
		path := c.cacheFile(name)
		if path == "" {
			ca.Data = nil
		} else if ca.Data, err = readCacheFile(path, ca.Data, c.OneShot && c.mapped.take()); err != nil {
			ca.Data = nil // made again from the rows, and stored again
		}
	}
	return ca, nil
}

// CacheGen reads, in q, the cache name's generation and whether its blob
// is valid for it, without the blob: a process that keeps what it decoded
// of that generation (query's listing memo) need not read it again.
func CacheGen(ctx context.Context, q sqlx.QueryerContext, name string) (gen int64, valid bool, err error) {
	err = q.QueryRowxContext(ctx, `SELECT gen, data_gen IS gen FROM read_caches WHERE name = ?`, name).Scan(&gen, &valid)
	if errors.Is(err, sql.ErrNoRows) {
		return -1, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("read %s cache: %w", name, err)
	}
	return gen, valid, nil
}

// StoreCache keeps data as the cache name, made from the rows of
// generation gen, unless they have changed since (then it stores nothing:
// the blob would be stale). One statement, so one short write
// transaction; another process's writer is waited for briefly at most,
// then the blob is dropped (that writer is changing the rows anyway).
func (c *DB) StoreCache(ctx context.Context, name string, gen int64, data []byte) error {
	if !c.writer.TryLock() {
		return nil // this process is refreshing: the rows are changing
	}
	defer c.writer.Unlock()
	return c.StoreCacheLocked(ctx, name, gen, data)
}

// StoreCacheLocked is StoreCache for the holder of the writer lock (the
// indexer, at the end of a refresh). The blob goes into the cache's file
// and the row gets its token; where no file can be written, into the row.
func (c *DB) StoreCacheLocked(ctx context.Context, name string, gen int64, data []byte) error {
	if c.ReadOnly || gen < 0 || data == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, storeWait)
	defer cancel()
	// The file first: once the row names its token, a reader trusts it.
	// Should the update then not happen (the rows changed), the file
	// answers no one.
	row := data
	if path := c.cacheFile(name); path != "" {
		if token, err := newToken(); err == nil && writeCacheFile(path, token, data) == nil {
			row = token
		}
	}
	_, err := c.ExecContext(ctx, `UPDATE read_caches SET data = ?, data_gen = gen WHERE name = ? AND gen = ?`, row, name, gen)
	if err != nil && !isBusy(err) && ctx.Err() == nil {
		return fmt.Errorf("store %s cache: %w", name, err)
	}
	return nil
}

// storeWait bounds how long storing a cache waits for another process's
// write transaction: a command never waits on the busy timeout (10 s) for
// a blob it can do without.
const storeWait = 250 * time.Millisecond

// driverBytes scans a blob without database/sql's copy of it: the
// listing's is megabytes, and each copy of it was as many fresh pages to
// fault in (a tenth of `pidex list` on a machine whose faults are dear).
// Keeping the driver's slice is safe here though Scanner's contract says
// to copy: the query reads one row and closes its rows before the slice
// is used, and a driver must not modify a buffer it returned once its
// rows are closed (driver.Rows.Next); modernc's is a fresh slice per value.
type driverBytes []byte

func (b *driverBytes) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		*b = nil
	case []byte:
		*b = v
	default:
		return fmt.Errorf("read cache: a blob of type %T", src)
	}
	return nil
}
