package postgres

import (
	"context"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"time"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/sqlite"
	"github.com/pidex-dev/pidex/internal/readside"
)

// A cost report over a team catalog gives the figures a local catalog
// over the union of the machines' files gives (query.Reader.Cost), with
// the same rollups and the same edges:
//
//   - the rollups the machines pushed are their catalogs' own sums; they
//     are stored exactly (numeric) and summed exactly, then rounded once,
//     where SQLite's total() compensates its rounding: the same result
//     (PostgreSQL's sum of doubles would not be);
//   - a file holding a call another machine also holds (usage_xm: its
//     copy and active flags differ over the union) has its rollup summed
//     again in Go from its records with the union's flags, as SQLite's
//     total() would (readside.Total);
//   - the records of the edge buckets that --since/--until cut are read one
//     by one, as locally, and added exactly.

// The team catalog's rollup tables are the local catalog's, by name and
// bucket (sqlite.Rollups; migrations/postgres makes them alike).

// costKeys are the report's key expressions (readside.KeyCols).
var costKeys = map[string]string{"provider": "x.provider", "model": "x.model", "source": "x.source",
	"cwd": "s.cwd", "session_id": "s.session_id", "machine": "mm.name", "agent": "s.source"}

// partKey is a part's keys.
type partKey struct {
	day                                                   int64
	provider, model, source, cwd, session, machine, agent string
}

// exactPart is a part's sums, exact until the report rounds them.
type exactPart struct {
	calls int64
	sums  [7]*big.Rat // input, output, cache_read, cache_write, cache_write_1h, total_tokens, cost
}

func (p *exactPart) add(i int, r *big.Rat) {
	if p.sums[i] == nil {
		p.sums[i] = new(big.Rat)
	}
	if r == nil { // NaN or an infinity: the sum is not a number any more
		p.sums[i] = nil
		return
	}
	p.sums[i].Add(p.sums[i], r)
}

// Cost sums the usage records f selects.
func (r *Reader) Cost(ctx context.Context, f pidex.CostFilter) (*pidex.CostReport, error) {
	if f.TZ == nil {
		f.TZ = time.UTC
	}
	rollup := sqlite.HourRollup
	var spans []readside.ZoneSpan
	if readside.ByTime(f.By) {
		lo, hi, err := r.bucketRange(ctx, f)
		if err != nil {
			return nil, err
		}
		spans = readside.ZoneSpans(f.TZ, lo, hi)
		if !readside.WholeHours(spans) {
			rollup = sqlite.QuarterRollup // a day starts inside an hour
		}
	}
	edges := readside.CostEdges(f, rollup.Unit)
	parts := map[partKey]*exactPart{}
	if err := r.rollupParts(ctx, f, rollup, spans, edges, parts); err != nil {
		return nil, err
	}
	if err := r.recordParts(ctx, f, rollup, spans, edges, parts); err != nil {
		return nil, err
	}
	out := make([]readside.CostPart, 0, len(parts))
	for k, p := range parts {
		cp := readside.CostPart{Day: k.day, Provider: k.provider, Model: k.model, Source: k.source, Cwd: k.cwd,
			SessionID: k.session, Machine: k.machine, Agent: k.agent, Calls: p.calls}
		for i, dst := range []*float64{&cp.Input, &cp.Output, &cp.CacheRead, &cp.CacheWrite, &cp.CacheWrite1h, &cp.TotalTokens, &cp.Cost} {
			if p.sums[i] == nil {
				*dst = 0
				continue
			}
			*dst = readside.Round(p.sums[i])
		}
		out = append(out, cp)
	}
	return readside.GroupCost(f, out), nil
}

