package web

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/pidex-dev/pidex/internal/catalogtest"
)

// Honest prices on the web (issue 36): /api/cost carries the unpriced
// calls' count, tokens and models in every row and the totals (as
// pidex cost --json), ?estimate=1 their estimate; the cost page marks
// their rows' cost, counts them in a column and says it in a note.
func TestCostUnpriced(t *testing.T) {
	f := newFixtureWith(t, Options{}, catalogtest.UnpricedSession())
	want := catalogtest.UnpricedWant
	one := "session=" + catalogtest.UnpricedID + "&tz=UTC"
	for _, estimate := range []bool{false, true} {
		path := "/api/cost?by=day&" + one
		if estimate {
			path += "&estimate=1"
		}
		code, _, body := f.get(t, path)
		if code != 200 {
			t.Fatalf("%s: %d %s", path, code, body)
		}
		var doc struct {
			Rows []struct {
				Day            string
				UnpricedCalls  int64
				UnpricedTokens float64
			}
			Totals struct {
				Cost           float64
				Calls          int64
				UnpricedCalls  int64
				UnpricedTokens float64
				UnpricedModels []string
				EstimatedCost  *float64
				EstimatedCalls int64
				NotEstimated   []string
			}
			EstimatedWith string
		}
		if err := json.Unmarshal([]byte(body), &doc); err != nil {
			t.Fatal(err)
		}
		tot := doc.Totals
		if tot.Calls != want.Calls || tot.Cost != want.Cost || tot.UnpricedCalls != want.UnpricedCalls ||
			tot.UnpricedTokens != want.UnpricedTokens || !slices.Equal(tot.UnpricedModels, want.UnpricedModels) {
			t.Errorf("%s: totals %+v", path, tot)
		}
		for _, r := range doc.Rows {
			if got := [2]float64{float64(r.UnpricedCalls), r.UnpricedTokens}; got != want.ByDay[r.Day] {
				t.Errorf("%s: %s unpriced %v, want %v", path, r.Day, got, want.ByDay[r.Day])
			}
		}
		if got := tot.EstimatedCost != nil && *tot.EstimatedCost > 0 && tot.EstimatedCalls == want.EstimatedCalls &&
			slices.Equal(tot.NotEstimated, want.NoEstimate) && strings.HasPrefix(doc.EstimatedWith, "pidex's price table of "); got != estimate {
			t.Errorf("%s: estimated %v (%+v, with %q)", path, got, tot, doc.EstimatedWith)
		}
	}
	for _, tc := range []struct {
		path      string
		has, lack []string
	}{
		{"/cost?stack=model&" + one, []string{`<th class="num">unpriced calls</th>`, `$0.00<span class="unpriced"`,
			`<td class="num unpriced-calls" title="3,500 tokens of ollama/glm-4.6">1</td>`,
			`<p class="note" id="unpriced-note">* unpriced: 3 calls, 4,975 tokens, of my-proxy/claude-opus-4-5, ollama/glm-4.6: pi recorded them at $0`,
			"(tick Estimate to price them)"},
			[]string{`<th class="num">estimated</th>`}},
		{"/cost?stack=model&estimate=1&partial=1&" + one, []string{`<th class="num">estimated</th>`, `<td class="num estimated">-</td>`,
			"; estimated $0.0021 for 1 of them with pidex&#39;s price table of", "(no price for ollama/glm-4.6)"},
			[]string{"tick Estimate"}},
		{"/cost?stack=model&estimate=1", []string{`name="estimate" value="1" checked`}, nil},
		// A report without unpriced calls: no column, no asterisk, no note.
		{"/cost?stack=model&tz=UTC&model=anthropic", nil, []string{"unpriced-note", "unpriced calls", `class="unpriced"`}},
	} {
		code, _, body := f.get(t, tc.path)
		if code != 200 {
			t.Fatalf("%s: %d", tc.path, code)
		}
		for _, s := range tc.has {
			if !strings.Contains(body, s) {
				t.Errorf("%s lacks %q", tc.path, s)
			}
		}
		for _, s := range tc.lack {
			if strings.Contains(body, s) {
				t.Errorf("%s has %q", tc.path, s)
			}
		}
	}
}
