package query

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/pidex-dev/pidex"
)

// CostPart is what a backend's cost query returns: sums per local day and
// per the other keys the report asks for ("" for the others, see
// KeyCols).
type CostPart struct {
	Day       int64  `db:"day"` // local day number (see ZoneSpans); -1: no time
	Provider  string `db:"provider"`
	Model     string `db:"model"`
	Source    string `db:"source"`
	Cwd       string `db:"cwd"`
	SessionID string `db:"session_id"`
	Machine   string `db:"machine"`
	Agent     string `db:"agent"`
	// ZeroCost: the part's calls used tokens and pi recorded them at $0
	// (pidex.ZeroCostSQL). Such a part always carries its provider and
	// model, keys of the report or not: what is unpriced depends on them.
	ZeroCost     bool  `db:"zero_cost"`
	Calls        int64 `db:"calls"`
	Input        float64
	Output       float64
	CacheRead    float64 `db:"cache_read"`
	CacheWrite   float64 `db:"cache_write"`
	CacheWrite1h float64 `db:"cache_write_1h"`
	TotalTokens  float64 `db:"total_tokens"`
	Cost         float64 `db:"cost"`
}

// groupCost folds a backend's parts into the report's rows: time keys in
// the report's zone, repricing per model. The parts are folded in the
// order of their keys, whatever order the backend gave them, so that two
// backends holding the same parts sum them alike (floating-point sums
// depend on their order).
func groupCost(f pidex.CostFilter, parts []CostPart) *pidex.CostReport {
	slices.SortFunc(parts, comparePart)
	r := &pidex.CostReport{By: f.By, Rows: []pidex.CostRow{}, Repriced: f.Prices != nil, Rollup: f.Rollup}
	var estimate pidex.Pricer
	switch {
	case f.Estimate && f.Prices != nil:
		estimate, r.EstimatedWith = f.Prices, pidex.EstimatedByPricesFile
	case f.Estimate:
		t := pidex.ShippedPrices()
		estimate, r.EstimatedWith = t, t.Label()
	}
	index := map[string]int{}
	for i := range parts {
		p := &parts[i]
		keys := make([]string, len(f.By))
		for j, k := range f.By {
			keys[j] = costKey(k, p)
		}
		id := strings.Join(keys, "\x00")
		n, ok := index[id]
		if !ok {
			n = len(r.Rows)
			index[id] = n
			r.Rows = append(r.Rows, pidex.CostRow{Keys: keys})
		}
		s := sumsOf(p, f.Prices, estimate)
		r.Rows[n].Add(s)
		r.Totals.Add(s)
	}
	slices.SortStableFunc(r.Rows, func(a, b pidex.CostRow) int { return compareRows(f.By, a, b) })
	return r
}

func comparePart(a, b CostPart) int {
	return cmp.Or(cmp.Compare(a.Day, b.Day), strings.Compare(a.Provider, b.Provider), strings.Compare(a.Model, b.Model),
		strings.Compare(a.Source, b.Source), strings.Compare(a.Cwd, b.Cwd), strings.Compare(a.SessionID, b.SessionID),
		strings.Compare(a.Machine, b.Machine), strings.Compare(a.Agent, b.Agent), compareBool(a.ZeroCost, b.ZeroCost))
}

func compareBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// costKey is part p's value of key k (its day is already local).
func costKey(k string, p *CostPart) string {
	switch k {
	case "day", "week", "month":
		if p.Day < 0 {
			return "unknown"
		}
		return pidex.PeriodKey(k, localDay(p.Day))
	case "model":
		return modelOf(p)
	case "provider":
		if p.Provider == "" {
			return "unknown"
		}
		return p.Provider
	case "project":
		return p.Cwd
	case "session":
		return p.SessionID
	case "source":
		return p.Source
	case "machine":
		return p.Machine
	case "agent":
		return p.Agent
	}
	return ""
}

// modelOf is a part's model as reports name it ("unknown": none).
func modelOf(p *CostPart) string {
	if p.Model == "" {
		return "unknown"
	}
	return pidex.ModelName(p.Provider, p.Model)
}