// bucketRange is the span of buckets the report may read.
func (r *Reader) bucketRange(ctx context.Context, f pidex.CostFilter) (lo, hi int64, err error) {
	var lh struct {
		Lo *int64 `db:"lo"`
		Hi *int64 `db:"hi"`
	}
	err = r.s.db.GetContext(ctx, &lh, `SELECT (SELECT min(bucket) FROM usage_rollup WHERE bucket >= 0) AS lo,
		(SELECT max(bucket) FROM usage_rollup) AS hi`)
	if err != nil {
		return 0, 0, fmt.Errorf("sum usage: %w", err)
	}
	if lh.Lo == nil {
		return 0, 0, nil
	}
	lo, hi = readside.BucketRange(f, *lh.Lo, *lh.Hi)
	return lo, hi, nil
}

// filters are the report's conditions on a row x (rollup or record, with
// its flags as flagged) and its session s and machine mm, and the joins
// they need.
func filters(f pidex.CostFilter, flags bool) (cond []string, args []any, joins string) {
	add := func(c string, a ...any) { cond, args = append(cond, c), append(args, a...) }
	if flags {
		if !f.NoDedup {
			add("NOT x.is_copy")
		}
		switch f.Branch {
		case pidex.BranchActive:
			add("x.active")
		case pidex.BranchAbandoned:
			add("NOT x.active")
		}
	}
	if len(f.Sources) > 0 {
		add("x.source = ANY(?)", f.Sources)
	}
	if f.Model != "" {
		add(contains("x.provider || '/' || x.model"), f.Model)
	}
	if f.FileID != 0 {
		add("x.file_id = ?", f.FileID)
	}
	if f.Cwd != "" {
		add("s.cwd = ?", f.Cwd)
	}
	if f.Project != "" {
		add(contains("s.cwd"), f.Project)
	}
	if f.Machine != "" {
		add("mm.name = ?", f.Machine)
	}
	if len(f.Agents) > 0 {
		add("s.source = ANY(?)", f.Agents)
	}
	by := func(k string) bool { return slices.Contains(f.By, k) }
	if f.Cwd != "" || f.Project != "" || len(f.Agents) > 0 || by("project") || by("session") || by("agent") {
		joins += " JOIN sessions s ON s.file_id = x.file_id"
	}
	if f.Machine != "" || by("machine") {
		joins += " JOIN files fl ON fl.id = x.file_id JOIN machines mm ON mm.id = fl.machine_id"
	}
	return cond, args, joins
}

