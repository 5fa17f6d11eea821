// Command gen makes prices/shipped.json, the price table pidex ships
// (pidex.ShippedPrices), from two sources read from disk, so that neither
// a build nor CI needs the network:
//
//   - pi's own model table, the prices pi records its costs with: the npm
//     package @earendil-works/pi-ai at the version pi 1.6.0 depends on
//     (its dist/providers/data/*.json, dated by their .manifest.json);
//     every chat model, named provider/id as pi's usage records name it;
//   - LiteLLM's model_prices_and_context_window.json (BerriAI/litellm,
//     MIT), for the models pi-ai lacks: its chat, completion and
//     responses models that have a price per token, under LiteLLM's names,
//     except a name that pidex.LookupNames would try before a pi-ai model's
//     own (gemini/x before google/x): pi-ai comes first.
//
// Run from the repository's root:
//
//	go run ./prices/gen -pi-ai node_modules/@earendil-works/pi-ai \
//	    -litellm model_prices_and_context_window.json -o prices/shipped.json
//
// The output is the same for the same inputs: sorted, one model a line,
// dated by its sources (no clock).
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pidex-dev/pidex"
)

func main() {
	piAI := flag.String("pi-ai", "", "the folder of the npm package @earendil-works/pi-ai")
	litellm := flag.String("litellm", "", "LiteLLM's model_prices_and_context_window.json")
	litellmDate := flag.String("litellm-date", "", "the date of the LiteLLM file (YYYY-MM-DD; default its last_updated field)")
	out := flag.String("o", "prices/shipped.json", "the table to write")
	flag.Parse()
	if *piAI == "" || *litellm == "" {
		fmt.Fprintln(os.Stderr, "usage: gen -pi-ai DIR -litellm FILE [-litellm-date YYYY-MM-DD] [-o FILE]")
		os.Exit(2)
	}
	b, err := generate(*piAI, *litellm, *litellmDate)
	if err == nil {
		err = os.WriteFile(*out, b, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

// row is a model's line: its source's index and its prices per million
// tokens (pidex.PriceTableColumns).
type row struct {
	source int
	prices [5]float64
}

func generate(piAIDir, litellmFile, litellmDate string) ([]byte, error) {
	models := map[string]row{}
	pi, err := readPiAI(piAIDir, models)
	if err != nil {
		return nil, err
	}
	ll, err := readLiteLLM(litellmFile, litellmDate, models)
	if err != nil {
		return nil, err
	}
	return write([]pidex.PriceSource{pi, ll}, models)
}

// readPiAI adds pi-ai's chat models, source 0.
func readPiAI(dir string, models map[string]row) (pidex.PriceSource, error) {
	var pkg struct{ Name, Version, License string }
	if err := readJSON(filepath.Join(dir, "package.json"), &pkg); err != nil {
		return pidex.PriceSource{}, err
	}
	data := filepath.Join(dir, "dist", "providers", "data")
	var manifest struct {
		GeneratedAt string `json:"generatedAt"`
	}
	if err := readJSON(filepath.Join(data, ".manifest.json"), &manifest); err != nil {
		return pidex.PriceSource{}, err
	}
	date, err := day(manifest.GeneratedAt)
	if err != nil {
		return pidex.PriceSource{}, fmt.Errorf("read pi-ai manifest: generatedAt: %w", err)
	}
	files, err := filepath.Glob(filepath.Join(data, "*.json"))
	if err != nil || len(files) == 0 {
		return pidex.PriceSource{}, fmt.Errorf("read pi-ai: no model files in %s", data)
	}
	slices.Sort(files)
	type model struct {
		ID, Provider, Type string
		Cost               *struct{ Input, Output, CacheRead, CacheWrite float64 }
	}
	n := 0
	for _, file := range files {
		if strings.HasPrefix(filepath.Base(file), ".") {
			continue // .manifest.json
		}
		var apis map[string]map[string]model // api → key → model
		if err := readJSON(file, &apis); err != nil {
			return pidex.PriceSource{}, err
		}
		for _, api := range sortedKeys(apis) {
			for _, key := range sortedKeys(apis[api]) {
				m := apis[api][key]
				if m.Type != "chat" || m.Cost == nil || m.ID == "" || m.Provider == "" {
					continue
				}
				name := pidex.ModelName(m.Provider, m.ID)
				r := row{0, [5]float64{m.Cost.Input, m.Cost.Output, m.Cost.CacheRead, m.Cost.CacheWrite, 0}}
				if old, ok := models[name]; ok {
					if old != r {
						return pidex.PriceSource{}, fmt.Errorf("read pi-ai: %s has two prices", name)
					}
					continue
				}
				models[name] = r
				n++
			}
		}
	}
	return pidex.PriceSource{Name: "pi-ai", Package: pkg.Name, Version: pkg.Version, Date: date, Licence: pkg.License, Models: n,
		About: "pi's own model table, the prices pi records its costs with (tiered prices: the base tier)"}, nil
}

// readLiteLLM adds LiteLLM's models that pi-ai lacks, source 1.
func readLiteLLM(file, date string, models map[string]row) (pidex.PriceSource, error) {
	var raw map[string]json.RawMessage
	if err := readJSON(file, &raw); err != nil {
		return pidex.PriceSource{}, err
	}
	if date == "" {
		var updated string
		if json.Unmarshal(raw["last_updated"], &updated) != nil {
			return pidex.PriceSource{}, errors.New("read LiteLLM: no last_updated field: give -litellm-date")
		}
		date = updated
	}
	date, err := day(date)
	if err != nil {
		return pidex.PriceSource{}, fmt.Errorf("read LiteLLM: date: %w", err)
	}
	// The names a lookup tries before each pi-ai model's own: LiteLLM's
	// entries under them would hide pi-ai's price.
	shadow := map[string]bool{}
	for name := range models {
		provider, model, _ := strings.Cut(name, "/")
		for _, n := range pidex.LookupNames(provider, model) {
			if n == name {
				break
			}
			shadow[n] = true
		}
	}
	n := 0
	for _, name := range sortedKeys(raw) {
		var m struct {
			Mode         string   `json:"mode"`
			Input        *float64 `json:"input_cost_per_token"`
			Output       *float64 `json:"output_cost_per_token"`
			CacheRead    *float64 `json:"cache_read_input_token_cost"`
			CacheWrite   *float64 `json:"cache_creation_input_token_cost"`
			CacheWrite1h *float64 `json:"cache_creation_input_token_cost_above_1hr"`
		}
		if name == "sample_spec" || json.Unmarshal(raw[name], &m) != nil {
			continue // documentation, or not a model (last_updated)
		}
		switch m.Mode {
		case "chat", "completion", "responses", "":
		default:
			continue // images, embeddings, audio: not what pi's calls are
		}
		if m.Input == nil && m.Output == nil {
			continue // priced by the image, the second, the query
		}
		if _, ok := models[name]; ok || shadow[name] {
			continue
		}
		r := row{source: 1}
		for i, p := range []*float64{m.Input, m.Output, m.CacheRead, m.CacheWrite, m.CacheWrite1h} {
			if p == nil {
				continue
			}
			if *p < 0 || math.IsInf(*p, 0) || math.IsNaN(*p) {
				return pidex.PriceSource{}, fmt.Errorf("read LiteLLM: %s: price %v", name, *p)
			}
			r.prices[i] = perMillion(*p)
		}
		models[name] = r
		n++
	}
	return pidex.PriceSource{Name: "litellm", Repository: "BerriAI/litellm", File: "model_prices_and_context_window.json",
		Date: date, Licence: "MIT", Models: n,
		About: "LiteLLM's prices, for the models pi-ai lacks (chat, completion and responses models priced by the token)"}, nil
}

// perMillion is a price per token as a price per million tokens, rounded
// to 12 significant digits: 3e-06 is 3, not 2.9999999999999996.
func perMillion(p float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(p*1e6, 'g', 12, 64), 64)
	return v
}

// write lays the table out: its header, then one model a line, sorted.
func write(sources []pidex.PriceSource, models map[string]row) ([]byte, error) {
	date := ""
	for _, s := range sources {
		date = max(date, s.Date)
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "{\n  \"date\": %q,\n  \"unit\": %q,\n  \"columns\": %s,\n  \"sources\": [", date, pidex.PriceTableUnit, mustJSON(pidex.PriceTableColumns))
	for i, s := range sources {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("\n    " + mustJSON(s))
	}
	b.WriteString("\n  ],\n  \"models\": {")
	for i, name := range sortedKeys(models) {
		if i > 0 {
			b.WriteByte(',')
		}
		r := models[name]
		if q := mustJSON(name); q != `"`+name+`"` {
			// pidex finds a name by searching the lines as they are
			return nil, fmt.Errorf("write table: model %s: a name that needs escapes", q)
		}
		fmt.Fprintf(&b, "\n    %s: [%d", mustJSON(name), r.source)
		for _, p := range r.prices {
			b.WriteString(", " + strconv.FormatFloat(p, 'g', -1, 64))
		}
		b.WriteByte(']')
	}
	b.WriteString("\n  }\n}\n")
	if !json.Valid(b.Bytes()) {
		return nil, errors.New("write table: not valid JSON")
	}
	return b.Bytes(), nil
}

func mustJSON(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// day is the date of an RFC 3339 time or a date, as YYYY-MM-DD.
func day(s string) (string, error) {
	for _, layout := range []string{time.RFC3339Nano, time.DateOnly} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC().Format(time.DateOnly), nil
		}
	}
	return "", fmt.Errorf("%q: want an RFC 3339 time or YYYY-MM-DD", s)
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read %s: %w", filepath.Base(path), err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
