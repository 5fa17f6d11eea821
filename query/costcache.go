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

// A cost report that needs nothing of a session but its file id is summed
// in Go from the rollup's read cache (migration 00016): one blob of the
// rollup's rows, where SQLite's grouping of the same rows (12,000 in the
// hourly rollup of 3,000 sessions) was most of a fresh `pidex cost`. The
// sums are SQLite's total() (readside.Total), so the answer is the SQL's
// (TestCostCacheIsTheSQL). Reports that group or filter by a session's
// columns, cut buckets at --since/--until, or run over a catalog holding
// files outside the reader's roots keep the SQL (costSQL).

// rollupRow is a rollup row as the cache keeps it; provider, model and
// source are indexes into the cache's strings.
type rollupRow struct {
	fileID, bucket          int64
	provider, model, source int32
	isCopy, active          bool
	calls                   int64
	sums                    [7]float64 // input, output, cache_read, cache_write, cache_write_1h, total_tokens, cost
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
	d, err := sqlite.NewBlobReader(b, rollupVersion)
	if err != nil {
		return nil, err
	}
	n := d.Uvarint()
	if n > uint64(len(b)) {
		return nil, sqlite.ErrBlob
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
	d := sqlite.ContinueBlob(c.rows)
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
		r.fileID, r.bucket = d.Varint(), d.Varint()
		r.provider, r.model, r.source = index(), index(), index()
		flags := d.Byte()
		r.isCopy, r.active = flags&1 != 0, flags&2 != 0
		r.calls = d.Varint()
		for j := range r.sums {
			r.sums[j] = d.Float()
		}
		if d.Err() != nil || bad {
			break
		}
		fn(&r)
	}
	if d.Err() != nil || bad {
		return sqlite.ErrBlob
	}
	return nil
}

// cachedCostAnswers says whether f is a report the rollup cache answers.
func cachedCostAnswers(f pidex.CostFilter) bool {
	if f.Cwd != "" || f.Project != "" || len(f.Agents) > 0 {
		return false
	}
	for _, k := range f.By {
		if k == "project" || k == "session" || k == "agent" {
			return false
		}
	}
	return true
}

// costFromCache answers f from the rollup cache; ok is false when the SQL
// must (see above).
func (rd *Reader) costFromCache(ctx context.Context, f pidex.CostFilter) (parts []readside.CostPart, ok bool, err error) {
	if !cachedCostAnswers(f) || rd.noCostCache {
		return nil, false, nil
	}
	tx, err := rd.db.BeginTxx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, false, fmt.Errorf("sum usage: %w", err)
	}
	defer tx.Rollback()
	if len(rd.roots) > 0 {
		if outside, err := filesOutside(ctx, tx, rd.roots); err != nil || outside {
			return nil, false, err
		}
	}
	rollup := sqlite.HourRollup
	var spans []readside.ZoneSpan
	if readside.ByTime(f.By) {
		lo, hi, err := bucketRange(ctx, tx, f)
		if err != nil {
			return nil, false, err
		}
		spans = readside.ZoneSpans(f.TZ, lo, hi)
		if !readside.WholeHours(spans) {
			rollup = sqlite.QuarterRollup
		}
	}
	e := readside.CostEdges(f, rollup.Unit)
	if len(e.Edges) > 0 {
		return nil, false, nil // records read one by one: the SQL's
	}
	if c, ok, err := rd.rollups.valid(ctx, tx, rollup.Table); err != nil {
		return nil, false, err
	} else if ok {
		if parts, err := c.sum(f, e, spans); err == nil {
			return parts, true, nil
		}
	}
	ca, err := rd.db.LoadCache(ctx, tx, rollup.Table)
	if err != nil {
		return nil, false, err
	}
	if ca.Data != nil {
		if c, err := openRollup(ca.Data); err == nil {
			if parts, err := c.sum(f, e, spans); err == nil {
				rd.rollups.set(rollup.Table, ca.Gen, c)
				return parts, true, nil
			}
		}
	}
	// No valid blob: the rows, and the blob made of them kept for the
	// next report.
	blob, err := rollupBlob(ctx, tx, rollup.Table)
	if err != nil {
		return nil, false, err
	}
	tx.Rollback() // read: the snapshot can go before the blob is stored
	if rd.keep != nil {
		_ = rd.keep(ctx, rollup.Table, ca.Gen, blob) // made again next time if not kept
	}
	c, err := openRollup(blob)
	if err != nil {
		return nil, false, err
	}
	rd.rollups.set(rollup.Table, ca.Gen, c) // valid once kept (the memo checks)
	parts, err = c.sum(f, e, spans)
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
		if err := rows.Scan(&r.fileID, &r.bucket, &provider, &model, &source, &r.isCopy, &r.active, &r.calls,
			&r.sums[0], &r.sums[1], &r.sums[2], &r.sums[3], &r.sums[4], &r.sums[5], &r.sums[6]); err != nil {
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
}

