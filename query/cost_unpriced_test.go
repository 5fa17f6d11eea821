package query_test

import (
	"context"
	"math"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/catalogtest"
	"github.com/pidex-dev/pidex/query"
	"github.com/pidex-dev/pidex/sqlite"
)

// Honest prices (issue 36): a call with tokens that pi recorded at $0, of
// a model the shipped table does not price as free, is unpriced: every
// report says how many, their tokens and their models, in every row and
// the totals, by whichever path it is summed (the rollup cache, the SQL,
// the edge records of a cut bucket); --estimate prices them apart.
func TestCostUnpriced(t *testing.T) {
	root := t.TempDir()
	catalogtest.WriteFile(t, filepath.Join(root, "--home-ann-honest--", "h.jsonl"), catalogtest.UnpricedSession())
	db := costCatalog(t, root)
	want := catalogtest.UnpricedWant
	ctx := context.Background()
	readers := map[string]*query.Reader{"cache": newReader(db, nil),
		"sql": query.New(sqlite.NewReader(db, sqlite.ReaderOptions{NoCostCache: true}), nil)}
	for name, rd := range readers {
		for _, f := range []pidex.CostFilter{
			{By: []string{"day"}, TZ: time.UTC},
			{By: []string{"model"}},
			{By: []string{"project"}},
			// Cuts the quarter hours of a1 and a6: their edge records are
			// read one by one.
			{By: []string{"day"}, TZ: time.UTC, Since: mustTime(t, "2026-05-01T09:59:59Z"), Until: mustTime(t, "2026-05-02T11:00:00.5Z")},
		} {
			r, err := rd.CostF(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			tot := r.Totals
			if tot.Calls != want.Calls || tot.Cost != want.Cost || tot.UnpricedCalls != want.UnpricedCalls ||
				tot.UnpricedTokens != want.UnpricedTokens || !slices.Equal(tot.UnpricedModels, want.UnpricedModels) {
				t.Errorf("%s %v: totals %d calls $%v, unpriced %d calls %v tokens %v; want %d $%v, %d %v %v", name, f.By, tot.Calls, tot.Cost,
					tot.UnpricedCalls, tot.UnpricedTokens, tot.UnpricedModels, want.Calls, want.Cost, want.UnpricedCalls, want.UnpricedTokens, want.UnpricedModels)
			}
			if tot.EstimatedCalls != 0 || tot.Estimated != 0 || r.EstimatedWith != "" {
				t.Errorf("%s %v: an estimate without --estimate: %+v", name, f.By, tot)
			}
			byKey := map[string]map[string][2]float64{"day": want.ByDay, "model": want.ByModel}[f.By[0]]
			for _, row := range r.Rows {
				if byKey == nil {
					break
				}
				if got := [2]float64{float64(row.UnpricedCalls), row.UnpricedTokens}; got != byKey[row.Keys[0]] {
					t.Errorf("%s %v: %s unpriced %v, want %v", name, f.By, row.Keys[0], got, byKey[row.Keys[0]])
				}
			}
		}
	}
	// The estimate: my-proxy's claude-opus-4-5 at the table's price of
	// claude-opus-4-5; ollama/glm-4.6 has none, and is named.
	price, ok := pidex.ShippedPrices().Lookup("my-proxy", "claude-opus-4-5")
	if !ok || price.Free() {
		t.Fatalf("the shipped table prices my-proxy/claude-opus-4-5 at %+v, %v: want a price", price, ok)
	}
	est := price.Cost(pidex.CostSums{Input: 100, Output: 50, CacheRead: 300, CacheWrite: 25})
	for name, rd := range readers {
		r, err := rd.CostF(ctx, pidex.CostFilter{By: []string{"model"}, Estimate: true})
		if err != nil {
			t.Fatal(err)
		}
		tot := r.Totals
		if r.EstimatedWith != pidex.ShippedPrices().Label() || tot.EstimatedCalls != want.EstimatedCalls ||
			math.Abs(tot.Estimated-est) > 1e-15 || !slices.Equal(tot.NoEstimate, want.NoEstimate) || tot.Cost != want.Cost {
			t.Errorf("%s: estimate with %q: %d calls $%v, none for %v, cost $%v; want %d $%v %v $%v", name, r.EstimatedWith,
				tot.EstimatedCalls, tot.Estimated, tot.NoEstimate, tot.Cost, want.EstimatedCalls, est, want.NoEstimate, want.Cost)
		}
		for _, row := range r.Rows {
			if row.Keys[0] == "my-proxy/claude-opus-4-5" && (row.Estimated != est || row.EstimatedCalls != 1) {
				t.Errorf("%s: %s estimated $%v in %d calls, want $%v in 1", name, row.Keys[0], row.Estimated, row.EstimatedCalls, est)
			}
			if row.Keys[0] == "ollama/glm-4.6" && (row.EstimatedCalls != 0 || !slices.Equal(row.NoEstimate, []string{"ollama/glm-4.6"})) {
				t.Errorf("%s: %s estimated in %d calls, no estimate for %v: want none, named", name, row.Keys[0], row.EstimatedCalls, row.NoEstimate)
			}
		}
	}
	// --estimate with --reprice's file: that file prices the estimate.
	prices, err := pidex.LoadPrices(filepath.Join("..", "testdata", "prices", "litellm-small.json"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := readers["cache"].CostF(ctx, pidex.CostFilter{Estimate: true, Prices: prices})
	if err != nil {
		t.Fatal(err)
	}
	if r.EstimatedWith != pidex.EstimatedByPricesFile || r.Totals.EstimatedCalls != 1 || r.Totals.Estimated <= 0 {
		t.Errorf("estimate with --reprice: with %q, %d calls $%v; want %q, 1 call priced", r.EstimatedWith,
			r.Totals.EstimatedCalls, r.Totals.Estimated, pidex.EstimatedByPricesFile)
	}
}
