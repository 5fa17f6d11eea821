package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// --agent filters list, search and cost by the agent that wrote each
// session (pi, omp, openclaw), cost groups by it, and pidex roots says
// which root is whose; the sources come from the roots' layouts.
func TestAgentFilter(t *testing.T) {
	dir := t.TempDir()
	omp := filepath.Join(dir, "omp")
	if err := os.CopyFS(omp, os.DirFS("../../testdata/sessions-omp")); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "c.sqlite")
	run := func(args ...string) string {
		t.Helper()
		var out, errb bytes.Buffer
		all := []string{"--db", db, "--sessions", "../../testdata/sessions", "--sessions", filepath.Join(omp, "agent", "sessions"),
			"--sessions", "../../testdata/sessions-openclaw/agents"}
		err := newApp(&out, &errb).execute(context.Background(), append(all, args...))
		if err != nil && !strings.Contains(err.Error(), "could not be read") && errb.Len() > 0 && out.Len() == 0 {
			t.Fatalf("%v: %v\n%s", args, err, errb.String())
		}
		return out.String()
	}
	run("index", "--quiet")
	sources := func(list string) []string {
		var rows []struct{ Source string }
		if err := json.Unmarshal([]byte(list), &rows); err != nil {
			t.Fatalf("%v: %s", err, list)
		}
		seen := map[string]bool{}
		for _, r := range rows {
			seen[r.Source] = true
		}
		var out []string
		for s := range seen {
			out = append(out, s)
		}
		sort.Strings(out)
		return out
	}
	if got := sources(run("list", "--json")); strings.Join(got, " ") != "omp openclaw pi" {
		t.Errorf("list sources %v", got)
	}
	if got := sources(run("list", "--json", "--agent", "omp,openclaw")); strings.Join(got, " ") != "omp openclaw" {
		t.Errorf("list --agent omp,openclaw: %v", got)
	}
	hits := run("search", "--json", "--agent", "openclaw", "calendar")
	if !strings.Contains(hits, "sessions-openclaw") || strings.Contains(hits, "testdata/sessions/") {
		t.Errorf("search --agent openclaw:\n%s", hits)
	}
	if h := run("search", "--json", "--agent", "pi", "calendar"); strings.Contains(h, "sessions-openclaw") {
		t.Errorf("search --agent pi found OpenClaw's:\n%s", h)
	}
	var rep struct {
		Rows []map[string]any
	}
	if err := json.Unmarshal([]byte(run("cost", "--by", "agent", "--json")), &rep); err != nil {
		t.Fatal(err)
	}
	var agents []string
	for _, r := range rep.Rows {
		agents = append(agents, r["agent"].(string))
	}
	sort.Strings(agents)
	if strings.Join(agents, " ") != "omp openclaw pi" {
		t.Errorf("cost --by agent rows %v", agents)
	}
	if err := json.Unmarshal([]byte(run("cost", "--by", "source", "--agent", "omp", "--json")), &rep); err != nil {
		t.Fatal(err)
	}
	var srcs []string
	for _, r := range rep.Rows {
		srcs = append(srcs, r["source"].(string))
	}
	sort.Strings(srcs)
	if strings.Join(srcs, " ") != "assistant model_usage" {
		t.Errorf("omp's usage sources %v", srcs)
	}
	roots := run("roots")
	for _, want := range []string{"pi\t", "omp\t", "openclaw\t", "(omp by its layout)", "(openclaw by its layout)"} {
		if !strings.Contains(roots, want) {
			t.Errorf("pidex roots lacks %q:\n%s", want, roots)
		}
	}
}