type partSums struct {
	calls int64
	sums  [7]readside.Total
}

// sum is costSQL's statement over the cache: the rows f selects among
// the whole buckets e allows, grouped by day and readside.KeyCols's keys,
// each sum a total() of its rows.
func (c *rollupCache) sum(f pidex.CostFilter, e readside.Edges, spans []readside.ZoneSpan) ([]readside.CostPart, error) {
	keep := c.filter(f)
	byTime := readside.ByTime(f.By)
	by := func(k string) bool { return slices.Contains(f.By, k) }
	model := by("model") || f.Prices != nil
	withProvider, withSource := model || by("provider"), by("source")
	groups := map[partKey]*partSums{}
	var order []partKey
	err := c.each(func(r *rollupRow) {
		if !keep(r) || (!e.All && (r.bucket < e.First || r.bucket >= e.Last)) {
			return
		}
		k := partKey{day: -1, provider: -1, model: -1, source: -1}
		if byTime {
			k.day = readside.DayOf(r.bucket, spans)
		}
		if withProvider {
			k.provider = r.provider
		}
		if model {
			k.model = r.model
		}
		if withSource {
			k.source = r.source
		}
		g := groups[k]
		if g == nil {
			g = &partSums{}
			groups[k] = g
			order = append(order, k)
		}
		g.calls += r.calls
		for j, v := range r.sums {
			g.sums[j].AddFloat(v)
		}
	})
	if err != nil {
		return nil, err
	}
	parts := make([]readside.CostPart, 0, len(order))
	str := func(i int32) string {
		if i < 0 {
			return ""
		}
		return c.strs[i]
	}
	for _, k := range order {
		g := groups[k]
		parts = append(parts, readside.CostPart{Day: k.day, Provider: str(k.provider), Model: str(k.model),
			Source: str(k.source), Calls: g.calls, Input: g.sums[0].Value(), Output: g.sums[1].Value(),
			CacheRead: g.sums[2].Value(), CacheWrite: g.sums[3].Value(), CacheWrite1h: g.sums[4].Value(),
			TotalTokens: g.sums[5].Value(), Cost: g.sums[6].Value()})
	}
	return parts, nil
}

// filter is costSQL's conditions on a rollup row.
func (c *rollupCache) filter(f pidex.CostFilter) func(*rollupRow) bool {
	// Per string, not per row: whether a source or a provider/model pair
	// passes.
	sourceOK := make([]bool, len(c.strs))
	for i, s := range c.strs {
		sourceOK[i] = len(f.Sources) == 0 || slices.Contains(f.Sources, s)
	}
	needle := readside.ASCIILower(f.Model)
	return func(r *rollupRow) bool {
		switch {
		case !f.NoDedup && r.isCopy,
			f.Branch == "active" && !r.active,
			f.Branch == "abandoned" && r.active,
			!sourceOK[r.source],
			f.FileID != 0 && r.fileID != f.FileID:
			return false
		case f.Model != "":
			// instr(lower(provider || '/' || model), lower(?)) > 0, lower()
			// folding ASCII only as SQLite's does.
			return strings.Contains(readside.ASCIILower(c.strs[r.provider]+"/"+c.strs[r.model]), needle)
		}
		return true
	}
}

// rollupVersion is the cache blob's format.
const rollupVersion = 1

// encodeRollup writes the blob: the strings (a count, then each), then
// the rows (appendRollupRow).
func encodeRollup(strs []string, rows []byte) []byte {
	n := 16 + len(rows)
	for _, s := range strs {
		n += len(s) + 2
	}
	b := sqlite.NewBlob(rollupVersion, n)
	b = binary.AppendUvarint(b, uint64(len(strs)))
	for _, s := range strs {
		b = sqlite.AppendString(b, s)
	}
	return append(b, rows...)
}

// appendRollupRow writes a row: its file id and bucket as varints, its
// strings' indexes as uvarints, a flags byte (1: a fork's copy, 2: on the
// active branch), its calls as a varint and its seven sums' bits.
func appendRollupRow(b []byte, r *rollupRow) []byte {
	b = binary.AppendVarint(b, r.fileID)
	b = binary.AppendVarint(b, r.bucket)
	b = binary.AppendUvarint(b, uint64(r.provider))
	b = binary.AppendUvarint(b, uint64(r.model))
	b = binary.AppendUvarint(b, uint64(r.source))
	var flags byte
	if r.isCopy {
		flags |= 1
	}
	if r.active {
		flags |= 2
	}
	b = append(b, flags)
	b = binary.AppendVarint(b, r.calls)
	for _, v := range r.sums {
		b = sqlite.AppendFloat(b, v)
	}
	return b
}