// rollupParts adds the rollups' whole buckets, files with cross-machine
// calls aside (recordParts sums those again).
func (r *Reader) rollupParts(ctx context.Context, f pidex.CostFilter, rollup sqlite.Rollup, spans []readside.ZoneSpan, e readside.Edges, parts map[partKey]*exactPart) error {
	if !e.All && e.First >= e.Last {
		return nil // inside one bucket: only records
	}
	src := `SELECT * FROM ` + rollup.Table + ` WHERE file_id NOT IN (SELECT file_id FROM usage_xm)`
	var srcArgs []any
	if !e.All {
		src += ` AND bucket >= ? AND bucket < ?`
		srcArgs = append(srcArgs, e.First, e.Last)
	}
	day, dayArgs := "-1", []any(nil)
	if spans != nil {
		day, dayArgs = readside.DayExpr("x.bucket", spans)
	}
	cols, group := readside.KeyCols(f, costKeys)
	if spans != nil {
		group = strings.TrimSuffix("day, "+group, ", ")
	}
	cond, args, joins := filters(f, true)
	q := `SELECT ` + day + ` AS day, ` + cols + `, sum(x.calls)::bigint,
		sum(x.input)::text, sum(x.output)::text, sum(x.cache_read)::text, sum(x.cache_write)::text,
		sum(x.cache_write_1h)::text, sum(x.total_tokens)::text, sum(x.cost)::text
		FROM (` + src + `) x` + joins
	if len(cond) > 0 {
		q += " WHERE " + strings.Join(cond, " AND ")
	}
	if group != "" {
		q += " GROUP BY " + group
	} else {
		q += " HAVING count(*) > 0"
	}
	rows, err := r.s.db.QueryContext(ctx, rebind(q, 1), append(append(dayArgs, srcArgs...), args...)...)
	if err != nil {
		return fmt.Errorf("sum usage: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var k partKey
		var calls int64
		var sums [7]*string
		if err := rows.Scan(&k.day, &k.provider, &k.model, &k.source, &k.cwd, &k.session, &k.machine, &k.agent, &calls,
			&sums[0], &sums[1], &sums[2], &sums[3], &sums[4], &sums[5], &sums[6]); err != nil {
			return fmt.Errorf("sum usage: %w", err)
		}
		p := part(parts, k)
		p.calls += calls
		for i, s := range sums {
			v := new(big.Rat)
			if s != nil {
				if _, ok := v.SetString(*s); !ok {
					v = nil // NaN
				}
			}
			p.add(i, v)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("sum usage: %w", err)
	}
	return nil
}

func part(parts map[partKey]*exactPart, k partKey) *exactPart {
	p := parts[k]
	if p == nil {
		p = &exactPart{}
		parts[k] = p
	}
	return p
}

// record is one usage record with the union's flags.
type record struct {
	file                                  int64
	provider, model, source, cwd, session string
	machine, agent                        string
	copy, active                          bool
	input, output, cacheRead, cacheWrite  float64
	cacheWrite1h, totalTokens, cost       float64
}

// recordParts adds what the rollups do not hold: the edge buckets'
// records one by one, and the whole buckets of the files that hold a
// call another machine holds too, summed again with the union's flags.
func (r *Reader) recordParts(ctx context.Context, f pidex.CostFilter, rollup sqlite.Rollup, spans []readside.ZoneSpan, e readside.Edges, parts map[partKey]*exactPart) error {
	var which []string
	var wargs []any
	for _, ed := range e.Edges {
		which = append(which, `(x.ts_ms >= ? AND x.ts_ms < ?)`)
		wargs = append(wargs, ed.From, ed.To)
	}
	whole := "x.file_id IN (SELECT file_id FROM usage_xm)"
	if !e.All {
		if e.First >= e.Last {
			whole = ""
		} else {
			whole += " AND x.ts_ms >= ? AND x.ts_ms < ?"
			wargs = append(wargs, e.First*readside.BucketMs, e.Last*readside.BucketMs)
		}
	}
	if whole != "" {
		which = append(which, "("+whole+")")
	}
	if len(which) == 0 {
		return nil
	}
	sel := func(k, expr string) string {
		if slices.Contains(f.By, k) {
			return expr
		}
		return "''"
	}
	cond, args, joins := filters(f, false)
	q := `SELECT x.file_id, x.ts_ms, x.provider, x.model, x.source, x.is_copy, x.active,
		x.input, x.output, x.cache_read, x.cache_write, x.cache_write_1h, x.total_tokens, x.cost,
		` + sel("project", "s.cwd") + `, ` + sel("session", "s.session_id") + `, ` + sel("machine", "mm.name") + `, ` + sel("agent", "s.source") + `
		FROM (SELECT u.file_id, u."offset", u.ts_ms, COALESCE(u.attr_provider, u.provider) AS provider,
			COALESCE(u.attr_model, u.model) AS model, u.source, COALESCE(xm.is_copy, u.is_copy) AS is_copy,
			COALESCE(xm.call_active, u.call_active) AS active, u.input, u.output, u.cache_read, u.cache_write,
			u.cache_write_1h, u.total_tokens, u.cost_total AS cost
			FROM usage u LEFT JOIN usage_xm xm ON xm.file_id = u.file_id AND xm.offset = u.offset) x` + joins + `
		WHERE (` + strings.Join(which, " OR ") + `)`
	if len(cond) > 0 {
		q += " AND " + strings.Join(cond, " AND ")
	}
	q += ` ORDER BY x.file_id, x."offset"`
	rows, err := r.s.db.QueryContext(ctx, rebind(q, 1), append(wargs, args...)...)
	if err != nil {
		return fmt.Errorf("sum usage: %w", err)
	}
	defer rows.Close()
	inEdge := func(ts int64) bool {
		for _, ed := range e.Edges {
			if ts >= ed.From && ts < ed.To {
				return true
			}
		}
		return false
	}
	type groupKey struct {
		file, bucket                          int64
		provider, model, source, cwd, session string
		machine, agent                        string
		copy, active                          bool
	}
	type group struct {
		key   groupKey
		calls int64
		sums  [7]readside.Total
	}
	groups := map[groupKey]*group{}
	var order []*group
	for rows.Next() {
		var x record
		var ts *int64
		if err := rows.Scan(&x.file, &ts, &x.provider, &x.model, &x.source, &x.copy, &x.active,
			&x.input, &x.output, &x.cacheRead, &x.cacheWrite, &x.cacheWrite1h, &x.totalTokens, &x.cost,
			&x.cwd, &x.session, &x.machine, &x.agent); err != nil {
			return fmt.Errorf("sum usage: %w", err)
		}
		amounts := []float64{x.input, x.output, x.cacheRead, x.cacheWrite, x.cacheWrite1h, x.totalTokens, x.cost}
		if ts != nil && inEdge(*ts) {
			// An edge record, as the local report reads it: one by one.
			if !keep(f, x.copy, x.active) {
				continue
			}
			k := partKey{day: dayOf(*ts/readside.BucketMs, spans), provider: key(f, "provider", x.provider), model: key(f, "model", x.model),
				source: key(f, "source", x.source), cwd: x.cwd, session: x.session, machine: x.machine, agent: x.agent}
			p := part(parts, k)
			p.calls++
			for i, v := range amounts {
				p.add(i, readside.Exact(v))
			}
			continue
		}
		// A whole bucket of a file with cross-machine calls: its rollup row,
		// as SQLite's total() sums it (sumInto: the file's records, by
		// bucket, attributed model, source and flags).
		b := int64(-1)
		if ts != nil {
			b = *ts / (rollup.Unit * readside.BucketMs) * rollup.Unit
		}
		gk := groupKey{x.file, b, x.provider, x.model, x.source, x.cwd, x.session, x.machine, x.agent, x.copy, x.active}
		g := groups[gk]
		if g == nil {
			g = &group{key: gk}
			groups[gk] = g
			order = append(order, g)
		}
		g.calls++
		for i, v := range amounts {
			if i == 6 {
				g.sums[i].AddFloat(v) // cost_total is REAL
			} else {
				g.sums[i].Add(v) // token counts: INTEGER columns
			}
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("sum usage: %w", err)
	}
	for _, g := range order {
		if !keep(f, g.key.copy, g.key.active) {
			continue
		}
		k := partKey{day: dayOf(g.key.bucket, spans), provider: key(f, "provider", g.key.provider), model: key(f, "model", g.key.model),
			source: key(f, "source", g.key.source), cwd: g.key.cwd, session: g.key.session, machine: g.key.machine, agent: g.key.agent}
		p := part(parts, k)
		p.calls += g.calls
		for i := range g.sums {
			p.add(i, readside.Exact(g.sums[i].Value()))
		}
	}
	return nil
}

// keep applies the report's dedup and branch to a row's flags.
func keep(f pidex.CostFilter, copy, active bool) bool {
	if copy && !f.NoDedup {
		return false
	}
	switch f.Branch {
	case pidex.BranchActive:
		return active
	case pidex.BranchAbandoned:
		return !active
	}
	return true
}

// key is a record's value of a key column as the report's SQL selects it
// (readside.KeyCols: a key not grouped by is constant).
func key(f pidex.CostFilter, k, v string) string {
	by := func(k string) bool { return slices.Contains(f.By, k) }
	model := by("model") || f.Prices != nil
	switch k {
	case "provider":
		if model || by("provider") {
			return v
		}
	case "model":
		if model {
			return v
		}
	case "source":
		if by("source") {
			return v
		}
	}
	return ""
}

// dayOf is a bucket's local day, or -1 when the report has no period.
func dayOf(b int64, spans []readside.ZoneSpan) int64 {
	if spans == nil {
		return -1
	}
	return readside.DayOf(b, spans)
}
