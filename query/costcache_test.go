package query_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/indexer"
	"github.com/pidex-dev/pidex/query"
	"github.com/pidex-dev/pidex/sqlite"
)

// costFilters are reports of every shape the rollup cache answers, and
// some it leaves to the SQL (a project, an agent, --since cutting a
// bucket), in zones of whole hours, with transitions (Santiago's at
// local midnight moves a call's day), and of quarter hours.
func costFilters(t *testing.T, db *sqlite.DB) []pidex.CostFilter {
	t.Helper()
	prices, err := pidex.LoadPrices(filepath.Join("..", "testdata", "prices", "litellm-small.json"))
	if err != nil {
		t.Fatal(err)
	}
	var e2 int64
	if err := db.Get(&e2, `SELECT file_id FROM sessions WHERE session_id = 'e2'`); err != nil {
		t.Fatal(err)
	}
	at := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	var out []pidex.CostFilter
	for _, zone := range []string{"UTC", "America/Los_Angeles", "Asia/Kathmandu", "America/Santiago"} {
		loc, err := time.LoadLocation(zone)
		if err != nil {
			t.Fatal(err)
		}
		for _, by := range [][]string{nil, {"day"}, {"week"}, {"month"}, {"model"}, {"provider"}, {"source"},
			{"day", "model"}, {"day", "source"}, {"provider", "source"}, {"month", "provider", "source"}, {"project"}, {"day", "agent"}} {
			for _, branch := range []string{"all", "active", "abandoned"} {
				for _, nd := range []bool{false, true} {
					out = append(out, pidex.CostFilter{By: by, Branch: branch, NoDedup: nd, TZ: loc})
				}
			}
			out = append(out,
				pidex.CostFilter{By: by, TZ: loc, Sources: []string{"assistant", "compaction"}},
				pidex.CostFilter{Where: pidex.Where{"model": "OPUS"}, By: by, TZ: loc},
				pidex.CostFilter{Where: pidex.Where{"model": "openai/"}, By: by, TZ: loc},
				pidex.CostFilter{By: by, TZ: loc, FileID: e2},
				pidex.CostFilter{By: by, TZ: loc, FileID: e2, NoDedup: true},
				pidex.CostFilter{By: by, TZ: loc, Prices: prices},
				pidex.CostFilter{By: by, TZ: loc, Estimate: true},
				pidex.CostFilter{By: by, TZ: loc, Estimate: true, Prices: prices, Branch: "active"},
				pidex.CostFilter{By: by, TZ: loc, Since: at("2026-03-08T00:00:00Z"), Until: at("2026-03-09T12:00:00Z")},
				pidex.CostFilter{By: by, TZ: loc, Since: at("2026-03-08T07:59:59.5Z")},
				pidex.CostFilter{Where: pidex.Where{"project": "alpha"}, By: by, TZ: loc},
			)
		}
	}
	return out
}

