package sqlite

import (
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"

	"github.com/jmoiron/sqlx"

	"github.com/pidex-dev/pidex/query"
)

// A cost report that needs nothing of a session but its file id is summed
// in Go from the rollup's read cache (migration 00016): one blob of the
// rollup's rows, where SQLite's grouping of the same rows (12,000 in the
// hourly rollup of 3,000 sessions) was most of a fresh `pidex cost`. The
// sums are SQLite's total() (query.Total), so the answer is the SQL's
// (TestCostCacheIsTheSQL). Reports that group or filter by a session's
// columns, cut buckets at --since/--until, or run over a catalog holding
// files outside the reader's roots keep the SQL (cost.go): their
// conditions are the plan's, tested on the rows here, written as SQL there.

// rollupRow is a rollup row as the cache keeps it: the row, and the
// indexes of its provider, model and source into the cache's strings.
type rollupRow struct {
	query.UsageRow
	provider, model, source int32
}

// rollupCache is a rollup cache's blob (encodeRollup) and its strings,
// read row by row as a report sums it: decoding every row first was 1.2 MB
// of fresh memory for the hourly rollup of 3,000 sessions.
type rollupCache struct {
	strs []string
	rows []byte // the blob past its strings
}

// openRollup reads the strings of encodeRollup's blob.
func openRollup(b []byte) (*rollupCache, error) {
	d, err := NewBlobReader(b, rollupVersion)
	if err != nil {
		return nil, err
	}
	n := d.Uvarint()
	if n > uint64(len(b)) {
		return nil, ErrBlob
	}
	c := &rollupCache{strs: make([]string, n)}
	for i := range c.strs {
		c.strs[i] = d.String()
	}
	if err := d.Err(); err != nil {
		return nil, err
	}
	c.rows = d.Rest()
	return c, nil
}

// each hands fn every row in turn (the same rollupRow, overwritten), and
// says ErrBlob when the rows do not read to the end as the format's.
func (c *rollupCache) each(fn func(*rollupRow)) error {
	d := ContinueBlob(c.rows)
	n := uint64(len(c.strs))
	bad := false
	index := func() int32 {
		i := d.Uvarint()
		if i >= n {
			bad = true
			return 0
		}
		return int32(i)
	}
	var r rollupRow
	for d.More() && !bad {
		r.FileID, r.Bucket = d.Varint(), d.Varint()
		r.provider, r.model, r.source = index(), index(), index()
		flags := d.Byte()
		r.IsCopy, r.Active, r.ZeroCost = flags&1 != 0, flags&2 != 0, flags&4 != 0
		r.Calls = d.Varint()
		for j := range r.Sums {
			r.Sums[j] = d.Float()
		}
		if d.Err() != nil || bad {
			break
		}
		r.Provider, r.Model, r.Source = c.strs[r.provider], c.strs[r.model], c.strs[r.source]
		fn(&r)
	}
	if d.Err() != nil || bad {
		return ErrBlob
	}
	return nil
}

// usageFromCache answers p from the rollup cache; ok is false when the
// SQL must (see above): a condition or key the cache's rows lack, or
// edge records read one by one.
func (r *Reader) usageFromCache(ctx context.Context, p *query.CostPlan) (parts []query.CostPart, ok bool, err error) {
	keep, ok := append(p.Flags[:len(p.Flags):len(p.Flags)], p.Where...).Usage()
	if !ok || p.Keys.Sessions() || p.Keys.Machine || len(p.Edges.Edges) > 0 || r.o.NoCostCache {
		return nil, false, nil
	}
	tx, err := r.db.BeginTxx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, false, fmt.Errorf("sum usage: %w", err)
	}
	defer tx.Rollback()
	table := p.Rollup.Table
	if c, ok, err := r.rollups.valid(ctx, tx, table); err != nil {
		return nil, false, err
	} else if ok {
		if parts, err := c.sum(p, keep); err == nil {
			return parts, true, nil
		}
	}
	ca, err := r.db.LoadCache(ctx, tx, table)
	if err != nil {
		return nil, false, err
	}
	if ca.Data != nil {
		if c, err := openRollup(ca.Data); err == nil {
			if parts, err := c.sum(p, keep); err == nil {
				r.rollups.set(table, ca.Gen, c)
				return parts, true, nil
			}
		}
	}
	// No valid blob: the rows, and the blob made of them kept for the
	// next report.
	blob, err := rollupBlob(ctx, tx, table)
	if err != nil {
		return nil, false, err
	}
	tx.Rollback() // read: the snapshot can go before the blob is stored
	if r.keep != nil {
		_ = r.keep(ctx, table, ca.Gen, blob) // made again next time if not kept
	}
	c, err := openRollup(blob)
	if err != nil {
		return nil, false, err
	}
	r.rollups.set(table, ca.Gen, c) // valid once kept (the memo checks)
	parts, err = c.sum(p, keep)
	return parts, err == nil, err
}

