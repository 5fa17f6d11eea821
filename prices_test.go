package pidex

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A price is a finite, non-negative number, or the file is refused with
// the model named: a negative price made a negative repriced cost, 1e999
// (no float holds it) dropped its model silently.
func TestLoadPricesRefusesBadPrices(t *testing.T) {
	load := func(body string) (*Prices, error) {
		p := filepath.Join(t.TempDir(), "prices.json")
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return LoadPrices(p)
	}
	for _, tt := range []struct{ name, body string }{
		{"negative", `{"ok":{"input_cost_per_token":1e-6},"neg-model":{"input_cost_per_token":1e-6,"output_cost_per_token":-5}}`},
		{"too large", `{"huge-model":{"input_cost_per_token":1e999}}`},
		{"negative and too large", `{"huge-model":{"cache_read_input_token_cost":-1e999}}`},
		{"a string", `{"text-model":{"cache_creation_input_token_cost":"cheap"}}`},
	} {
		_, err := load(tt.body)
		if !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), "-model") || !strings.Contains(err.Error(), "want") {
			t.Errorf("%s: %v, want a usage error naming the model", tt.name, err)
		}
	}
	p, err := load(`{"sample_spec":{"input_cost_per_token":"doc"},"note":"not a model","m":{"input_cost_per_token":2e-6,"output_cost_per_token":null,"litellm_provider":7}}`)
	if err != nil {
		t.Fatal(err)
	}
	if pr, ok := p.Lookup("", "m"); !ok || pr.Input != 2e-6 {
		t.Errorf("m: %+v %v", pr, ok)
	}
	// Huge counts at finite prices stay finite.
	c := Price{Input: 1e300, Output: 1e300}.Cost(CostSums{Input: 1e300, Output: 1e300})
	if math.IsInf(c, 0) || c != math.MaxFloat64 {
		t.Errorf("cost %v, want saturated at the largest finite value", c)
	}
}

// Sums saturate: +Inf and NaN never leave Add.
func TestCostSumsSaturate(t *testing.T) {
	var s CostSums
	for range 3 {
		s.Add(CostSums{Cost: math.MaxFloat64, Input: math.Inf(1), Repriced: math.MaxFloat64, Calls: 1})
	}
	s.Add(CostSums{Output: math.NaN(), CacheRead: math.Inf(-1)})
	if s.Cost != math.MaxFloat64 || s.Input != math.MaxFloat64 || s.Repriced != math.MaxFloat64 || s.Output != 0 || s.CacheRead != -math.MaxFloat64 || s.Calls != 3 {
		t.Errorf("sums %+v", s)
	}
}
