package query

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/catalog"
)

// costPart is what the SQL returns: sums per local day and per the other
// keys the report asks for (constants for the rest, see keyCols).
type costPart struct {
	Day          int64   `db:"day"` // local day number (see cost_zone.go); -1: no time
	Provider     string  `db:"provider"`
	Model        string  `db:"model"`
	Source       string  `db:"source"`
	Cwd          string  `db:"cwd"`
	SessionID    string  `db:"session_id"`
	Agent        string  `db:"agent"`
	Calls        int64   `db:"calls"`
	Input        float64 `db:"input"`
	Output       float64 `db:"output"`
	CacheRead    float64 `db:"cache_read"`
	CacheWrite   float64 `db:"cache_write"`
	CacheWrite1h float64 `db:"cache_write_1h"`
	TotalTokens  float64 `db:"total_tokens"`
	Cost         float64 `db:"cost"`
}

const bucketMs = catalog.BucketMs

// Cost sums the usage records f selects. It reads a rollup (hourly, or
// by quarter hour for zones whose days start inside an hour); only when
// --since/--until fall inside a bucket are the records of those edge
// buckets read one by one, so the answer is exact and its cost grows with
// buckets, not calls.
func (rd *Reader) Cost(ctx context.Context, f pidex.CostFilter) (*pidex.CostReport, error) {
	if f.TZ == nil {
		f.TZ = time.UTC
	}
	q, args, err := rd.costSQL(ctx, f)
	if err != nil {
		return nil, err
	}
	var parts []costPart
	if err := rd.db.SelectContext(ctx, &parts, q, args...); err != nil {
		return nil, fmt.Errorf("sum usage: %w", err)
	}
	return groupCost(f, parts), nil
}

// costSQL builds the query: whole buckets from the rollup, plus the single
// records of the edge buckets that Since/Until cut.
func (rd *Reader) costSQL(ctx context.Context, f pidex.CostFilter) (string, []any, error) {
	var cond []string
	var args []any
	add := func(c string, a ...any) { cond, args = append(cond, c), append(args, a...) }
	if !f.NoDedup {
		add("x.is_copy = 0")
	}
	switch f.Branch {
	case "active":
		add("x.active = 1")
	case "abandoned":
		add("x.active = 0")
	}
	if len(f.Sources) > 0 {
		add("x.source IN (?"+strings.Repeat(",?", len(f.Sources)-1)+")", anys(f.Sources)...)
	}
	if f.Model != "" {
		add("instr(lower(x.provider || '/' || x.model), lower(?)) > 0", f.Model)
	}
	if f.FileID != 0 {
		add("x.file_id = ?", f.FileID)
	}
	if f.Cwd != "" {
		add("s.cwd = ?", f.Cwd)
	}
	if f.Project != "" {
		add("instr(lower(s.cwd), lower(?)) > 0", f.Project)
	}
	if len(f.Agents) > 0 {
		add("s.source IN (?"+strings.Repeat(",?", len(f.Agents)-1)+")", anys(f.Agents)...)
	}
	joins := ""
	if f.Cwd != "" || f.Project != "" || len(f.Agents) > 0 || slices.Contains(f.By, "project") || slices.Contains(f.By, "session") || slices.Contains(f.By, "agent") {
		joins += " JOIN sessions s ON s.file_id = x.file_id"
	}
	if len(rd.roots) > 0 {
		outside, err := rd.filesOutside(ctx, rd.roots)
		if err != nil {
			return "", nil, err
		}
		if outside { // else every file is under the roots: no join per row
			c, a := inRoots("fl", rd.roots)
			add(c, a...)
			joins += " JOIN files fl ON fl.id = x.file_id"
		}
	}
	day, dayArgs := "-1", []any(nil)
	rollup := catalog.HourRollup
	if byTime(f.By) {
		lo, hi, err := rd.bucketRange(ctx, f)
		if err != nil {
			return "", nil, err
		}
		spans := zoneSpans(f.TZ, lo, hi)
		day, dayArgs = dayExpr("x.bucket", spans)
		if !wholeHours(spans) {
			rollup = catalog.QuarterRollup // Asia/Kathmandu, Asia/Kolkata, …: a day starts inside an hour
		}
	}
	src, srcArgs := costSource(f, rollup)
	cols, group := keyCols(f)
	if byTime(f.By) {
		group = strings.TrimSuffix("day, "+group, ", ")
	}
	q := `SELECT ` + day + ` AS day, ` + cols + `,
		sum(x.calls) AS calls, total(x.input) AS input, total(x.output) AS output, total(x.cache_read) AS cache_read,
		total(x.cache_write) AS cache_write, total(x.cache_write_1h) AS cache_write_1h,
		total(x.total_tokens) AS total_tokens, total(x.cost) AS cost
		FROM (` + src + `) x` + joins
	if len(cond) > 0 {
		q += " WHERE " + strings.Join(cond, " AND ")
	}
	if group != "" {
		q += " GROUP BY " + group
	} else {
		q += " HAVING count(*) > 0" // no row, rather than one of NULL sums, when nothing matches
	}
	return q, append(append(dayArgs, srcArgs...), args...), nil
}

