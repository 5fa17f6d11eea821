package readside

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/pidex-dev/pidex"
)

// CostPart is what a backend's cost query returns: sums per local day and
// per the other keys the report asks for ("" for the others, see
// KeyCols).
type CostPart struct {
	Day          int64  `db:"day"` // local day number (see ZoneSpans); -1: no time
	Provider     string `db:"provider"`
	Model        string `db:"model"`
	Source       string `db:"source"`
	Cwd          string `db:"cwd"`
	SessionID    string `db:"session_id"`
	Machine      string `db:"machine"`
	Agent        string `db:"agent"`
	Calls        int64  `db:"calls"`
	Input        float64
	Output       float64
	CacheRead    float64 `db:"cache_read"`
	CacheWrite   float64 `db:"cache_write"`
	CacheWrite1h float64 `db:"cache_write_1h"`
	TotalTokens  float64 `db:"total_tokens"`
	Cost         float64 `db:"cost"`
}

// BucketMs is a quarter hour, the unit of every rollup's bucket: each
// zone's offset today is a multiple of it.
const BucketMs = 900_000

// GroupCost folds a backend's parts into the report's rows: time keys in
// the report's zone, repricing per model. The parts are folded in the
// order of their keys, whatever order the backend gave them, so that two
// backends holding the same parts sum them alike (floating-point sums
// depend on their order).
func GroupCost(f pidex.CostFilter, parts []CostPart) *pidex.CostReport {
	slices.SortFunc(parts, comparePart)
	r := &pidex.CostReport{By: f.By, Rows: []pidex.CostRow{}, Repriced: f.Prices != nil}
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
		s := sumsOf(p, f.Prices)
		r.Rows[n].Add(s)
		r.Totals.Add(s)
	}
	slices.SortStableFunc(r.Rows, func(a, b pidex.CostRow) int { return compareRows(f.By, a, b) })
	return r
}

func comparePart(a, b CostPart) int {
	return cmp.Or(cmp.Compare(a.Day, b.Day), strings.Compare(a.Provider, b.Provider), strings.Compare(a.Model, b.Model),
		strings.Compare(a.Source, b.Source), strings.Compare(a.Cwd, b.Cwd), strings.Compare(a.SessionID, b.SessionID),
		strings.Compare(a.Machine, b.Machine), strings.Compare(a.Agent, b.Agent))
}

