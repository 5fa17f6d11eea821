package query

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/pidex-dev/pidex"
)

// The report folds quarter hours into local days in SQL, so that SQLite
// returns a row per day and model instead of one per quarter hour (tens
// of thousands of rows cost more to hand to Go than to sum). A zone's
// offset is constant between its transitions, so the local day of bucket
// b is (b*900 + offset) / 86400 with the offset of b's interval: a CASE
// over the few transitions inside the data's range.

// zoneSpan is a run of buckets [from, …) with one UTC offset (seconds).
type zoneSpan struct {
	from   int64
	offset int64
}

// zoneSpans lists the offsets of tz over the buckets [lo, hi].
func zoneSpans(tz *time.Location, lo, hi int64) []zoneSpan {
	off := func(b int64) int64 {
		_, o := time.Unix(b*bucketMs/1000, 0).In(tz).Zone()
		return int64(o)
	}
	spans := []zoneSpan{{from: lo, offset: off(lo)}}
	const day = 96 // buckets
	for a := lo; a < hi; a += day {
		b := min(a+day, hi)
		if off(b) == spans[len(spans)-1].offset {
			continue
		}
		// A transition in (a, b]: find its first bucket. (Two within one
		// day do not happen in the tz database.)
		for a+1 < b {
			m := (a + b) / 2
			if off(m) == spans[len(spans)-1].offset {
				a = m
			} else {
				b = m
			}
		}
		spans = append(spans, zoneSpan{from: b, offset: off(b)})
		a = b - day // continue from the transition
	}
	return spans
}

// dayExpr is the SQL for the local day number (days since 1970-01-01 in
// tz) of column col, a bucket; -1 stays -1 (no time).
func dayExpr(col string, spans []zoneSpan) (string, []any) {
	var b strings.Builder
	var args []any
	b.WriteString("CASE WHEN " + col + " < 0 THEN -1")
	for i := len(spans) - 1; i >= 0; i-- {
		s := spans[i]
		if i > 0 {
			b.WriteString(" WHEN " + col + " >= ? THEN (" + col + " * 900 + ?) / 86400")
			args = append(args, s.from, s.offset)
		} else {
			b.WriteString(" ELSE (" + col + " * 900 + ?) / 86400")
			args = append(args, s.offset)
		}
	}
	b.WriteString(" END")
	return b.String(), args
}

// bucketRange is the span of buckets the report may read.
func (rd *Reader) bucketRange(ctx context.Context, f pidex.CostFilter) (lo, hi int64, err error) {
	var r struct {
		Lo *int64 `db:"lo"`
		Hi *int64 `db:"hi"`
	}
	// Two subqueries: each is one step down the bucket index, where
	// min() and max() in one SELECT scanned the whole index.
	err = rd.db.GetContext(ctx, &r, `SELECT (SELECT min(bucket) FROM usage_rollup WHERE bucket >= 0) AS lo,
		(SELECT max(bucket) FROM usage_rollup) AS hi`)
	if err != nil {
		return 0, 0, fmt.Errorf("sum usage: %w", err)
	}
	if r.Lo == nil {
		return 0, 0, nil
	}
	lo, hi = *r.Lo, *r.Hi
	if !f.Since.IsZero() {
		lo = max(lo, f.Since.UnixMilli()/bucketMs-1)
	}
	if !f.Until.IsZero() {
		hi = min(hi, f.Until.UnixMilli()/bucketMs+1)
	}
	return lo, max(lo, hi), nil
}

// localDay is the calendar date of a local day number.
func localDay(day int64) time.Time { return time.Unix(day*86400, 0).UTC() }
