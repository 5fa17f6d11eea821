package query

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/sqlite"
	"github.com/pidex-dev/pidex/internal/readside"
)

const bucketMs = sqlite.BucketMs

// Cost sums the usage records f selects. It reads a rollup (hourly, or
// by quarter hour for zones whose days start inside an hour); only when
// --since/--until fall inside a bucket are the records of those edge
// buckets read one by one, so the answer is exact and its cost grows with
// buckets, not calls.
func (rd *Reader) Cost(ctx context.Context, f pidex.CostFilter) (*pidex.CostReport, error) {
	if f.TZ == nil {
		f.TZ = time.UTC
	}
	if parts, ok, err := rd.costFromCache(ctx, f); err != nil || ok {
		if err != nil {
			return nil, err
		}
		return readside.GroupCost(f, parts), nil
	}
	q, args, err := rd.costSQL(ctx, f)
	if err != nil {
		return nil, err
	}
	var parts []readside.CostPart
	if err := rd.db.SelectContext(ctx, &parts, q, args...); err != nil {
		return nil, fmt.Errorf("sum usage: %w", err)
	}
	return readside.GroupCost(f, parts), nil
}

// keyExprs are the report's key columns in costSQL (a local catalog has
// no machine: that key is constant).
var keyExprs = map[string]string{"provider": "x.provider", "model": "x.model", "source": "x.source",
	"cwd": "s.cwd", "session_id": "s.session_id", "agent": "s.source"}

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
		c, a := inList("x.source", f.Sources)
		add(c, a...)
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
		c, a := inList("s.source", f.Agents)
		add(c, a...)
	}
	joins := ""
	if f.Cwd != "" || f.Project != "" || len(f.Agents) > 0 || slices.Contains(f.By, "project") || slices.Contains(f.By, "session") || slices.Contains(f.By, "agent") {
		joins += " JOIN sessions s ON s.file_id = x.file_id"
	}
	if len(rd.roots) > 0 {
		outside, err := filesOutside(ctx, rd.db, rd.roots)
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
	rollup := sqlite.HourRollup
	if readside.ByTime(f.By) {
		lo, hi, err := bucketRange(ctx, rd.db, f)
		if err != nil {
			return "", nil, err
		}
		spans := readside.ZoneSpans(f.TZ, lo, hi)
		day, dayArgs = readside.DayExpr("x.bucket", spans)
		if !readside.WholeHours(spans) {
			rollup = sqlite.QuarterRollup // Asia/Kathmandu, Asia/Kolkata, …: a day starts inside an hour
		}
	}
	src, srcArgs := costSource(f, rollup)
	cols, group := readside.KeyCols(f, keyExprs)
	if readside.ByTime(f.By) {
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
func filesOutside(ctx context.Context, q sqlx.QueryerContext, roots []string) (bool, error) {
	c, a := inRoots("f", roots)
	var n int
	if err := sqlx.GetContext(ctx, q, &n, `SELECT EXISTS (SELECT 1 FROM files f WHERE NOT (`+c+`))`, a...); err != nil {
		return false, fmt.Errorf("sum usage: %w", err)
	}
	return n == 1, nil
}

// bucketRange is the span of buckets the report may read.
func bucketRange(ctx context.Context, q sqlx.QueryerContext, f pidex.CostFilter) (lo, hi int64, err error) {
	var r struct {
		Lo *int64 `db:"lo"`
		Hi *int64 `db:"hi"`
	}
	// Two subqueries: each is one step down the bucket index, where
	// min() and max() in one SELECT scanned the whole index.
	err = sqlx.GetContext(ctx, q, &r, `SELECT (SELECT min(bucket) FROM usage_rollup WHERE bucket >= 0) AS lo,
		(SELECT max(bucket) FROM usage_rollup) AS hi`)
	if err != nil {
		return 0, 0, fmt.Errorf("sum usage: %w", err)
	}
	if r.Lo == nil {
		return 0, 0, nil
	}
	lo, hi = readside.BucketRange(f, *r.Lo, *r.Hi)
	return lo, hi, nil
}

const rollupCols = `file_id, bucket, provider, model, source, is_copy, active, calls,
	input, output, cache_read, cache_write, cache_write_1h, total_tokens, cost`

// rawCols are the same columns from single usage records.
var rawCols = `file_id, ts_ms / ` + strconv.Itoa(bucketMs) + ` AS bucket, COALESCE(attr_provider, provider) AS provider,
	COALESCE(attr_model, model) AS model, source, is_copy, call_active AS active, 1 AS calls,
	input, output, cache_read, cache_write, cache_write_1h, total_tokens, cost_total AS cost`

// costSource is the rows the report sums: the rollup's whole buckets
// within Since/Until, plus the single records of the edge buckets they cut.
func costSource(f pidex.CostFilter, r sqlite.Rollup) (string, []any) {
	from := "SELECT " + rollupCols + " FROM " + r.Table
	e := readside.CostEdges(f, r.Unit)
	if e.All {
		return from, nil
	}
	var parts []string
	var args []any
	if e.First < e.Last {
		parts = append(parts, from+" WHERE bucket >= ? AND bucket < ?")
		args = append(args, e.First, e.Last)
	}
	for _, ed := range e.Edges {
		// The edge records: only in the files the rollup has in that bucket.
		parts = append(parts, " SELECT "+rawCols+` FROM usage WHERE file_id IN (SELECT file_id FROM `+r.Table+` WHERE bucket = ?)
		AND ts_ms >= ? AND ts_ms < ?`)
		args = append(args, ed.Bucket, ed.From, ed.To)
	}
	return strings.Join(parts, " UNION ALL"), args
}

func anys(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
