package query

import (
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"

	"github.com/jmoiron/sqlx"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/sqlite"
	"github.com/pidex-dev/pidex/internal/readside"
)

// A listing reads every listed session of the catalog, then filters,
// sorts and pages in Go. The sessions come from the catalog's listing
// cache (sqlite.CacheListing) when it is valid: one blob instead of
// 3,000 rows of 22 columns, each column a call through the driver (30 ms
// of `pidex list`'s ~90). When it is not, they come from the rows, and
// the blob made from them is handed back to the catalog (rd.keep).

// listedRow is a session's listing row and the root its file lies under.
type listedRow struct {
	readside.SessionRow
	root string
}

// listingSQL is infoSQL for every listed session, with the file's root.
// omp's subagent transcripts are not listed (omp lists
// <sessions>/*/*.jsonl only); search and cost read them.
const listingSQL = `SELECT ` + infoColumns + `, f.root` + infoFrom + ` WHERE s.subagent = 0`

// listing returns every listed session of the catalog.
func (rd *Reader) listing(ctx context.Context) ([]listedRow, error) {
	tx, err := rd.db.BeginTxx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	defer tx.Rollback()
	// A long-lived reader (serve, mcp) asks for the listing again and
	// again (a page and its count): decoded once per generation.
	if rows, ok, err := rd.listings.valid(ctx, tx, sqlite.CacheListing); err != nil {
		return nil, err
	} else if ok {
		return rows, nil
	}
	c, err := rd.db.LoadCache(ctx, tx, sqlite.CacheListing)
	if err != nil {
		return nil, err
	}
	if c.Data != nil {
		if all, err := decodeListing(c.Data); err == nil {
			rd.listings.set(sqlite.CacheListing, c.Gen, all)
			return all, nil
		}
	}
	all, err := listingRows(ctx, tx)
	if err != nil {
		return nil, err
	}
	tx.Rollback() // read: the snapshot can go before the blob is stored
	if rd.keep != nil {
		// A blob that cannot be stored now is made again next time: the
		// listing itself is answered either way.
		_ = rd.keep(ctx, sqlite.CacheListing, c.Gen, encodeListing(all))
	}
	return all, nil
}

func listingRows(ctx context.Context, tx *sqlx.Tx) ([]listedRow, error) {
	rows, err := tx.QueryContext(ctx, listingSQL)
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	defer rows.Close()
	var all []listedRow
	for rows.Next() {
		var r listedRow
		if err := rows.Scan(append(r.Dest(false), &r.root)...); err != nil {
			return nil, fmt.Errorf("list sessions: %w", err)
		}
		all = append(all, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	return all, nil
}

// listFilter is f for listed rows: whether a row passes the reader's
// roots and f's filters. Case is folded as SQLite's lower() folds it
// (readside.ASCIILower), so that a listing filters as the team catalog's
// SQL does; the filters' own words are folded once, not per row.
func (rd *Reader) listFilter(f pidex.ListFilter) func(r *listedRow) bool {
	project, name := readside.ASCIILower(f.Project), readside.ASCIILower(f.Name)
	since, until := f.Since.UnixMilli(), f.Until.UnixMilli()
	return func(r *listedRow) bool {
		switch {
		case len(rd.roots) > 0 && !slices.Contains(rd.roots, r.root),
			f.Cwd != "" && r.Cwd != f.Cwd,
			project != "" && !strings.Contains(readside.ASCIILower(r.Cwd), project),
			name != "" && (r.Name == nil || !strings.Contains(readside.ASCIILower(*r.Name), name)),
			len(f.Agents) > 0 && !slices.Contains(f.Agents, r.Source),
			!f.Since.IsZero() && r.Modified < since,
			!f.Until.IsZero() && r.Modified >= until:
			return false
		}
		return true
	}
}

// listingVersion is the blob's format; a blob of another version is read
// as no blob.
const listingVersion = 1

// encodeListing writes the blob: per session the fields of
// readside.SessionRow in order and the root (strings as
// sqlite.AppendString, integers as varints, floats as their bits, a
// nullable value as a presence byte before it).
func encodeListing(all []listedRow) []byte {
	n := 1
	for i := range all {
		n += 128 + len(all[i].Path) + len(all[i].Cwd) + len(all[i].FirstMessage) + len(all[i].Models) + len(all[i].root)
	}
	b := sqlite.NewBlob(listingVersion, n)
	for i := range all {
		r := &all[i]
		b = binary.AppendVarint(b, r.FileID)
		b = sqlite.AppendString(b, r.Path)
		b = sqlite.AppendString(b, r.SessionID)
		b = sqlite.AppendString(b, r.Cwd)
		b = appendOptString(b, r.Name)
		b = sqlite.AppendString(b, r.ParentSession)
		if r.CreatedMs != nil {
			b = binary.AppendVarint(append(b, 1), *r.CreatedMs)
		} else {
			b = append(b, 0)
		}
		b = binary.AppendVarint(b, r.Modified)
		b = binary.AppendVarint(b, r.MessageCount)
		b = sqlite.AppendString(b, r.FirstMessage)
		b = binary.AppendVarint(b, r.EntryCount)
		b = appendOptString(b, r.LeafID)
		b = binary.AppendVarint(b, r.BranchPoints)
		b = sqlite.AppendString(b, r.Models)
		for _, f := range [...]float64{r.Input, r.Output, r.CacheRead, r.CacheWrite, r.TotalTokens, r.Cost} {
			b = sqlite.AppendFloat(b, f)
		}
		b = binary.AppendVarint(b, r.Size)
		b = sqlite.AppendString(b, r.Source)
		b = sqlite.AppendString(b, r.root)
	}
	return b
}

func appendOptString(b []byte, s *string) []byte {
	if s == nil {
		return append(b, 0)
	}
	return sqlite.AppendString(append(b, 1), *s)
}

// decodeListing reads encodeListing's blob.
func decodeListing(b []byte) ([]listedRow, error) {
	d, err := sqlite.NewBlobReader(b, listingVersion)
	if err != nil {
		return nil, err
	}
	// Sized by the blob (about 1.3 KB a session): the rows are a few
	// hundred bytes each, and growing the slice by appending faulted in
	// twice their size of fresh pages.
	all := make([]listedRow, 0, len(b)/512+16)
	for d.More() {
		var r listedRow
		r.FileID = d.Varint()
		r.Path, r.SessionID, r.Cwd = d.String(), d.String(), d.String()
		r.Name = optString(d)
		r.ParentSession = d.String()
		if d.Byte() == 1 {
			c := d.Varint()
			r.CreatedMs = &c
		}
		r.Modified, r.MessageCount = d.Varint(), d.Varint()
		r.FirstMessage = d.String()
		r.EntryCount = d.Varint()
		r.LeafID = optString(d)
		r.BranchPoints = d.Varint()
		r.Models = d.String()
		r.Input, r.Output, r.CacheRead, r.CacheWrite, r.TotalTokens, r.Cost = d.Float(), d.Float(), d.Float(), d.Float(), d.Float(), d.Float()
		r.Size = d.Varint()
		r.Source, r.root = d.String(), d.String()
		all = append(all, r)
	}
	if err := d.Err(); err != nil {
		return nil, err
	}
	return all, nil
}

func optString(d *sqlite.BlobReader) *string {
	if d.Byte() != 1 {
		return nil
	}
	s := d.String()
	return &s
}
