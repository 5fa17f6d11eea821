package pidex

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
)

// Price is one model's USD price per token, in LiteLLM's field names
// (model_prices_and_context_window.json).
type Price struct {
	Input        float64 `json:"input_cost_per_token"`
	Output       float64 `json:"output_cost_per_token"`
	CacheRead    float64 `json:"cache_read_input_token_cost"`
	CacheWrite   float64 `json:"cache_creation_input_token_cost"`
	CacheWrite1h float64 `json:"cache_creation_input_token_cost_above_1hr"`
	Provider     string  `json:"litellm_provider"`
}

// Cost prices the token sums s. Cache writes with a one-hour lifetime take
// their own price when the file has one. Tiered prices (above 200k tokens
// of one request) are not applied: a rollup no longer knows each call's size.
func (p Price) Cost(s CostSums) float64 {
	w1h := p.CacheWrite1h
	if w1h == 0 {
		w1h = p.CacheWrite
	}
	c := 0.0
	for _, part := range [][2]float64{{s.Input, p.Input}, {s.Output, p.Output}, {s.CacheRead, p.CacheRead},
		{s.CacheWrite - s.CacheWrite1h, p.CacheWrite}, {s.CacheWrite1h, w1h}} {
		c = SaturatingAdd(c, part[0]*part[1]) // huge counts at finite prices stay finite
	}
	return c
}

// Prices is a prices file in LiteLLM's shape: model name → price.
type Prices struct {
	m     map[string]Price
	lower map[string]string // lower-case name → name
}

// LoadPrices reads a prices file in LiteLLM's JSON shape. Entries that are
// not objects (or LiteLLM's "sample_spec" documentation entry) are
// skipped. A price must be a finite, non-negative number: anything else
// (a negative price, 1e999, which no float holds, a string) is a usage
// error naming the model, never a model silently dropped or a negative
// cost.
func LoadPrices(path string) (*Prices, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read prices: %w", err)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, Usagef("read prices %s: %v", path, err)
	}
	names := make([]string, 0, len(raw))
	for name := range raw {
		names = append(names, name)
	}
	sort.Strings(names) // the first bad model, the same on every run
	p := &Prices{m: map[string]Price{}, lower: map[string]string{}}
	for _, name := range names {
		var fields map[string]json.RawMessage
		if name == "sample_spec" || json.Unmarshal(raw[name], &fields) != nil {
			continue
		}
		pr, err := priceOf(fields)
		if err != nil {
			return nil, Usagef("read prices %s: model %q: %v", path, name, err)
		}
		p.m[name] = pr
		p.lower[strings.ToLower(name)] = name
	}
	return p, nil
}

// priceOf reads one model's price fields, each a finite, non-negative
// number when present.
func priceOf(fields map[string]json.RawMessage) (Price, error) {
	var pr Price
	for _, f := range []struct {
		name string
		to   *float64
	}{
		{"input_cost_per_token", &pr.Input}, {"output_cost_per_token", &pr.Output},
		{"cache_read_input_token_cost", &pr.CacheRead}, {"cache_creation_input_token_cost", &pr.CacheWrite},
		{"cache_creation_input_token_cost_above_1hr", &pr.CacheWrite1h},
	} {
		v, ok := fields[f.name]
		if !ok || string(v) == "null" {
			continue
		}
		var n json.Number
		if json.Unmarshal(v, &n) != nil {
			return pr, fmt.Errorf("%s is %s: want a number (USD per token)", f.name, v)
		}
		x, err := strconv.ParseFloat(string(n), 64)
		if err != nil || math.IsInf(x, 0) || math.IsNaN(x) || x < 0 {
			return pr, fmt.Errorf("%s is %s: want a finite, non-negative number (USD per token)", f.name, v)
		}
		*f.to = x
	}
	if v, ok := fields["litellm_provider"]; ok {
		_ = json.Unmarshal(v, &pr.Provider) // informative only: a non-string is left out
	}
	return pr, nil
}

// litellmProvider is LiteLLM's name for a pi provider, where they differ.
var litellmProvider = map[string]string{
	"google":         "gemini",
	"google-vertex":  "vertex_ai",
	"amazon-bedrock": "bedrock",
	"azure-openai":   "azure",
}

// Lookup finds the price of a call's model as LiteLLM resolves names
// (LookupNames, in order): exact case first, then any case.
func (p *Prices) Lookup(provider, model string) (Price, bool) {
	if model == "" {
		return Price{}, false
	}
	names := LookupNames(provider, model)
	for _, n := range names {
		if pr, ok := p.m[n]; ok {
			return pr, true
		}
	}
	for _, n := range names {
		if name, ok := p.lower[strings.ToLower(n)]; ok {
			return p.m[name], true
		}
	}
	return Price{}, false
}

// LookupNames are the names a prices file is searched for a call's model,
// in order: the provider-prefixed name ("anthropic/claude-…", with
// LiteLLM's provider names, then pi's), then the bare name, then the name
// with its own prefix removed ("anthropic/claude-…" as an OpenRouter
// model is "claude-…"), and so on.
func LookupNames(provider, model string) []string {
	lp := provider
	if alias, ok := litellmProvider[provider]; ok {
		lp = alias
	}
	var names []string
	for m := model; ; {
		if lp != provider {
			names = append(names, lp+"/"+m)
		}
		names = append(names, provider+"/"+m, m)
		i := strings.IndexByte(m, '/')
		if i < 0 {
			break
		}
		m = m[i+1:]
	}
	return names
}

// Free: every price of the model is zero (a model its provider does not
// charge for by the token, such as OpenRouter's :free models or a token
// plan's).
func (p Price) Free() bool {
	return p.Input == 0 && p.Output == 0 && p.CacheRead == 0 && p.CacheWrite == 0 && p.CacheWrite1h == 0
}
