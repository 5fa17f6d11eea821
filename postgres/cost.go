package postgres

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/query"
)

// A cost report over a team catalog gives the figures a local catalog
// over the union of the machines' files gives, from the same plan
// (query.CostPlan: the same rollups, conditions, keys and edges):
//
//   - the rollups the machines pushed are their catalogs' own sums; they
//     are stored exactly (numeric) and summed exactly, then rounded once,
//     where SQLite's total() compensates its rounding: the same result
//     (PostgreSQL's sum of doubles would not be);
//   - a file holding a call another machine also holds (usage_xm: its
//     copy and active flags differ over the union) has its rollup summed
//     again in Go from its records with the union's flags, as SQLite's
//     total() would (query.Total);
//   - the records of the edge buckets that --since/--until cut are read one
//     by one, as locally, and added exactly.
//
// The team catalog's rollup tables are the local catalog's, by name and
// bucket (pidex.Rollups; migrations/postgres makes them alike).

// partKey is a part's keys.
type partKey struct {
	day                                                   int64
	provider, model, source, cwd, session, machine, agent string
	zeroCost                                              bool
}

// exactPart is a part's sums, exact until the report rounds them.
type exactPart struct {
	calls int64
	sums  [7]*big.Rat // input, output, cache_read, cache_write, cache_write_1h, total_tokens, cost
	// one holds a sum's first value as PostgreSQL wrote it (n: how many
	// values the sum has had). Most parts of a report have one rollup row,
	// and one value rounds as strconv.ParseFloat rounds its text (to the
	// nearest float64, as big.Rat's Float64), without a big.Rat: 2,926 rows
	// of `cost --by day,model` over 20 machines spent a third of the
	// client's CPU making and adding them.
	one [7]*string
	n   [7]int
}

// addText adds a sum's value as PostgreSQL wrote it (nil: no rows).
func (p *exactPart) addText(i int, s *string) {
	if p.n[i] == 0 {
		p.n[i], p.one[i] = 1, s
		return
	}
	p.add(i, ratOf(s))
}

// add adds r (nil: not a number) to sum i.
func (p *exactPart) add(i int, r *big.Rat) {
	if p.n[i] == 1 { // the first value, kept as text, first
		p.n[i] = 2
		p.add(i, ratOf(p.one[i]))
	}
	p.n[i] = 2
	if p.sums[i] == nil {
		p.sums[i] = new(big.Rat)
	}
	if r == nil { // NaN or an infinity: the sum is not a number any more
		p.sums[i] = nil
		return
	}
	p.sums[i].Add(p.sums[i], r)
}

// value is sum i rounded once (0 when it is not a number).
func (p *exactPart) value(i int) float64 {
	if p.n[i] == 1 {
		if p.one[i] == nil {
			return 0
		}
		if f, err := strconv.ParseFloat(*p.one[i], 64); err == nil && !math.IsNaN(f) && !math.IsInf(f, 0) {
			return f
		}
		if r := ratOf(p.one[i]); r != nil { // past float64's range
			return query.Round(r)
		}
		return 0
	}
	if p.sums[i] == nil {
		return 0
	}
	return query.Round(p.sums[i])
}

// ratOf is PostgreSQL's text of an exact sum as a big.Rat: 0 for no
// rows (nil), nil for NaN or an infinity.
func ratOf(s *string) *big.Rat {
	v := new(big.Rat)
	if s != nil {
		if _, ok := v.SetString(*s); !ok {
			return nil
		}
	}
	return v
}

// Usage sums the usage rows p selects.
func (r *Reader) Usage(ctx context.Context, p *query.CostPlan) ([]query.CostPart, error) {
	parts := map[partKey]*exactPart{}
	if err := r.rollupParts(ctx, p, parts); err != nil {
		return nil, err
	}
	if err := r.recordParts(ctx, p, parts); err != nil {
		return nil, err
	}
	out := make([]query.CostPart, 0, len(parts))
	for k, e := range parts {
		cp := query.CostPart{Day: k.day, Provider: k.provider, Model: k.model, Source: k.source, Cwd: k.cwd,
			SessionID: k.session, Machine: k.machine, Agent: k.agent, ZeroCost: k.zeroCost, Calls: e.calls}
		for i, dst := range []*float64{&cp.Input, &cp.Output, &cp.CacheRead, &cp.CacheWrite, &cp.CacheWrite1h, &cp.TotalTokens, &cp.Cost} {
			*dst = e.value(i)
		}
		out = append(out, cp)
	}
	return out, nil
}