// rollupBlob reads a rollup table's rows in tx as encodeRollup's blob.
func rollupBlob(ctx context.Context, tx *sqlx.Tx, table string) ([]byte, error) {
	rows, err := tx.QueryContext(ctx, `SELECT `+rollupCols+` FROM `+table)
	if err != nil {
		return nil, fmt.Errorf("sum usage: %w", err)
	}
	defer rows.Close()
	var strs []string
	index := map[string]int32{}
	intern := func(s string) int32 {
		i, ok := index[s]
		if !ok {
			i = int32(len(strs))
			index[s] = i
			strs = append(strs, s)
		}
		return i
	}
	var body []byte
	for rows.Next() {
		var r rollupRow
		var provider, model, source string
		if err := rows.Scan(&r.FileID, &r.Bucket, &provider, &model, &source, &r.IsCopy, &r.Active, &r.ZeroCost, &r.Calls,
			&r.Sums[0], &r.Sums[1], &r.Sums[2], &r.Sums[3], &r.Sums[4], &r.Sums[5], &r.Sums[6]); err != nil {
			return nil, fmt.Errorf("sum usage: %w", err)
		}
		r.provider, r.model, r.source = intern(provider), intern(model), intern(source)
		body = appendRollupRow(body, &r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sum usage: %w", err)
	}
	return encodeRollup(strs, body), nil
}

// partKey is a part's keys: its local day (-1: not by time) and the
// indexes of its provider, model and source (-1: not a key).
type partKey struct {
	day                     int64
	provider, model, source int32
	zeroCost                bool
}

type partSums struct {
	calls int64
	sums  [7]query.Total
}

// sum is p's statement over the cache: the rows keep selects among the
// whole buckets p allows, grouped by day and p's keys, each sum a total()
// of its rows.
func (c *rollupCache) sum(p *query.CostPlan, keep func(*query.UsageRow) bool) ([]query.CostPart, error) {
	e := p.Edges
	groups := map[partKey]*partSums{}
	var order []partKey
	err := c.each(func(r *rollupRow) {
		if !keep(&r.UsageRow) || (!e.All && (r.Bucket < e.First || r.Bucket >= e.Last)) {
			return
		}
		k := partKey{day: p.Days.Of(r.Bucket), provider: -1, model: -1, source: -1, zeroCost: r.ZeroCost}
		if p.Keys.Provider || r.ZeroCost {
			k.provider = r.provider
		}
		if p.Keys.Model || r.ZeroCost {
			k.model = r.model
		}
		if p.Keys.Source {
			k.source = r.source
		}
		g := groups[k]
		if g == nil {
			g = &partSums{}
			groups[k] = g
			order = append(order, k)
		}
		g.calls += r.Calls
		for j, v := range r.Sums {
			g.sums[j].AddFloat(v)
		}
	})
	if err != nil {
		return nil, err
	}
	parts := make([]query.CostPart, 0, len(order))
	str := func(i int32) string {
		if i < 0 {
			return ""
		}
		return c.strs[i]
	}
	for _, k := range order {
		g := groups[k]
		parts = append(parts, query.CostPart{Day: k.day, Provider: str(k.provider), Model: str(k.model),
			Source: str(k.source), ZeroCost: k.zeroCost, Calls: g.calls, Input: g.sums[0].Value(), Output: g.sums[1].Value(),
			CacheRead: g.sums[2].Value(), CacheWrite: g.sums[3].Value(), CacheWrite1h: g.sums[4].Value(),
			TotalTokens: g.sums[5].Value(), Cost: g.sums[6].Value()})
	}
	return parts, nil
}

// rollupVersion is the cache blob's format (2: the zero_cost flag).
const rollupVersion = 2

// encodeRollup writes the blob: the strings (a count, then each), then
// the rows (appendRollupRow).
func encodeRollup(strs []string, rows []byte) []byte {
	n := 16 + len(rows)
	for _, s := range strs {
		n += len(s) + 2
	}
	b := NewBlob(rollupVersion, n)
	b = binary.AppendUvarint(b, uint64(len(strs)))
	for _, s := range strs {
		b = AppendString(b, s)
	}
	return append(b, rows...)
}

// appendRollupRow writes a row: its file id and bucket as varints, its
// strings' indexes as uvarints, a flags byte (1: a fork's copy, 2: on the
// active branch, 4: zero cost, see query.CostPart.ZeroCost), its calls as
// a varint and its seven sums' bits.
func appendRollupRow(b []byte, r *rollupRow) []byte {
	b = binary.AppendVarint(b, r.FileID)
	b = binary.AppendVarint(b, r.Bucket)
	b = binary.AppendUvarint(b, uint64(r.provider))
	b = binary.AppendUvarint(b, uint64(r.model))
	b = binary.AppendUvarint(b, uint64(r.source))
	var flags byte
	if r.IsCopy {
		flags |= 1
	}
	if r.Active {
		flags |= 2
	}
	if r.ZeroCost {
		flags |= 4
	}
	b = append(b, flags)
	b = binary.AppendVarint(b, r.Calls)
	for _, v := range r.Sums {
		b = AppendFloat(b, v)
	}
	return b
}