// sumsOf is a part's figures: repriced with prices (nil: not), its
// unpriced calls (pidex.Unpriced) counted and, with estimate, priced apart.
func sumsOf(p *CostPart, prices *pidex.Prices, estimate pidex.Pricer) pidex.CostSums {
	// A backend's sums of a bucket may pass the largest double (+Inf).
	sat := pidex.Saturate
	s := pidex.CostSums{Input: sat(p.Input), Output: sat(p.Output), CacheRead: sat(p.CacheRead), CacheWrite: sat(p.CacheWrite),
		CacheWrite1h: sat(p.CacheWrite1h), TotalTokens: sat(p.TotalTokens), Cost: sat(p.Cost), Calls: p.Calls}
	if prices != nil {
		if price, ok := prices.Lookup(p.Provider, p.Model); ok {
			s.Repriced, s.PricedCalls = price.Cost(s), s.Calls
		} else {
			s.NotRepriced = []string{pidex.ModelName(p.Provider, p.Model)}
		}
	}
	if p.ZeroCost && pidex.Unpriced(p.Provider, p.Model) {
		s.UnpricedCalls, s.UnpricedTokens, s.UnpricedModels = s.Calls, s.TotalTokens, []string{modelOf(p)}
		if estimate != nil {
			if price, ok := estimate.Lookup(p.Provider, p.Model); ok {
				s.Estimated, s.EstimatedCalls = price.Cost(s), s.Calls
			} else {
				s.NoEstimate = s.UnpricedModels
			}
		}
	}
	return s
}

// compareRows orders time keys oldest first, then the most expensive
// groups first, then by key text.
func compareRows(by []string, a, b pidex.CostRow) int {
	for i, k := range by {
		if pidex.IsPeriod(k) {
			if c := strings.Compare(a.Keys[i], b.Keys[i]); c != 0 {
				return c
			}
		}
	}
	if c := cmp.Compare(b.Cost, a.Cost); c != 0 {
		return c
	}
	return slices.Compare(a.Keys, b.Keys)
}

// byTime: the report has a day, week or month key.
func byTime(by []string) bool {
	return slices.ContainsFunc(by, pidex.IsPeriod)
}

// The report folds quarter hours into local days in SQL, so that the
// database returns a row per day and model instead of one per quarter
// hour (tens of thousands of rows cost more to hand to Go than to sum). A
// zone's offset is constant between its transitions, so the local day of
// bucket b is (b*900 + offset) / 86400 with the offset of b's interval: a
// CASE over the few transitions inside the data's range.

// ZoneSpan is a run of buckets [From, …) with one UTC offset (seconds).
type ZoneSpan struct {
	From   int64
	Offset int64
}

// Days is the rule that turns a bucket into its local day: the zone's
// spans over the buckets a report reads (nil: the report has no period).
// The day of bucket b is (b*900 + offset) / 86400 with the offset of b's
// span; Of says it in Go (the read caches), SQL in a statement, each
// walking the spans the same way, last first.
type Days []ZoneSpan

// zoneDays lists the offsets of tz over the buckets [lo, hi].
func zoneDays(tz *time.Location, lo, hi int64) Days {
	off := func(b int64) int64 {
		_, o := time.Unix(b*pidex.BucketMs/1000, 0).In(tz).Zone()
		return int64(o)
	}
	spans := Days{{From: lo, Offset: off(lo)}}
	const day = 96 // buckets
	for a := lo; a < hi; a += day {
		b := min(a+day, hi)
		if off(b) == spans[len(spans)-1].Offset {
			continue
		}
		// A transition in (a, b]: find its first bucket. (Two within one
		// day do not happen in the tz database.)
		for a+1 < b {
			m := (a + b) / 2
			if off(m) == spans[len(spans)-1].Offset {
				a = m
			} else {
				b = m
			}
		}
		spans = append(spans, ZoneSpan{From: b, Offset: off(b)})
		a = b - day // continue from the transition
	}
	return spans
}