// rollupParts adds the rollups' whole buckets, files with cross-machine
// calls aside (recordParts sums those again).
func (r *Reader) rollupParts(ctx context.Context, p *query.CostPlan, parts map[partKey]*exactPart) error {
	e := p.Edges
	if !e.All && e.First >= e.Last {
		return nil // inside one bucket: only records
	}
	src := `SELECT * FROM ` + p.Rollup.Table + ` WHERE (machine_id, file_id) NOT IN (SELECT machine_id, file_id FROM usage_xm)`
	var srcArgs []any
	if !e.All {
		src += ` AND bucket >= ? AND bucket < ?`
		srcArgs = append(srcArgs, e.First, e.Last)
	}
	q, args := p.Statement(query.Postgres, src, srcArgs, query.Sums{Calls: "sum(x.calls)::bigint",
		Sum: func(c string) string { return "sum(x." + c + ")::text" }})
	type rollupSum struct {
		k     partKey
		calls int64
		sums  [7]*string // exact decimals; NULL: no rows
	}
	rows, err := query.Collect(ctx, r.s.db, "sum usage", r.s.db.Rebind(q), args, func(x *rollupSum) []any {
		k := &x.k
		return []any{&k.day, &k.provider, &k.model, &k.source, &k.cwd, &k.session, &k.machine, &k.agent, &k.zeroCost, &x.calls,
			&x.sums[0], &x.sums[1], &x.sums[2], &x.sums[3], &x.sums[4], &x.sums[5], &x.sums[6]}
	})
	for _, x := range rows {
		pt := part(parts, x.k)
		pt.calls += x.calls
		for i, s := range x.sums {
			pt.addText(i, s)
		}
	}
	return err
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
	query.UsageRow
	ts                                   *int64
	cwd, session, machine, agent         string
	input, output, cacheRead, cacheWrite float64
	cacheWrite1h, totalTokens, cost      float64
	zeroCost                             bool
}

