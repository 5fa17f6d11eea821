package mcp

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pidex-dev/pidex/internal/catalogtest"
)

// Honest prices over MCP (issue 36): cost_report's rows and totals carry
// the unpriced calls' count, tokens and models, its text marks their cost
// and says so under the table; estimate prices them apart.
func TestCostReportUnpriced(t *testing.T) {
	f := newFixture(t, Options{})
	catalogtest.WriteFile(t, filepath.Join(f.root, "--home-ann-honest--", "h.jsonl"), catalogtest.UnpricedSession())
	if _, err := f.eng.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := catalogtest.UnpricedWant
	args := map[string]any{"by": []string{"day"}, "tz": "UTC", "session": catalogtest.UnpricedID}
	r := f.ok(t, "cost_report", args)
	if dig(r.data, "totals", "unpriced_calls") != float64(want.UnpricedCalls) || dig(r.data, "totals", "unpriced_tokens") != want.UnpricedTokens ||
		dig(r.data, "totals", "cost") != want.Cost || strings.Join(strs(dig(r.data, "totals", "unpriced_models")), ",") != strings.Join(want.UnpricedModels, ",") {
		t.Errorf("totals %v", dig(r.data, "totals"))
	}
	for i := range 2 {
		day := digStr(r.data, "rows", i, "keys", "day")
		if got := [2]float64{dig(r.data, "rows", i, "unpriced_calls").(float64), dig(r.data, "rows", i, "unpriced_tokens").(float64)}; got != want.ByDay[day] {
			t.Errorf("%s: unpriced %v, want %v", day, got, want.ByDay[day])
		}
	}
	if dig(r.data, "totals", "estimated_cost") != nil || strings.Contains(r.text, "estimated") {
		t.Errorf("an estimate without estimate: %s", r.text)
	}
	for _, s := range []string{"$0.00*", "* unpriced: 3 calls, 4,975 tokens, of my-proxy/claude-opus-4-5, ollama/glm-4.6", "(estimate: true prices them)"} {
		if !strings.Contains(r.text, s) {
			t.Errorf("text lacks %q:\n%s", s, r.text)
		}
	}

	args["estimate"] = true
	r = f.ok(t, "cost_report", args)
	if e, _ := dig(r.data, "totals", "estimated_cost").(float64); e <= 0 || dig(r.data, "totals", "estimated_calls") != float64(want.EstimatedCalls) ||
		!strings.HasPrefix(digStr(r.data, "estimated_with"), "pidex's price table of ") || dig(r.data, "rows", 0, "estimated_cost") != nil {
		t.Errorf("estimate: %s", r.raw)
	}
	for _, s := range []string{"estimated", "; estimated $0.0021 for 1 of them with pidex's price table of", "(no price for ollama/glm-4.6)"} {
		if !strings.Contains(r.text, s) {
			t.Errorf("estimate: text lacks %q:\n%s", s, r.text)
		}
	}
}

func strs(v any) []string {
	l, _ := v.([]any)
	out := []string{}
	for _, x := range l {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}
