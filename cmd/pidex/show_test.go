package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pidex-dev/pidex"
)

// The human output of `pidex show` is checked against goldens in
// testdata/show. After an intended change of the output, regenerate them
// with `go test ./cmd/pidex -run TestShowGolden -update` and review the diff.
func init() {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite the golden files of TestShowGolden")
	}
}

func updateGoldens() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

const showSessions = "../../testdata/sessions"

func TestShowGolden(t *testing.T) {
	root, err := filepath.Abs(showSessions)
	if err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(t.TempDir(), "catalog.sqlite")
	run := func(t *testing.T, args ...string) (string, error) {
		t.Helper()
		var out, errb bytes.Buffer
		err := newApp(&out, &errb).execute(context.Background(),
			append([]string{"--db", db, "--sessions", root, "-q"}, args...))
		return strings.ReplaceAll(out.String(), root, "$SESSIONS"), err
	}
	if _, err := run(t, "index"); err != nil {
		t.Fatal(err)
	}
	legacy := filepath.Join(root, "--home-ann-legacy--")
	for _, tc := range []struct {
		golden string
		args   []string
	}{
		// system prompt, thinking, tool calls and results, bash (one !!), labels, names, custom entry
		{"alpha-tools", []string{"show", "01a09f30"}},
		{"alpha-tools-thinking-full", []string{"show", "01a09f30", "--thinking", "--full"}},
		// two compactions (one with a system message snapshot), context edits, usage record
		{"beta-compaction", []string{"show", "01a0aecf"}},
		{"beta-compaction-context", []string{"show", "01a0aecf", "--context"}},
		// image, custom messages (hidden and shown), message role custom, model switch, stopReason length
		{"beta-image-custom", []string{"show", "01a0b51c"}},
		// error and aborted replies, extension compaction that keeps nothing
		{"gamma-errors", []string{"show", "01a0bb7c"}},
		// v1: synthetic ids, compaction by firstKeptEntryIndex
		{"legacy-v1", []string{"show", "7d1c0f3e"}},
		{"legacy-v1-context", []string{"show", "7d1c0f3e", "--context"}},
		// v2: hookMessage read as custom, --leaf on the abandoned branch, branch summary
		{"legacy-v2-leaf", []string{"show", "4c0ffee0", "--leaf", "b7c8d9e0"}},
		{"legacy-v2-context", []string{"show", "4c0ffee0", "--context"}},
		// labels on missing targets, cleared labels, empty branch summary, unknown entry type
		{"legacy-misc-edge", []string{"show", "misc-edge"}},
		{"legacy-null-content-context", []string{"show", filepath.Join(legacy, "2026-03-13T15-00-00-000Z_null-content.jsonl"), "--context"}},
		{"legacy-header-only", []string{"show", filepath.Join(legacy, "2026-03-05T00-00-01-000Z_header-only.jsonl")}},
		// the --json forms
		{"legacy-v2-json", []string{"show", "4c0ffee0", "--json"}},
		{"legacy-v2-context-json", []string{"show", "4c0ffee0", "--context", "--json"}},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			got, err := run(t, append(tc.args, "--no-refresh")...)
			if err != nil {
				t.Fatal(err)
			}
			file := filepath.Join("testdata", "show", tc.golden+".txt")
			if updateGoldens() {
				if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("output differs from %s (run with -update after an intended change):\n%s", file, lineDiff(string(want), got))
			}
		})
	}

	t.Run("unknown leaf", func(t *testing.T) {
		if _, err := run(t, "show", "01a09f30", "--leaf", "nope", "--no-refresh"); !errors.Is(err, pidex.ErrNotFound) || !strings.Contains(err.Error(), `has no entry "nope"`) {
			t.Errorf("err = %v, want not found", err)
		}
	})
}

// lineDiff shows the first differing lines of two texts.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	shown := 0
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl == gl {
			continue
		}
		b.WriteString("line " + itoa(int64(i+1)) + ":\n  want: " + wl + "\n  got:  " + gl + "\n")
		if shown++; shown == 10 {
			b.WriteString("…\n")
			break
		}
	}
	return b.String()
}