// recordParts adds what the rollups do not hold: the edge buckets'
// records one by one, and the whole buckets of the files that hold a
// call another machine holds too, summed again with the union's flags.
func (r *Reader) recordParts(ctx context.Context, p *query.CostPlan, parts map[partKey]*exactPart) error {
	e := p.Edges
	var which []string
	var wargs []any
	for _, ed := range e.Edges {
		which = append(which, `(x.ts_ms >= ? AND x.ts_ms < ?)`)
		wargs = append(wargs, ed.From, ed.To)
	}
	whole := "(x.machine_id, x.file_id) IN (SELECT machine_id, file_id FROM usage_xm)"
	if !e.All {
		if e.First >= e.Last {
			whole = ""
		} else {
			whole += " AND x.ts_ms >= ? AND x.ts_ms < ?"
			wargs = append(wargs, e.First*pidex.BucketMs, e.Last*pidex.BucketMs)
		}
	}
	if whole != "" {
		which = append(which, "("+whole+")")
	}
	if len(which) == 0 {
		return nil
	}
	key := func(on bool, expr string) string {
		if on {
			return expr
		}
		return "''"
	}
	// The flags are the union's, decided below (keep), not the rows'.
	cond, args := p.Where.SQL(query.Postgres)
	q := `SELECT x.file_id, x.ts_ms, x.provider, x.model, x.source, x.is_copy, x.active, x.zero_cost,
		x.input, x.output, x.cache_read, x.cache_write, x.cache_write_1h, x.total_tokens, x.cost,
		` + key(p.Keys.Cwd, "s.cwd") + `, ` + key(p.Keys.Session, p.Keys.SessionSQL()) + `, ` + key(p.Keys.Machine, "mm.name") + `, ` + key(p.Keys.Agent, "s.source") + `
		FROM (SELECT u.machine_id, u.file_id, u."offset", u.ts_ms, COALESCE(u.attr_provider, u.provider) AS provider,
			COALESCE(u.attr_model, u.model) AS model, u.source, COALESCE(xm.is_copy, u.is_copy) AS is_copy,
			COALESCE(xm.call_active, u.call_active) AS active, ` + pidex.ZeroCostSQL("u.") + ` AS zero_cost,
			u.input, u.output, u.cache_read, u.cache_write,
			u.cache_write_1h, u.total_tokens, u.cost_total AS cost
			FROM usage u LEFT JOIN usage_xm xm ON xm.machine_id = u.machine_id AND xm.file_id = u.file_id AND xm.offset = u.offset) x` + p.Joins(query.Postgres) + `
		WHERE (` + strings.Join(which, " OR ") + `)`
	if cond != "" {
		q += " AND " + cond
	}
	q += ` ORDER BY x.file_id, x."offset"`
	rows, err := r.s.db.QueryContext(ctx, r.s.db.Rebind(q), append(wargs, args...)...)
	if err != nil {
		return fmt.Errorf("sum usage: %w", err)
	}
	defer rows.Close()
	keep, _ := p.Flags.Usage() // flags only: every field is a usage row's
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
		copy, active, zeroCost                bool
	}
	type group struct {
		key   groupKey
		calls int64
		sums  [7]query.Total
	}
	groups := map[groupKey]*group{}
	var order []*group
	for rows.Next() {
		var x record
		if err := rows.Scan(&x.FileID, &x.ts, &x.Provider, &x.Model, &x.Source, &x.IsCopy, &x.Active, &x.zeroCost,
			&x.input, &x.output, &x.cacheRead, &x.cacheWrite, &x.cacheWrite1h, &x.totalTokens, &x.cost,
			&x.cwd, &x.session, &x.machine, &x.agent); err != nil {
			return fmt.Errorf("sum usage: %w", err)
		}
		amounts := []float64{x.input, x.output, x.cacheRead, x.cacheWrite, x.cacheWrite1h, x.totalTokens, x.cost}
		provider, model, source := p.Keys.Call(x.Provider, x.Model, x.Source, x.zeroCost)
		if x.ts != nil && inEdge(*x.ts) {
			// An edge record, as the local report reads it: one by one.
			if !keep(&x.UsageRow) {
				continue
			}
			k := partKey{day: p.Days.Of(*x.ts / pidex.BucketMs), provider: provider, model: model, source: source,
				cwd: x.cwd, session: x.session, machine: x.machine, agent: x.agent, zeroCost: x.zeroCost}
			pt := part(parts, k)
			pt.calls++
			for i, v := range amounts {
				pt.add(i, query.Exact(v))
			}
			continue
		}
		// A whole bucket of a file with cross-machine calls: its rollup row,
		// as SQLite's total() sums it (the file's records, by bucket,
		// attributed model, source and flags).
		b := int64(-1)
		if x.ts != nil {
			b = *x.ts / (p.Rollup.Unit * pidex.BucketMs) * p.Rollup.Unit
		}
		gk := groupKey{x.FileID, b, x.Provider, x.Model, x.Source, x.cwd, x.session, x.machine, x.agent, x.IsCopy, x.Active, x.zeroCost}
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
		if !keep(&query.UsageRow{IsCopy: g.key.copy, Active: g.key.active}) {
			continue
		}
		provider, model, source := p.Keys.Call(g.key.provider, g.key.model, g.key.source, g.key.zeroCost)
		k := partKey{day: p.Days.Of(g.key.bucket), provider: provider, model: model, source: source,
			cwd: g.key.cwd, session: g.key.session, machine: g.key.machine, agent: g.key.agent, zeroCost: g.key.zeroCost}
		pt := part(parts, k)
		pt.calls += g.calls
		for i := range g.sums {
			pt.add(i, query.Exact(g.sums[i].Value()))
		}
	}
	return nil
}
