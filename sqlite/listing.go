package sqlite

import (
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"

	"github.com/jmoiron/sqlx"

	"github.com/pidex-dev/pidex/query"
)

// A listing reads every listed session of the catalog, then filters,
// sorts and pages in Go. The sessions come from the catalog's listing
// cache (CacheListing) when it is valid: one blob instead of 3,000 rows
// of 22 columns, each column a call through the driver (30 ms of `pidex
// list`'s ~90). When it is not, they come from the rows, and the blob
// made from them is handed back to the catalog (Reader.keep).

// Sessions is p over every listed session, filtered, sorted and paged
// in Go (query.ListPlan.Page), or by SQL when a condition needs it.
func (r *Reader) Sessions(ctx context.Context, p *query.ListPlan) ([]*query.SessionRow, int, error) {
	if r.db.OneShot && p.Cut() {
		// Asked once, for a page, a count or a few: cut from the blob as
		// it is read, only the rows kept decoded to keep (pageBlob). A
		// whole listing decodes every row once, below, not twice.
		if page, n, ok, err := r.pageBlob(ctx, p); err != nil || ok {
			return page, n, err
		}
	}
	all, err := r.listing(ctx)
	if err != nil {
		return nil, 0, err
	}
	if page, n, ok := p.Page(all); ok {
		return page, n, nil
	}
	return query.RunSessions(ctx, r.db.DB, query.SQLite, p)
}

// pageBlob is p over the listing cache's blob, read row by row into one
// variable (query.ListPlan.PageOf): only the page's rows are decoded to
// keep, again from where each starts. At 30,000 sessions the rows decoded
// and kept were most of `list --limit 50` (30 of its 65 ms, and their
// garbage collected as they were made). ok is false when there is no
// valid blob (the listing reads the rows and keeps one) or p needs SQL.
func (r *Reader) pageBlob(ctx context.Context, p *query.ListPlan) (page []*query.SessionRow, n int, ok bool, err error) {
	tx, err := r.db.BeginTxx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, 0, false, fmt.Errorf("list sessions: %w", err)
	}
	defer tx.Rollback()
	if rows, ok, err := r.listings.valid(ctx, tx, CacheListing); err != nil {
		return nil, 0, false, err
	} else if ok { // a whole listing decoded it already
		page, n, ok := p.Page(rows)
		return page, n, ok, nil
	}
	// The blob itself is kept for the reader's next cut (a page, then the
	// subagents under it): read and checked once (a checksum of 26 MB at
	// 30,000 sessions).
	blob, ok, err := r.blobs.valid(ctx, tx, CacheListing)
	if err != nil {
		return nil, 0, false, err
	}
	if !ok {
		c, err := r.db.LoadCache(ctx, tx, CacheListing)
		if err != nil || c.Data == nil {
			return nil, 0, false, err
		}
		blob = c.Data
		r.blobs.set(CacheListing, c.Gen, blob)
	}
	d, err := NewBlobReader(blob, listingVersion)
	if err != nil {
		return nil, 0, false, nil
	}
	starts := make([][]byte, 0, len(blob)/512+16) // each row's bytes onwards (about 900 bytes a row)
	idx, n, ok := p.PageOf(func(yield func(int, *query.SessionRow) bool) {
		var row query.SessionRow
		for i := 0; d.More(); i++ {
			starts = append(starts, d.Rest())
			decodeListingRow(d, &row)
			if d.Err() != nil || !yield(i, &row) {
				return
			}
		}
	})
	if !ok || d.Err() != nil {
		return nil, 0, false, nil // a damaged blob: the listing makes it again
	}
	rows := make([]query.SessionRow, len(idx)) // one allocation
	page = make([]*query.SessionRow, len(idx))
	for j, i := range idx {
		decodeListingRow(ContinueBlob(starts[i]), &rows[j])
		page[j] = &rows[j]
	}
	return page, n, true, nil
}

// listing returns every listed session of the catalog.
func (r *Reader) listing(ctx context.Context) ([]query.SessionRow, error) {
	tx, err := r.db.BeginTxx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	defer tx.Rollback()
	// A long-lived reader (serve, mcp) asks for the listing again and
	// again (a page and its count): decoded once per generation.
	if rows, ok, err := r.listings.valid(ctx, tx, CacheListing); err != nil {
		return nil, err
	} else if ok {
		return rows, nil
	}
	c, err := r.db.LoadCache(ctx, tx, CacheListing)
	if err != nil {
		return nil, err
	}
	if c.Data != nil {
		if all, err := decodeListing(c.Data); err == nil {
			r.listings.set(CacheListing, c.Gen, all)
			return all, nil
		}
	}
	blob, err := listingBlob(ctx, tx)
	if err != nil {
		return nil, err
	}
	tx.Rollback() // read: the snapshot can go before the blob is stored
	all, err := decodeListing(blob)
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	if r.keep != nil {
		// A blob that cannot be stored now is made again next time: the
		// listing itself is answered either way.
		_ = r.keep(ctx, CacheListing, c.Gen, blob)
	}
	return all, nil
}

