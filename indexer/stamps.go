package indexer

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"github.com/jmoiron/sqlx"

	"github.com/pidex-dev/pidex/sqlite"
)

// The stamps a no-change refresh compares with the disk come from the
// catalog's stamps cache (sqlite.CacheStamps) when it is valid: one blob
// instead of 3,000 rows of 8 columns, each column a call through the
// driver (the rows took a quarter of a no-change refresh's CPU). When it
// is not, they come from the files table, and the blob made from those
// rows is kept once a refresh has found nothing to change (keepStamps).

// storedStamps is the catalog's stamps under the refresh's roots, in path
// order, and the blob to keep when they were read from the rows (nil: read
// from the blob). In path order, as a listing is, a refresh that changes
// nothing compares the two side by side (unchangedAll); only one that
// plans needs them by path.
type storedStamps struct {
	list []fileStamp
	gen  int64
	blob []byte
}

// byPath is the stamps by path, for the plan.
func (s storedStamps) byPath() map[string]fileStamp {
	m := make(map[string]fileStamp, len(s.list))
	for _, f := range s.list {
		m[f.Path] = f
	}
	return m
}

// stampsVersion is the blob's format; a blob of another version is read
// as no blob (the rows are read and a new one is kept). Version 2: the
// stamps in path order.
const stampsVersion = 2

func loadStamps(ctx context.Context, db *sqlite.DB, roots []string, fromRows func()) (storedStamps, error) {
	tx, err := db.BeginTxx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return storedStamps{}, fmt.Errorf("load files: %w", err)
	}
	defer tx.Rollback()
	c, err := db.LoadCache(ctx, tx, sqlite.CacheStamps)
	if err != nil {
		return storedStamps{}, err
	}
	if c.Data != nil {
		if list, err := decodeStampsUnder(c.Data, roots); err == nil {
			return storedStamps{list: list}, nil
		}
	}
	if fromRows != nil {
		fromRows()
	}
	all, err := stampRows(ctx, tx)
	if err != nil {
		return storedStamps{}, err
	}
	return storedStamps{list: underRoots(all, roots), gen: c.Gen, blob: encodeStamps(all)}, nil
}

// underRoots is the stamps of the files under roots: the blob, like the
// rows, holds every root's.
func underRoots(all []rootStamp, roots []string) []fileStamp {
	m := make([]fileStamp, 0, len(all))
	for _, s := range all {
		if slices.Contains(roots, s.root) {
			m = append(m, s.fileStamp)
		}
	}
	return m
}

// keepStamps stores the blob made from the rows this refresh read, if it
// read them and changed nothing since (the cache's generation says so).
func (ix *Indexer) keepStamps(ctx context.Context, s storedStamps) error {
	return ix.DB.StoreCacheLocked(ctx, sqlite.CacheStamps, s.gen, s.blob)
}

// rootStamp is a stamp and the root its file was found under.
type rootStamp struct {
	fileStamp
	root string
}

func stampRows(ctx context.Context, tx *sqlx.Tx) ([]rootStamp, error) {
	rows, err := tx.QueryContext(ctx, `SELECT path, root, kind, racy, size, mtime_ns, dev, ino FROM files ORDER BY path`)
	if err != nil {
		return nil, fmt.Errorf("load files: %w", err)
	}
	defer rows.Close()
	var out []rootStamp
	for rows.Next() {
		var s rootStamp
		if err := rows.Scan(&s.Path, &s.root, &s.Kind, &s.Racy, &s.Size, &s.MtimeNs, &s.Dev, &s.Ino); err != nil {
			return nil, fmt.Errorf("load files: %w", err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("load files: %w", err)
	}
	return out, nil
}

// encodeStamps writes the blob (all in path order, as stampRows reads
// them): per file its path, root and kind
// (strings), racy (a byte) and size, mtime, dev and ino (varints).
func encodeStamps(all []rootStamp) []byte {
	b := sqlite.NewBlob(stampsVersion, len(all)*160)
	for _, s := range all {
		b = sqlite.AppendString(b, s.Path)
		b = sqlite.AppendString(b, s.root)
		b = sqlite.AppendString(b, string(s.Kind))
		racy := byte(0)
		if s.Racy {
			racy = 1
		}
		b = append(b, racy)
		b = binary.AppendVarint(b, s.Size)
		b = binary.AppendVarint(b, s.MtimeNs)
		b = binary.AppendVarint(b, s.Dev)
		b = binary.AppendVarint(b, s.Ino)
	}
	return b
}

// errStampsOrder: a blob whose stamps are not in strictly increasing path
// order (not one encodeStamps wrote from the rows).
var errStampsOrder = errors.New("stamps out of path order")

// decodeStampsUnder reads encodeStamps' blob into underRoots' list, with
// no slice of every stamp between (fresh memory, so page faults).
func decodeStampsUnder(b []byte, roots []string) ([]fileStamp, error) {
	d, err := sqlite.NewBlobReader(b, stampsVersion)
	if err != nil {
		return nil, err
	}
	m := make([]fileStamp, 0, len(b)/160+16) // about 170 bytes a stamp
	last := ""
	for d.More() {
		var s rootStamp
		s.Path, s.root, s.Kind = d.String(), d.String(), FileKind(d.String())
		s.Racy = d.Byte() != 0
		s.Size, s.MtimeNs, s.Dev, s.Ino = d.Varint(), d.Varint(), d.Varint(), d.Varint()
		if s.Path <= last && last != "" {
			return nil, errStampsOrder
		}
		last = s.Path
		if slices.Contains(roots, s.root) {
			m = append(m, s.fileStamp)
		}
	}
	if err := d.Err(); err != nil {
		return nil, err
	}
	return m, nil
}