// costKey is part p's value of key k (its day is already local).
func costKey(k string, p *CostPart) string {
	switch k {
	case "day", "week", "month":
		if p.Day < 0 {
			return "unknown"
		}
		return pidex.PeriodKey(k, LocalDay(p.Day))
	case "model":
		if p.Model == "" {
			return "unknown"
		}
		return pidex.ModelName(p.Provider, p.Model)
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

func sumsOf(p *CostPart, prices *pidex.Prices) pidex.CostSums {
	// A backend's sums of a bucket may pass the largest double (+Inf).
	sat := pidex.Saturate
	s := pidex.CostSums{Input: sat(p.Input), Output: sat(p.Output), CacheRead: sat(p.CacheRead), CacheWrite: sat(p.CacheWrite),
		CacheWrite1h: sat(p.CacheWrite1h), TotalTokens: sat(p.TotalTokens), Cost: sat(p.Cost), Calls: p.Calls}
	if prices != nil {
		if price, ok := prices.Lookup(p.Provider, p.Model); ok {
			s.Repriced, s.PricedCalls = price.Cost(s), s.Calls
		} else {
			s.Unpriced = []string{pidex.ModelName(p.Provider, p.Model)}
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

// ByTime: the report has a day, week or month key.
func ByTime(by []string) bool {
	return slices.ContainsFunc(by, pidex.IsPeriod)
}

// KeyCols selects only the keys the report groups by (and the model when
// repricing); the others are constants, so that the database folds their
// rows together instead of handing Go a row per model and source. group
// lists the columns to group by: only those that vary (sorting 20,000
// rows by five constant strings too was a fifth of a report). cols maps a
// key column (provider, model, source, cwd, session_id, machine, agent) to its
// expression in the backend's query; a key without one is constant.
func KeyCols(f pidex.CostFilter, exprs map[string]string) (cols, group string) {
	sel := []string{}
	groups := []string{}
	col := func(need bool, name string) {
		expr, ok := exprs[name]
		if need && ok {
			// Grouped by the expression: a name may also be a column of a
			// joined table (sessions.source is the agent).
			sel, groups = append(sel, expr+" AS "+name), append(groups, expr)
		} else {
			sel = append(sel, "'' AS "+name)
		}
	}
	by := func(k string) bool { return slices.Contains(f.By, k) }
	model := by("model") || f.Prices != nil
	col(model || by("provider"), "provider")
	col(model, "model")
	col(by("source"), "source")
	col(by("project"), "cwd")
	col(by("session"), "session_id")
	col(by("machine"), "machine")
	col(by("agent"), "agent")
	return strings.Join(sel, ", "), strings.Join(groups, ", ")
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

// ZoneSpans lists the offsets of tz over the buckets [lo, hi].
func ZoneSpans(tz *time.Location, lo, hi int64) []ZoneSpan {
	off := func(b int64) int64 {
		_, o := time.Unix(b*BucketMs/1000, 0).In(tz).Zone()
		return int64(o)
	}
	spans := []ZoneSpan{{From: lo, Offset: off(lo)}}
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

// DayOf is the local day number of bucket b (-1 stays -1), as DayExpr
// computes it in SQL.
func DayOf(b int64, spans []ZoneSpan) int64 {
	if b < 0 {
		return -1
	}
	for i := len(spans) - 1; i > 0; i-- {
		if b >= spans[i].From {
			return (b*900 + spans[i].Offset) / 86400
		}
	}
	// Go's integer division truncates towards zero, as SQL's does.
	return (b*900 + spans[0].Offset) / 86400
}

// DayExpr is the SQL for the local day number (days since 1970-01-01 in
// tz) of column col, a bucket; -1 stays -1 (no time). Arguments are
// positional ('?').
func DayExpr(col string, spans []ZoneSpan) (string, []any) {
	var b strings.Builder
	var args []any
	b.WriteString("CASE WHEN " + col + " < 0 THEN -1")
	for i := len(spans) - 1; i >= 0; i-- {
		s := spans[i]
		if i > 0 {
			b.WriteString(" WHEN " + col + " >= ? THEN (" + col + " * 900 + ?) / 86400")
			args = append(args, s.From, s.Offset)
		} else {
			b.WriteString(" ELSE (" + col + " * 900 + ?) / 86400")
			args = append(args, s.Offset)
		}
	}
	b.WriteString(" END")
	return b.String(), args
}

// WholeHours: every offset of the zone's spans is a whole number of hours
// (an hourly rollup answers).
func WholeHours(spans []ZoneSpan) bool {
	for i, s := range spans {
		if s.Offset%3600 != 0 || (i > 0 && s.From%4 != 0) {
			return false
		}
	}
	return true
}

// BucketRange narrows the catalog's bucket range [lo, hi] to the report's
// Since/Until (a bucket of margin each side).
func BucketRange(f pidex.CostFilter, lo, hi int64) (int64, int64) {
	if !f.Since.IsZero() {
		lo = max(lo, f.Since.UnixMilli()/BucketMs-1)
	}
	if !f.Until.IsZero() {
		hi = min(hi, f.Until.UnixMilli()/BucketMs+1)
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

// CostEdges computes the report's whole buckets and edges for a rollup of
// unit quarter hours a bucket.
func CostEdges(f pidex.CostFilter, unit int64) Edges {
	if f.Since.IsZero() && f.Until.IsZero() {
		return Edges{All: true}
	}
	unitMs := unit * BucketMs
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

// LocalDay is the calendar date of a local day number.
func LocalDay(day int64) time.Time { return time.Unix(day*86400, 0).UTC() }