// listingBlob reads every listed session's row into the listing's blob,
// a row at a time; the rows are then read back from it (decodeListing),
// sharing its strings, as from a stored blob. Collected as rows and then
// encoded, the listing was in memory twice over, with the rows' slice
// grown by doubling: a listing made afresh (the first `list` after any
// change) peaked at 132 MB of RSS at 10,000 sessions.
func listingBlob(ctx context.Context, tx *sqlx.Tx) ([]byte, error) {
	rows, err := tx.QueryContext(ctx, query.SessionsSQL(query.SQLite))
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	defer rows.Close()
	b := NewBlob(listingVersion, 64<<10)
	for rows.Next() {
		var r query.SessionRow
		if err := rows.Scan(r.Dest()...); err != nil {
			return nil, fmt.Errorf("list sessions: %w", err)
		}
		b = appendListingRow(b, &r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	return b, nil
}

// listingVersion is the blob's format; a blob of another version is read
// as no blob. 2: subagents (spawned_by, family, run, nested).
const listingVersion = 2

// appendListingRow appends a session to the blob: the fields of
// query.SessionRow in order and the root (strings as AppendString,
// integers as varints, floats as their bits, a nullable value as a
// presence byte before it).
func appendListingRow(b []byte, r *query.SessionRow) []byte {
	b = binary.AppendVarint(b, r.FileID)
	b = AppendString(b, r.Path)
	b = AppendString(b, r.SessionID)
	b = AppendString(b, r.Cwd)
	b = appendOptString(b, r.Name)
	b = AppendString(b, r.ParentSession)
	if r.CreatedMs != nil {
		b = binary.AppendVarint(append(b, 1), *r.CreatedMs)
	} else {
		b = append(b, 0)
	}
	b = binary.AppendVarint(b, r.Modified)
	b = binary.AppendVarint(b, r.MessageCount)
	b = AppendString(b, r.FirstMessage)
	b = binary.AppendVarint(b, r.EntryCount)
	b = appendOptString(b, r.LeafID)
	b = binary.AppendVarint(b, r.BranchPoints)
	b = AppendString(b, r.Models)
	for _, f := range [...]float64{r.Input, r.Output, r.CacheRead, r.CacheWrite, r.TotalTokens, r.Cost} {
		b = AppendFloat(b, f)
	}
	b = binary.AppendVarint(b, r.Size)
	b = AppendString(b, r.Source)
	b = AppendString(b, r.Root)
	b = AppendString(b, r.SpawnedBy)
	b = AppendString(b, r.Family)
	b = AppendString(b, r.Run)
	return append(b, boolByte(r.Nested))
}

func boolByte(v bool) byte {
	if v {
		return 1
	}
	return 0
}

func appendOptString(b []byte, s *string) []byte {
	if s == nil {
		return append(b, 0)
	}
	return AppendString(append(b, 1), *s)
}

// decodeListing reads the blob appendListingRow wrote.
func decodeListing(b []byte) ([]query.SessionRow, error) {
	d, err := NewBlobReader(b, listingVersion)
	if err != nil {
		return nil, err
	}
	// Sized by the blob (about 1.3 KB a session): the rows are a few
	// hundred bytes each, and growing the slice by appending faulted in
	// twice their size of fresh pages.
	all := make([]query.SessionRow, 0, len(b)/512+16)
	for d.More() {
		var r query.SessionRow
		decodeListingRow(d, &r)
		all = append(all, r)
	}
	if err := d.Err(); err != nil {
		return nil, err
	}
	return all, nil
}

// decodeListingRow reads one row appendListingRow wrote into r.
func decodeListingRow(d *BlobReader, r *query.SessionRow) {
	r.FileID = d.Varint()
	r.Path, r.SessionID, r.Cwd = d.String(), d.String(), d.String()
	r.Name = optString(d)
	r.ParentSession = d.String()
	r.CreatedMs = nil
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
	r.Source, r.Root = d.String(), d.String()
	r.SpawnedBy, r.Family, r.Run = d.String(), d.String(), d.String()
	r.Nested = d.Byte() == 1
}

func optString(d *BlobReader) *string {
	if d.Byte() != 1 {
		return nil
	}
	s := d.String()
	return &s
}
