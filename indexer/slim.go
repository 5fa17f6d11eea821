package indexer

import (
	"math"
	"time"

	"github.com/pidex-dev/pidex/internal/js"
	"github.com/pidex-dev/pidex/pi"
	"github.com/pidex-dev/pidex/schema"
)

// The stored forms of the entry and usage columns that migration 00021
// reads back through generated columns: a value most rows share is stored
// as NULL or a small number. Each function here is the inverse of its
// column's expression there.

// typeRaw is entries.type_raw: NULL for a message.
func typeRaw(t string) any {
	if t == "message" {
		return nil
	}
	return t
}

// roleRaw is entries.role_raw: the three common roles by number, any
// other as written.
func roleRaw(r *string) any {
	if r == nil {
		return nil
	}
	switch *r {
	case "assistant":
		return int64(0)
	case "toolResult":
		return int64(1)
	case "user":
		return int64(2)
	}
	return *r
}

// stopRaw is entries.stop_raw: the two common stop reasons by number.
func stopRaw(r *string) any {
	if r == nil {
		return nil
	}
	switch *r {
	case "toolUse":
		return int64(0)
	case "stop":
		return int64(1)
	}
	return *r
}

// isoLayout is JavaScript's Date.prototype.toISOString, which is how pi
// writes every timestamp, and what SQLite's strftime('%Y-%m-%dT%H:%M:%fZ')
// prints for the same millisecond within isoMax.
const isoLayout = "2006-01-02T15:04:05.000Z"

// isoMax is the last millisecond of year 9999: strftime prints four
// digits of year, toISOString six with a sign beyond them.
const isoMax = 253402300799999

// tsRaw is entries.ts_raw and ts_dt: the timestamp as written (dt NULL)
// unless it is toISOString of a time, given as its distance from ts_ms.
func tsRaw(ts string, tsMs *int64) (raw, dt any) {
	if tsMs != nil {
		if ms, ok := js.ParseDate(ts); ok && ms >= 0 && ms <= isoMax && time.UnixMilli(ms).UTC().Format(isoLayout) == ts {
			return nil, ms - *tsMs
		}
	}
	return ts, nil
}

// totalTokensRaw is usage.total_tokens_raw: NULL when the total is the
// sum of the four counts (below 2^53, where SQLite's integer sum and the
// float64 one agree).
func totalTokensRaw(u schema.Usage) any {
	t := pi.TotalTokens(u)
	if t == u.Input+u.Output+u.CacheRead+u.CacheWrite && math.Abs(t) <= 1<<53 {
		return nil
	}
	return t
}

// costTotalRaw is usage.cost_total_raw: NULL when the total is the sum of
// the four costs added in pi's order (calculateCost), as SQLite adds them
// (IEEE doubles, left to right); a negative zero is kept as written.
func costTotalRaw(c schema.Cost) any {
	if sum := c.Input + c.Output + c.CacheRead + c.CacheWrite; sum == c.Total && math.Signbit(sum) == math.Signbit(c.Total) {
		return nil
	}
	return c.Total
}

// sourceRaw is usage.source_raw: NULL for an assistant message's usage.
func sourceRaw(s string) any {
	if s == "assistant" {
		return nil
	}
	return s
}
