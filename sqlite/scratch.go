package sqlite

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"

	"github.com/jmoiron/sqlx"
)

// OwnConn opens one connection to the catalog outside the pool, for a
// write that must not meet a pooled connection's caches: FTS5 keeps each
// connection's copy of its index's structure and renews it when another
// connection commits, not when its own connection writes the index's
// tables directly (the indexer's adoption of a text index built beside
// the catalog). It maps nothing: it writes, and what a writer maps stays
// in the process's memory (see MmapPragma). The caller closes it.
func (c *DB) OwnConn() (*sqlx.DB, error) {
	db, err := sqlx.Open("sqlite", dsnMapped(c.Path, "mmap_size(0)"))
	if err != nil {
		return nil, fmt.Errorf("open catalog %s: %w", c.Path, err)
	}
	db.SetMaxOpenConns(1)
	return db, nil
}

// OpenScratch creates a database file at path, new (one left there is
// removed first) and private like the catalog, for work that is thrown
// away if it does not finish: no journal, no syncs, one connection. The
// caller closes it and removes the file.
func OpenScratch(path string) (*sqlx.DB, error) {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("create scratch database: %w", err)
	}
	// Not createPrivate, which takes a file already there: one made in
	// between is another process's build, never shared.
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, fmt.Errorf("create scratch database: %w", err)
	}
	f.Close()
	q := url.Values{}
	q.Set("mode", "rw")
	q.Add("_pragma", "journal_mode(OFF)")
	q.Add("_pragma", "synchronous(OFF)")
	q.Add("_pragma", CachePragma)
	q.Add("_pragma", TempPragma)
	db, err := sqlx.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		os.Remove(path)
		return nil, fmt.Errorf("open scratch database: %w", err)
	}
	db.SetMaxOpenConns(1)
	return db, nil
}