// Of is the local day number of bucket b; -1 (no time, or no period)
// stays -1.
func (d Days) Of(b int64) int64 {
	if b < 0 || d == nil {
		return -1
	}
	i := len(d) - 1
	for i > 0 && b < d[i].From {
		i--
	}
	// Go's integer division truncates towards zero, as SQL's does.
	return (b*900 + d[i].Offset) / 86400
}

// HourOf is the local hour of the week of bucket b, 0 (Monday 0:00) to
// 167; -1 for no time. (1970-01-01 was a Thursday: 72 hours after a
// Monday midnight.)
func (d Days) HourOf(b int64) int64 {
	if b < 0 || d == nil {
		return -1
	}
	i := len(d) - 1
	for i > 0 && b < d[i].From {
		i--
	}
	return ((b*900+d[i].Offset)/3600 + 72) % 168
}

// HourSQL is HourOf in SQL for column col, a bucket (at least 0).
func (d Days) HourSQL(col string) (string, []any) {
	hour := "((" + col + " * 900 + ?) / 3600 + 72) % 168"
	if len(d) == 1 {
		return hour, []any{d[0].Offset}
	}
	var b strings.Builder
	var args []any
	b.WriteString("CASE")
	for i := len(d) - 1; i > 0; i-- {
		b.WriteString(" WHEN " + col + " >= ? THEN " + hour)
		args = append(args, d[i].From, d[i].Offset)
	}
	b.WriteString(" ELSE " + hour + " END")
	return b.String(), append(args, d[0].Offset)
}

// SQL is Of in SQL for column col, a bucket, with its arguments.
func (d Days) SQL(col string) (string, []any) {
	if d == nil {
		return "-1", nil
	}
	var b strings.Builder
	var args []any
	b.WriteString("CASE WHEN " + col + " < 0 THEN -1")
	for i := len(d) - 1; i > 0; i-- {
		b.WriteString(" WHEN " + col + " >= ? THEN (" + col + " * 900 + ?) / 86400")
		args = append(args, d[i].From, d[i].Offset)
	}
	b.WriteString(" ELSE (" + col + " * 900 + ?) / 86400 END")
	return b.String(), append(args, d[0].Offset)
}

// wholeHours: every offset of the spans is a whole number of hours (an
// hourly rollup answers).
func (d Days) wholeHours() bool {
	for i, s := range d {
		if s.Offset%3600 != 0 || (i > 0 && s.From%4 != 0) {
			return false
		}
	}
	return true
}

// bucketRange narrows the catalog's bucket range [lo, hi] to the report's
// Since/Until (a bucket of margin each side).
func narrowBuckets(f pidex.CostFilter, lo, hi int64) (int64, int64) {
	if !f.Since.IsZero() {
		lo = max(lo, f.Since.UnixMilli()/pidex.BucketMs-1)
	}
	if !f.Until.IsZero() {
		hi = min(hi, f.Until.UnixMilli()/pidex.BucketMs+1)
	}
	return lo, max(lo, hi)
}

// Edges says which buckets of a rollup (unit quarter hours each) a report
// within Since/Until reads whole, and which edge ranges it reads record by
// record: whole buckets [First, Last) (bucket numbers, in quarter hours),
// and up to two edges, each the records of one rollup bucket whose time
// lies in [From, To) ms.
type Edges struct {
	All         bool // no Since/Until: every bucket, and no edge
	First, Last int64
	Edges       []Edge
}

// Edge is the records of rollup bucket Bucket within [From, To) ms.
type Edge struct{ Bucket, From, To int64 }