// filesOutside reports whether the catalog holds files outside roots
// (another --sessions run's); only then does the report join files.
func (rd *Reader) filesOutside(ctx context.Context, roots []string) (bool, error) {
	c, a := inRoots("f", roots)
	var n int
	if err := rd.db.GetContext(ctx, &n, `SELECT EXISTS (SELECT 1 FROM files f WHERE NOT (`+c+`))`, a...); err != nil {
		return false, fmt.Errorf("sum usage: %w", err)
	}
	return n == 1, nil
}

// keyCols selects only the keys the report groups by (and the model when
// repricing); the others are constants, so that SQLite folds their rows
// together instead of handing Go a row per model and source. group lists
// the columns to group by: only those that vary (sorting 20,000 rows by
// five constant strings too was a fifth of a report).
func keyCols(f pidex.CostFilter) (cols, group string) {
	sel := []string{}
	groups := []string{}
	col := func(need bool, expr, name string) {
		if need {
			// Grouped by the expression: a name may also be a column of a
			// joined table (sessions.source).
			sel, groups = append(sel, expr+" AS "+name), append(groups, expr)
		} else {
			sel = append(sel, "'' AS "+name)
		}
	}
	by := func(k string) bool { return slices.Contains(f.By, k) }
	model := by("model") || f.Prices != nil
	col(model || by("provider"), "x.provider", "provider")
	col(model, "x.model", "model")
	col(by("source"), "x.source", "source")
	col(by("project"), "s.cwd", "cwd")
	col(by("session"), "s.session_id", "session_id")
	col(by("agent"), "s.source", "agent")
	return strings.Join(sel, ", "), strings.Join(groups, ", ")
}

// byTime: the report has a day, week or month key.
func byTime(by []string) bool {
	return slices.Contains(by, "day") || slices.Contains(by, "week") || slices.Contains(by, "month")
}

const rollupCols = `file_id, bucket, provider, model, source, is_copy, active, calls,
	input, output, cache_read, cache_write, cache_write_1h, total_tokens, cost`

// rawCols are the same columns from single usage records.
var rawCols = `file_id, ts_ms / ` + strconv.Itoa(bucketMs) + ` AS bucket, COALESCE(attr_provider, provider) AS provider,
	COALESCE(attr_model, model) AS model, source, is_copy, call_active AS active, 1 AS calls,
	input, output, cache_read, cache_write, cache_write_1h, total_tokens, cost_total AS cost`

// wholeHours: every offset of the zone's spans is a whole number of hours.
func wholeHours(spans []zoneSpan) bool {
	for i, s := range spans {
		if s.offset%3600 != 0 || (i > 0 && s.from%4 != 0) {
			return false
		}
	}
	return true
}

// costSource is the rows the report sums: the rollup's whole buckets
// within Since/Until, plus the single records of the edge buckets they cut.
func costSource(f pidex.CostFilter, r catalog.Rollup) (string, []any) {
	from := "SELECT " + rollupCols + " FROM " + r.Table
	if f.Since.IsZero() && f.Until.IsZero() {
		return from, nil
	}
	unitMs := r.Unit * bucketMs
	lo, hi := int64(0), int64(1)<<62 // ms; records without a time (bucket -1) are out
	if !f.Since.IsZero() {
		lo = f.Since.UnixMilli()
	}
	if !f.Until.IsZero() {
		hi = f.Until.UnixMilli()
	}
	// The edge records: only in the files the rollup has in that bucket.
	edge := " SELECT " + rawCols + ` FROM usage WHERE file_id IN (SELECT file_id FROM ` + r.Table + ` WHERE bucket = ?)
		AND ts_ms >= ? AND ts_ms < ?`
	first, last := ceilDiv(lo, unitMs), hi/unitMs // whole buckets: [first, last), in units
	if first >= last {                            // inside one bucket
		return edge, []any{lo / unitMs * r.Unit, lo, hi}
	}
	q := from + " WHERE bucket >= ? AND bucket < ?"
	args := []any{first * r.Unit, last * r.Unit}
	if lo%unitMs != 0 {
		q += " UNION ALL" + edge
		args = append(args, (first-1)*r.Unit, lo, first*unitMs)
	}
	if hi%unitMs != 0 && hi < int64(1)<<62 {
		q += " UNION ALL" + edge
		args = append(args, last*r.Unit, last*unitMs, hi)
	}
	return q, args
}

func ceilDiv(a, b int64) int64 {
	if a%b == 0 {
		return a / b
	}
	return a/b + 1
}

func anys(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
