package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/tooltest"
)

// writeFiles puts files under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// The generator's output is the table pidex reads: dated by the newer
// source, pi-ai's chat models first under provider/id, LiteLLM's priced
// chat models for the rest, none that would hide a pi-ai price, nothing
// priced by the image; and the same bytes on every run.
func TestGenerate(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"pi-ai/package.json":                       `{"name":"@earendil-works/pi-ai","version":"9.9.9","license":"MIT"}`,
		"pi-ai/dist/providers/data/.manifest.json": `{"generatedAt":"2026-11-20T10:48:49.496Z"}`,
		"pi-ai/dist/providers/data/google.json": `{"google-generative-ai":{
			"chat:gemini-2.5-pro":{"id":"gemini-2.5-pro","provider":"google","type":"chat","cost":{"input":1.25,"output":10,"cacheRead":0.125,"cacheWrite":0}},
			"chat:gemma-free":{"id":"gemma-free","provider":"google","type":"chat","cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0}},
			"image:imagen":{"id":"imagen","provider":"google","type":"image","cost":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0}}}}`,
		"litellm.json": `{"sample_spec":{"input_cost_per_token":0},
			"last_updated":"2026-07-24T18:23:43.215560+00:00",
			"gemini/gemini-2.5-pro":{"mode":"chat","input_cost_per_token":9e-06,"output_cost_per_token":9e-06},
			"google/gemini-2.5-pro":{"mode":"chat","input_cost_per_token":9e-06},
			"claude-opus-4-5":{"mode":"chat","input_cost_per_token":5e-06,"output_cost_per_token":2.5e-05,"cache_read_input_token_cost":5e-07,"cache_creation_input_token_cost":6.25e-06,"cache_creation_input_token_cost_above_1hr":1e-05},
			"dall-e-3":{"mode":"image_generation","output_cost_per_image":0.04},
			"text-embedding-3":{"mode":"embedding","input_cost_per_token":1e-07},
			"per-second":{"mode":"chat","input_cost_per_second":0.1},
			"ollama/llama3":{"mode":"completion","input_cost_per_token":0,"output_cost_per_token":0}}`,
	})
	b, err := generate(filepath.Join(dir, "pi-ai"), filepath.Join(dir, "litellm.json"), "")
	if err != nil {
		t.Fatal(err)
	}
	again, err := generate(filepath.Join(dir, "pi-ai"), filepath.Join(dir, "litellm.json"), "")
	if err != nil || string(again) != string(b) {
		t.Fatalf("a second run differs (%v)", err)
	}
	tab, err := pidex.ReadPriceTable(b)
	if err != nil {
		t.Fatalf("%v:\n%s", err, b)
	}
	if tab.Date != "2026-11-20" || len(tab.Sources) != 2 || tab.Sources[0].Version != "9.9.9" || tab.Sources[0].Models != 2 ||
		tab.Sources[1].Date != "2026-07-24" || tab.Sources[1].Models != 2 {
		t.Errorf("date %s, sources %+v", tab.Date, tab.Sources)
	}
	var names []string
	for _, m := range tab.Models() {
		names = append(names, m.Source+" "+m.Model)
	}
	if want := []string{"litellm claude-opus-4-5", "pi-ai google/gemini-2.5-pro", "pi-ai google/gemma-free", "litellm ollama/llama3"}; !slices.Equal(names, want) {
		t.Errorf("models %q, want %q", names, want)
	}
	if p, _ := tab.Lookup("google", "gemini-2.5-pro"); p.Input != 1.25e-6 || p.Output != 10e-6 {
		t.Errorf("google/gemini-2.5-pro: %+v, want pi-ai's price", p)
	}
	if p, _ := tab.Lookup("my-proxy", "claude-opus-4-5"); p.Input != 5e-6 || p.CacheWrite1h != 10e-6 {
		t.Errorf("claude-opus-4-5: %+v, want LiteLLM's price per token", p)
	}
	if _, err := generate(filepath.Join(dir, "pi-ai"), filepath.Join(dir, "pi-ai", "package.json"), ""); err == nil {
		t.Error("a LiteLLM file without last_updated and no -litellm-date: no error")
	}
}

// The committed table's pi-ai part is exactly what the generator reads
// from the pi-ai that pi 1.6.0 installs (the tests' npm clients).
func TestShippedIsPiAIs(t *testing.T) {
	clients, _ := tooltest.Clients(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"litellm.json": `{"last_updated":"2026-01-01T00:00:00Z"}`})
	b, err := generate(filepath.Join(clients, "node_modules", "@earendil-works", "pi-ai"), filepath.Join(dir, "litellm.json"), "")
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := pidex.ReadPriceTable(b)
	if err != nil {
		t.Fatal(err)
	}
	shipped := pidex.ShippedPrices()
	if fresh.Sources[0] != shipped.Sources[0] {
		t.Errorf("pi-ai: installed %+v, shipped %+v: run prices/gen again", fresh.Sources[0], shipped.Sources[0])
	}
	var ours []pidex.PriceEntry
	for _, m := range shipped.Models() {
		if m.Source == "pi-ai" {
			ours = append(ours, m)
		}
	}
	if !slices.Equal(ours, fresh.Models()) {
		t.Errorf("the shipped table's pi-ai models (%d) are not the installed pi-ai's (%d): run prices/gen again", len(ours), len(fresh.Models()))
	}
}