// costEdges computes the report's whole buckets and edges for a rollup of
// unit quarter hours a bucket.
func costEdges(f pidex.CostFilter, unit int64) Edges {
	if f.Since.IsZero() && f.Until.IsZero() {
		return Edges{All: true}
	}
	unitMs := unit * pidex.BucketMs
	lo, hi := int64(0), int64(1)<<62 // ms; records without a time (bucket -1) are out
	if !f.Since.IsZero() {
		lo = f.Since.UnixMilli()
	}
	if !f.Until.IsZero() {
		hi = f.Until.UnixMilli()
	}
	first, last := ceilDiv(lo, unitMs), hi/unitMs // whole buckets: [first, last), in units
	if first >= last {                            // inside one bucket
		return Edges{First: 0, Last: 0, Edges: []Edge{{lo / unitMs * unit, lo, hi}}}
	}
	e := Edges{First: first * unit, Last: last * unit}
	if lo%unitMs != 0 {
		e.Edges = append(e.Edges, Edge{(first - 1) * unit, lo, first * unitMs})
	}
	if hi%unitMs != 0 && hi < int64(1)<<62 {
		e.Edges = append(e.Edges, Edge{last * unit, last * unitMs, hi})
	}
	return e
}

func ceilDiv(a, b int64) int64 {
	if a%b == 0 {
		return a / b
	}
	return a/b + 1
}

// localDay is the calendar date of a local day number.
func localDay(day int64) time.Time { return time.Unix(day*86400, 0).UTC() }

// CostPlan is a cost report as a catalog sums it: which rollup, which of
// its buckets whole and which records at the edges, the conditions and
// the keys.
type CostPlan struct {
	Filter pidex.CostFilter
	Rollup pidex.Rollup
	Days   Days // nil: the report has no period
	Edges  Edges
	// Flags are the conditions on a call's copy and branch flags (x.is_copy,
	// x.active): a team catalog decides them over the union of its
	// machines' files. Where are the others, on the call x, its session s
	// and its file f (and machine mm).
	Flags, Where Conds
	Keys         CostKeys
}

// CostKeys says which of a report's key columns vary: only those it
// groups by (and the model when repricing); the others are constant, so
// that the catalog folds their rows together instead of handing Go a row
// per model and source.
// Family: the session key is the session at the top of a call's chain of
// subagents (CostFilter.Rollup), not the call's own.
type CostKeys struct{ Provider, Model, Source, Cwd, Session, Family, Machine, Agent bool }

func costKeysOf(f pidex.CostFilter) CostKeys {
	by := func(k string) bool { return slices.Contains(f.By, k) }
	model := by("model") || f.Prices != nil
	return CostKeys{Provider: model || by("provider"), Model: model, Source: by("source"), Cwd: by("project"),
		Session: by("session"), Family: byFamily(f), Machine: by("machine"), Agent: by("agent")}
}

// SessionSQL is the session key's expression: the call's session's id,
// or with Family its top session's (over the tables Joins adds).
func (k CostKeys) SessionSQL() string { return sessionKeySQL(k.Family) }

// Sessions: a key is a column of the call's session.
func (k CostKeys) Sessions() bool { return k.Cwd || k.Session || k.Agent }

// keyCol is a key column: its name in a statement and its expression.
type keyCol struct {
	name, expr string
	on         func(CostKeys) bool
}

var keyCols = []keyCol{
	{"provider", "x.provider", func(k CostKeys) bool { return k.Provider }},
	{"model", "x.model", func(k CostKeys) bool { return k.Model }},
	{"source", "x.source", func(k CostKeys) bool { return k.Source }},
	{"cwd", "s.cwd", func(k CostKeys) bool { return k.Cwd }},
	{"session_id", "s.session_id", func(k CostKeys) bool { return k.Session }},
	{"machine", "mm.name", func(k CostKeys) bool { return k.Machine }},
	{"agent", "s.source", func(k CostKeys) bool { return k.Agent }},
}

// KeySQL selects the key columns, in CostPart's order (a constant key as
// ”; the provider and model of zero-cost rows always, see
// CostPart.ZeroCost), then zero_cost, and lists those to group by: only
// those that vary (sorting 20,000 rows by five constant strings too was a
// fifth of a report).
func (k CostKeys) KeySQL() (cols, group string) {
	var sel, groups []string
	for _, c := range keyCols {
		if c.name == "session_id" {
			c.expr = k.SessionSQL()
		}
		switch {
		case c.on(k):
			// Grouped by the expression: a name may also be a column of a
			// joined table (sessions.source is the agent).
			sel, groups = append(sel, c.expr+" AS "+c.name), append(groups, c.expr)
		case c.name == "provider" || c.name == "model":
			e := "CASE WHEN x.zero_cost THEN " + c.expr + " ELSE '' END"
			sel, groups = append(sel, e+" AS "+c.name), append(groups, e)
		default:
			sel = append(sel, "'' AS "+c.name)
		}
	}
	sel, groups = append(sel, "x.zero_cost AS zero_cost"), append(groups, "x.zero_cost")
	return strings.Join(sel, ", "), strings.Join(groups, ", ")
}

