package sqlite

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/query"
)

// Usage sums the usage rows p selects: from the rollup's read cache when
// p needs nothing the cache lacks (costcache.go), else by p's statement
// over the rollup's whole buckets and the edge buckets' records one by
// one, summed as SQLite's total() sums, so the answer is exact and its
// cost grows with buckets, not calls.
func (r *Reader) Usage(ctx context.Context, p *query.CostPlan) ([]query.CostPart, error) {
	if parts, ok, err := r.usageFromCache(ctx, p); err != nil || ok {
		return parts, err
	}
	src, srcArgs := costSource(p)
	q, args := p.Statement(query.SQLite, src, srcArgs, query.Sums{Calls: "sum(x.calls)",
		Sum: func(c string) string { return "total(x." + c + ")" }})
	var parts []query.CostPart
	if err := r.db.SelectContext(ctx, &parts, q, args...); err != nil {
		return nil, fmt.Errorf("sum usage: %w", err)
	}
	return parts, nil
}

const rollupCols = `file_id, bucket, provider, model, source, is_copy, active, zero_cost, calls,
	input, output, cache_read, cache_write, cache_write_1h, total_tokens, cost`

// rawCols are the same columns from single usage records.
var rawCols = `file_id, ts_ms / ` + strconv.Itoa(pidex.BucketMs) + ` AS bucket, COALESCE(attr_provider, provider) AS provider,
	COALESCE(attr_model, model) AS model, source, is_copy, call_active AS active, ` + pidex.ZeroCostSQL("") + ` AS zero_cost, 1 AS calls,
	input, output, cache_read, cache_write, cache_write_1h, total_tokens, cost_total AS cost`

// costSource is the rows the report sums: the rollup's whole buckets
// within Since/Until, plus the single records of the edge buckets they cut.
func costSource(p *query.CostPlan) (string, []any) {
	from := "SELECT " + rollupCols + " FROM " + p.Rollup.Table
	e := p.Edges
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
		parts = append(parts, " SELECT "+rawCols+` FROM usage WHERE file_id IN (SELECT file_id FROM `+p.Rollup.Table+` WHERE bucket = ?)
		AND ts_ms >= ? AND ts_ms < ?`)
		args = append(args, ed.Bucket, ed.From, ed.To)
	}
	return strings.Join(parts, " UNION ALL"), args
}
