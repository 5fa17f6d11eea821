package pidex

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The shipped table reads, is JSON, says the same read line by line as
// encoding/json reads it, is dated by its sources, and its pi-ai part is
// the version pi 1.6.0 depends on (the lock file of the pi the tests
// drive).
func TestShippedPrices(t *testing.T) {
	tab, err := ReadPriceTable(shippedJSON) // every line
	if err != nil {
		t.Fatal(err)
	}
	if !json.Valid(shippedJSON) || len(shippedJSON) > 400<<10 {
		t.Fatalf("prices/shipped.json: valid JSON %v, %d bytes (want at most 400 KiB)", json.Valid(shippedJSON), len(shippedJSON))
	}
	var f priceTableFile
	if err := json.Unmarshal(shippedJSON, &f); err != nil {
		t.Fatal(err)
	}
	if len(f.Models) != len(tab.Models()) || len(f.Models) < 1000 {
		t.Fatalf("%d models by encoding/json, %d line by line", len(f.Models), len(tab.Models()))
	}
	for _, m := range tab.Models() {
		row := f.Models[m.Model]
		want := Price{Input: row[1] / 1e6, Output: row[2] / 1e6, CacheRead: row[3] / 1e6, CacheWrite: row[4] / 1e6, CacheWrite1h: row[5] / 1e6}
		if m.Price != want || m.Source != f.Sources[int(row[0])].Name {
			t.Fatalf("%s: %+v from %s line by line, %+v from %s by encoding/json", m.Model, m.Price, m.Source, want, f.Sources[int(row[0])].Name)
		}
	}
	date := ""
	for _, s := range tab.Sources {
		date = max(date, s.Date)
		if s.Licence != "MIT" || s.Models == 0 || s.Date == "" {
			t.Errorf("source %+v: want MIT, dated, with models", s)
		}
	}
	if tab.Date != date || len(tab.Sources) != 2 || tab.Sources[0].Name != "pi-ai" || tab.Sources[1].Name != "litellm" {
		t.Errorf("date %s, sources %+v: want the newest source's date, pi-ai then litellm", tab.Date, tab.Sources)
	}
	// A lookup by binary search over the lines finds what a lookup in a
	// map of every model finds, for each model's own name, split as a
	// call's provider and model, in any case.
	all := &Prices{m: map[string]Price{}, lower: map[string]string{}}
	for _, m := range tab.Models() {
		all.m[m.Model] = m.Price
		if _, dup := all.lower[strings.ToLower(m.Model)]; dup {
			t.Errorf("%s: two models of one name but for case", m.Model)
		}
		all.lower[strings.ToLower(m.Model)] = m.Model
	}
	for _, m := range tab.Models() {
		provider, model, _ := strings.Cut(m.Model, "/")
		for _, q := range [][2]string{{provider, model}, {"", m.Model}, {"nobody", strings.ToUpper(m.Model)}, {"", strings.ToLower(m.Model)}, {provider, model + "-x"}} {
			p1, ok1 := tab.Lookup(q[0], q[1])
			p2, ok2 := all.Lookup(q[0], q[1])
			if p1 != p2 || ok1 != ok2 {
				t.Fatalf("lookup %q %q: %+v %v from the lines, %+v %v from a map", q[0], q[1], p1, ok1, p2, ok2)
			}
		}
	}
	// Each source's licence notice is in prices/NOTICE (the MIT licence
	// asks that copies keep it).
	notice, err := os.ReadFile(filepath.Join("prices", "NOTICE"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range tab.Sources {
		name := s.Package
		if name == "" {
			name = s.Repository
		}
		_, rest, found := strings.Cut(string(notice), "\n"+name+" (")
		own, _, _ := strings.Cut(rest, "\n---")
		if name == "" || !found || !strings.Contains(own, "\n"+s.Licence+" License\n\nCopyright (c) ") {
			t.Errorf("prices/NOTICE: no %s licence notice for the source %s (%s)", s.Licence, s.Name, name)
		}
	}
	var lock struct {
		Packages map[string]struct{ Version string }
	}
	b, err := os.ReadFile(filepath.Join("internal", "tooltest", "clients", "package-lock.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &lock); err != nil {
		t.Fatal(err)
	}
	if pi, ai := lock.Packages["node_modules/@earendil-works/pi-coding-agent"].Version, lock.Packages["node_modules/@earendil-works/pi-ai"].Version; tab.Sources[0].Version != ai || pi != "1.6.0" {
		t.Errorf("the table's pi-ai is %s; pi %s depends on %s", tab.Sources[0].Version, pi, ai)
	}
}

// The rule: $0 with tokens means unpriced unless the table prices the
// model as free; a model the table prices above $0 that pi recorded at
// $0 is unpriced too (pi had no price then). pi-ai's price comes first.
func TestUnpricedRule(t *testing.T) {
	for _, tc := range []struct {
		provider, model string
		unpriced        bool
	}{
		{"ollama", "glm-4.6", true},               // no price anywhere
		{"google", "gemma-4-31b-it", false},       // pi-ai prices it at $0
		{"ollama", "llama3", false},               // LiteLLM prices it at $0
		{"anthropic", "claude-opus-4-5", true},    // priced: pi's $0 was not a price
		{"my-proxy", "claude-opus-4-5", true},     // a custom provider
		{"", "", true},                            // no model at all
		{"github-copilot", "no-such-model", true}, // the provider alone proves nothing
	} {
		if got := Unpriced(tc.provider, tc.model); got != tc.unpriced {
			t.Errorf("Unpriced(%q, %q) = %v", tc.provider, tc.model, got)
		}
	}
	// google/gemini-2.5-pro is pi-ai's price, though LiteLLM names it
	// gemini/gemini-2.5-pro, which a lookup tries first.
	names := LookupNames("google", "gemini-2.5-pro")
	if !slices.Equal(names, []string{"gemini/gemini-2.5-pro", "google/gemini-2.5-pro", "gemini-2.5-pro"}) {
		t.Errorf("lookup names %v", names)
	}
	tab := ShippedPrices()
	got, _ := tab.Lookup("google", "gemini-2.5-pro")
	for _, m := range tab.Models() {
		if m.Model == "google/gemini-2.5-pro" && (m.Source != "pi-ai" || m.Price != got) {
			t.Errorf("google/gemini-2.5-pro: %+v from %s; the lookup finds %+v", m.Price, m.Source, got)
		}
	}
	if m := tab.Matching([]string{"GEMMA-4-31B"}); len(m) == 0 || !slices.ContainsFunc(m, func(e PriceEntry) bool { return e.Model == "google/gemma-4-31b-it" }) {
		t.Errorf("matching GEMMA-4-31B: %v", m)
	}
}

// A table file Lookup could not search (its lines not sorted, a name
// twice or written with escapes) or whose prices do not read is refused;
// a good one's lookups find its lines in either case.
func TestReadPriceTable(t *testing.T) {
	table := func(lines ...string) []byte {
		return []byte(`{
  "date": "2026-01-02",
  "unit": "USD per million tokens",
  "columns": ["source","input","output","cacheRead","cacheWrite","cacheWrite1h"],
  "sources": [
    {"name":"a","date":"2026-01-02","licence":"MIT","models":2,"about":"test"}
  ],
  "models": {
` + strings.Join(lines, ",\n") + `
  }
}
`)
	}
	good := table(`    "Vendor/Big": [0, 1, 2, 0, 0, 0]`, `    "vendor/small": [0, 0.5, 1, 0, 0, 0]`)
	tab, err := ReadPriceTable(good)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range [][2]string{{"vendor", "small"}, {"vendor", "BIG"}, {"", "vendor/Small"}, {"other", "vendor/big"}} {
		if p, ok := tab.Lookup(q[0], q[1]); !ok || p.Input == 0 {
			t.Errorf("lookup %q: %+v %v", q, p, ok)
		}
	}
	if _, ok := tab.Lookup("vendor", "medium"); ok {
		t.Error("vendor/medium found")
	}
	for _, bad := range [][]byte{
		table(`    "vendor/small": [0, 1, 2, 0, 0, 0]`, `    "Vendor/Big": [0, 1, 2, 0, 0, 0]`),
		table(`    "vendor/small": [0, 1, 2, 0, 0, 0]`, `    "vendor/small": [0, 1, 2, 0, 0, 0]`),
		table(`    "vendor/\u0073mall": [0, 1, 2, 0, 0, 0]`),
		table(`    "vendor/small": [0, 1, -2, 0, 0, 0]`),
		table(`    "vendor/small": [1, 1, 2, 0, 0, 0]`),
		table(`    "vendor/small": [0, 1, 2, 0, 0]`),
	} {
		if _, err := ReadPriceTable(bad); err == nil {
			t.Errorf("read:\n%s", bad)
		}
	}
}