// Call is a call's provider, model and source as the report keys them
// ("" for a constant key; a zero-cost call keeps its provider and model).
func (k CostKeys) Call(provider, model, source string, zeroCost bool) (string, string, string) {
	if !k.Provider && !zeroCost {
		provider = ""
	}
	if !k.Model && !zeroCost {
		model = ""
	}
	if !k.Source {
		source = ""
	}
	return provider, model, source
}

// Joins are the tables a statement over calls x must join for the plan's
// conditions and keys.
func (p *CostPlan) Joins(d Dialect) string {
	j := ""
	if p.Where.Needs("s") || p.Keys.Sessions() {
		j += " JOIN sessions s ON s.file_id = x.file_id" + d.sameMachine("s", "x")
	}
	if p.Where.Needs("f") || p.Keys.Machine || p.Keys.Family {
		j += " JOIN files f ON f.id = x.file_id" + d.sameMachine("f", "x") + d.machineJoin()
	}
	if p.Keys.Family {
		j += familyJoin(d)
	}
	return j
}

// Sums are how a catalog's SQL sums a report's figures.
type Sums struct {
	Calls string              // the calls' count, e.g. sum(x.calls)
	Sum   func(string) string // a column's sum, e.g. total(x.col)
}

// Statement is the report's statement over the usage rows src (a
// subquery, aliased x, with the rollups' columns): per local day and key,
// the sums of the rows that the plan's flags and conditions keep, one row
// for a report without keys (none when nothing matches).
func (p *CostPlan) Statement(d Dialect, src string, srcArgs []any, sums Sums) (string, []any) {
	day, dayArgs := p.Days.SQL("x.bucket")
	cols, group := p.Keys.KeySQL()
	if p.Days != nil {
		group = strings.TrimSuffix("day, "+group, ", ")
	}
	q := `SELECT ` + day + ` AS day, ` + cols + `, ` + sums.Calls + ` AS calls`
	for _, c := range []string{"input", "output", "cache_read", "cache_write", "cache_write_1h", "total_tokens", "cost"} {
		q += ", " + sums.Sum(c) + " AS " + c
	}
	q += ` FROM (` + src + `) x` + p.Joins(d)
	cond, args := append(p.Flags[:len(p.Flags):len(p.Flags)], p.Where...).SQL(d)
	if cond != "" {
		q += " WHERE " + cond
	}
	// Never empty (zero_cost is always a key): no row, rather than one of
	// NULL sums, when nothing matches.
	q += " GROUP BY " + group
	return q, append(append(dayArgs, srcArgs...), args...)
}