// The rollup cache answers every report exactly as the SQL does, to the
// bit, before and after the rows change; and it is made and kept. One
// reader answers throughout, as a server's does: what it keeps of a cache
// (rollupMemo) follows the rows.
func TestCostCacheIsTheSQL(t *testing.T) {
	root := costCorpus(t)
	db := costCatalog(t, root)
	ctx := context.Background()
	cached := newReader(db, nil)
	check := func(when string) {
		t.Helper()
		sqlOnly := query.New(sqlite.NewReader(db, sqlite.ReaderOptions{NoCostCache: true}), nil)
		for _, f := range costFilters(t, db) {
			got, err := cached.CostF(ctx, f)
			if err != nil {
				t.Fatalf("%s: %+v: %v", when, f, err)
			}
			want, err := sqlOnly.CostF(ctx, f)
			if err != nil {
				t.Fatalf("%s: %+v: %v", when, f, err)
			}
			if !sameReport(got, want) {
				t.Errorf("%s: %v %s: cache\n%+v\nSQL\n%+v", when, f.By, f.TZ, got, want)
			}
		}
		for _, r := range pidex.Rollups {
			var valid bool
			if err := db.Get(&valid, `SELECT data_gen IS gen FROM read_caches WHERE name = ?`, r.Table); err != nil {
				t.Fatal(err)
			}
			if !valid {
				t.Errorf("%s: no valid cache of %s after the reports", when, r.Table)
			}
		}
	}
	check("first")
	// A new call in a new hour, one in an hour that has calls, and one in
	// the quarter hour Santiago's clocks go back (2026-04-05 00:00 -03 is
	// 23:00 -04 the day before): both rollups' rows change, and the
	// caches with them.
	p := filepath.Join(root, "--home-ann-edges--", "2026-03-07T00-00-00-000Z_e1.jsonl")
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.WriteString(call("y1", "x4", "assistant", "2026-03-11T03:30:00.000Z", `"provider":"anthropic","model":"claude-opus-4-5"`, 77, 0.125) +
		call("y2", "y1", "assistant", "2026-03-09T18:16:00.000Z", `"provider":"anthropic","model":"claude-opus-4-5"`, 3, 0.5) +
		call("y3", "y2", "assistant", "2026-04-05T03:10:00.000Z", `"provider":"anthropic","model":"claude-opus-4-5"`, 5, 0.75))
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	before, err := cached.CostF(ctx, pidex.CostFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := (&indexer.Indexer{DB: db, Roots: []string{root}}).Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	after, err := cached.CostF(ctx, pidex.CostFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if after.Totals.Calls != before.Totals.Calls+3 {
		t.Errorf("after three new calls: %d calls, want %d", after.Totals.Calls, before.Totals.Calls+3)
	}
	check("after an append")
}

// A damaged cache blob is never an answer: the rows are.
func TestCostCacheDamaged(t *testing.T) {
	root := costCorpus(t)
	db := costCatalog(t, root)
	ctx := context.Background()
	f := pidex.CostFilter{By: []string{"day", "model"}}
	want, err := newReader(db, nil).CostF(ctx, f)
	if err != nil {
		t.Fatal(err)
	}
	row := "02" + "a0d4cd05" + "00" + "00" + "00" + "02" + "02" + strings.Repeat("0000000000005940", 7) // file 1, a bucket, string 0 three times, active, 1 call, 100 each
	for _, tc := range []struct{ name, blob string }{
		{"another version", "02"},
		{"strings cut", "0103"},
		{"a row cut", "0101" + "0161" + row[:20]},
		{"a string out of range", "0101" + "0161" + strings.Replace(row, "a0d4cd05"+"00", "a0d4cd05"+"05", 1)},
		{"a good row, then a row cut", "0101" + "0161" + row + row[:30]},
	} {
		for _, r := range pidex.Rollups {
			// The row's generation valid, its blob damaged.
			if _, err := db.Exec(`UPDATE read_caches SET data = unhex(?), data_gen = gen WHERE name = ?`, tc.blob, r.Table); err != nil {
				t.Fatal(err)
			}
		}
		got, err := newReader(db, nil).CostF(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		if !sameReport(got, want) {
			t.Errorf("%s: from a damaged blob:\n%+v\nwant\n%+v", tc.name, got, want)
		}
	}
}

// sameReport compares two reports to the bit (NaN equals NaN).
func sameReport(a, b *pidex.CostReport) bool {
	bits := func(r *pidex.CostReport) string {
		s := fmt.Sprintf("%v|%v|%q|", r.By, r.Repriced, r.EstimatedWith)
		sums := func(x pidex.CostSums) string {
			out := fmt.Sprintf("%d %v %d %v %d %q %d %q ", x.Calls, x.NotRepriced, x.PricedCalls, len(x.NotRepriced),
				x.UnpricedCalls, x.UnpricedModels, x.EstimatedCalls, x.NoEstimate)
			v := reflect.ValueOf(x)
			for i := 0; i < v.NumField(); i++ {
				if f, ok := v.Field(i).Interface().(float64); ok {
					out += fmt.Sprintf("%x ", math.Float64bits(f))
				}
			}
			return out
		}
		for _, row := range r.Rows {
			s += fmt.Sprintf("%q:", row.Keys) + sums(row.CostSums) + "\n"
		}
		return s + "totals " + sums(r.Totals)
	}
	return bits(a) == bits(b)
}