// costPlan plans the report f asks for, within the reader's roots.
func (rd *Reader) costPlan(ctx context.Context, f pidex.CostFilter) (*CostPlan, error) {
	if f.TZ == nil {
		f.TZ = time.UTC
	}
	p := &CostPlan{Filter: f, Rollup: pidex.HourRollup, Keys: costKeysOf(f)}
	if byTime(f.By) {
		lo, hi, err := rd.bucketRange(ctx, f)
		if err != nil {
			return nil, err
		}
		if p.Days = zoneDays(f.TZ, lo, hi); !p.Days.wholeHours() {
			p.Rollup = pidex.QuarterRollup // Asia/Kathmandu, Asia/Kolkata, …: a day starts inside an hour
		}
	}
	p.Edges = costEdges(f, p.Rollup.Unit)
	if !f.NoDedup {
		p.Flags = append(p.Flags, is("call.copy", false))
	}
	switch f.Branch {
	case pidex.BranchActive:
		p.Flags = append(p.Flags, is("call.active", true))
	case pidex.BranchAbandoned:
		p.Flags = append(p.Flags, is("call.active", false))
	}
	if len(f.Sources) > 0 {
		p.Where = append(p.Where, in("call.source", f.Sources))
	}
	one, err := rd.sessionCond(ctx, f)
	if err != nil {
		return nil, err
	}
	p.Where = append(p.Where, one...)
	p.Where = append(p.Where, where(f.Where, pidex.OpCost)...)
	if f.Machine != "" {
		p.Where = append(p.Where, eq("machine.name", f.Machine))
	}
	if roots := rd.roots(); len(roots) > 0 {
		// Only when the catalog holds files outside the roots (another
		// --sessions run's): else no join per row.
		outside, err := rd.filesOutside(ctx, roots)
		if err != nil {
			return nil, err
		}
		if outside {
			p.Where = append(p.Where, inRoots(roots)...)
		}
	}
	return p, nil
}

// filesOutside reports whether the catalog holds files outside roots.
func (rd *Reader) filesOutside(ctx context.Context, roots []string) (bool, error) {
	b := rd.backend()
	cond, args := inRoots(roots).SQL(b.Dialect())
	db := b.Rows()
	var outside bool
	if err := db.GetContext(ctx, &outside, db.Rebind(`SELECT EXISTS (SELECT 1 FROM files f WHERE NOT (`+cond+`))`), args...); err != nil {
		return false, fmt.Errorf("sum usage: %w", err)
	}
	return outside, nil
}

// bucketRange is the span of buckets the report may read.
func (rd *Reader) bucketRange(ctx context.Context, f pidex.CostFilter) (lo, hi int64, err error) {
	var r struct {
		Lo *int64 `db:"lo"`
		Hi *int64 `db:"hi"`
	}
	// Two subqueries: each is one step down the bucket index, where
	// min() and max() in one SELECT scanned the whole index.
	db := rd.backend().Rows()
	err = db.GetContext(ctx, &r, `SELECT (SELECT min(bucket) FROM usage_rollup WHERE bucket >= 0) AS lo,
		(SELECT max(bucket) FROM usage_rollup) AS hi`)
	if err != nil {
		return 0, 0, fmt.Errorf("sum usage: %w", err)
	}
	if r.Lo == nil {
		return 0, 0, nil
	}
	lo, hi = narrowBuckets(f, *r.Lo, *r.Hi)
	return lo, hi, nil
}

// Cost sums the usage records o selects (see docs/cost.md).
func (rd *Reader) Cost(ctx context.Context, o pidex.CostOptions) (*pidex.CostReport, error) {
	f, err := o.Filter(rd.Vocabulary())
	if err != nil {
		return nil, err
	}
	if err := rd.CheckMachine(f.Machine); err != nil {
		return nil, err
	}
	if slices.Contains(f.By, "machine") && !rd.Team() {
		return nil, ErrNoMachines
	}
	if f.FileID, err = rd.fileOf(ctx, o.Session, f.Machine); err != nil {
		return nil, err
	}
	return rd.cost(ctx, f)
}

func (rd *Reader) cost(ctx context.Context, f pidex.CostFilter) (*pidex.CostReport, error) {
	p, err := rd.costPlan(ctx, f)
	if err != nil {
		return nil, err
	}
	parts, err := rd.backend().Usage(ctx, p)
	if err != nil {
		return nil, err
	}
	return groupCost(p.Filter, parts), nil
}

// UsageRow is a rollup row as a read cache holds it: a file's sums of
// one bucket, provider, model and source, with the copy and branch flags
// its calls share.
type UsageRow struct {
	FileID, Bucket          int64
	Provider, Model, Source string
	IsCopy, Active          bool
	ZeroCost                bool // see CostPart.ZeroCost
	Calls                   int64
	Sums                    [7]float64 // input, output, cache_read, cache_write, cache_write_1h, total_tokens, cost
}
