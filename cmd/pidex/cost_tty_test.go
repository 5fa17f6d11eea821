package main

import (
	"bytes"
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/pidex-dev/pidex/internal/catalogtest"
	"github.com/pidex-dev/pidex/internal/render"
)

// On a terminal, a cost report's unpriced calls are an asterisk on the
// cost and a note under the table or chart, wrapped to the width, on
// stdout; piped, the note goes to stderr (and -q silences it). pidex
// prices heads its table with the table's date and sources.
func TestCostUnpricedOnATerminal(t *testing.T) {
	root := t.TempDir()
	catalogtest.WriteFile(t, filepath.Join(root, "--home-ann-honest--", "h.jsonl"), catalogtest.UnpricedSession())
	db := filepath.Join(t.TempDir(), "catalog.sqlite")
	width := 70
	run := func(tty bool, args ...string) (string, string) {
		t.Helper()
		var out, errb bytes.Buffer
		a := newAppIO(&render.IOStreams{Out: &out, ErrOut: &errb, OutTTY: tty, ErrTTY: tty, Width: width})
		if err := a.execute(context.Background(), append([]string{"--db", db, "--sessions", root}, args...)); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		return out.String(), errb.String()
	}
	run(false, "-q", "index")
	for _, args := range [][]string{{"cost", "--tz", "UTC"}, {"cost", "--tz", "UTC", "--chart", "--by", "day,model"}} {
		out, errs := run(true, append(args, "--no-refresh")...)
		if !strings.Contains(out, "$0.50*") && !strings.Contains(args[len(args)-1], "model") || strings.Contains(errs, "unpriced") {
			t.Errorf("%v: the asterisk on stdout, nothing on stderr:\n%s\nstderr: %s", args, out, errs)
		}
		note := out[strings.Index(out, "* unpriced:"):]
		if !strings.Contains(strings.Join(strings.Fields(note), " "), "* unpriced: 3 calls, 4,975 tokens, of my-proxy/claude-opus-4-5, ollama/glm-4.6") {
			t.Errorf("%v: note %q", args, note)
		}
		for _, l := range strings.Split(strings.TrimSpace(note), "\n") {
			if utf8.RuneCountInString(l) > 70 {
				t.Errorf("%v: a note line of %d cells on a 70-cell terminal: %q", args, utf8.RuneCountInString(l), l)
			}
		}
	}
	// --estimate: a column of its own, and the note says with what (on
	// 80 cells: the column is one too many for 70, cut at the edge).
	width = 80
	out, _ := run(true, "cost", "--tz", "UTC", "--estimate", "--no-refresh")
	width = 70
	note := strings.Join(strings.Fields(out[strings.Index(out, "* unpriced:"):]), " ")
	if !regexp.MustCompile(`(?m)^day +calls .* cost +estimated$`).MatchString(out) || !regexp.MustCompile(`(?m)^2026-05-02 .* \$0\.00\* +\$0\.0021$`).MatchString(out) ||
		!strings.Contains(note, "; estimated $0.0021 for 1 of them with pidex's price table of 20") || !strings.Contains(note, "(no price for ollama/glm-4.6)") {
		t.Errorf("--estimate on a terminal:\n%s", out)
	}
	out, errs := run(false, "cost", "--tz", "UTC", "--no-refresh")
	if strings.Contains(out, "* unpriced") || !strings.HasPrefix(errs, "pidex: unpriced: 3 calls") {
		t.Errorf("piped: the note on stderr, not stdout:\n%s\nstderr: %s", out, errs)
	}
	if _, errs := run(false, "-q", "cost", "--no-refresh"); errs != "" {
		t.Errorf("-q: stderr %q", errs)
	}
	out, _ = run(true, "prices", "gemma-4-31b")
	heading := strings.Join(strings.Fields(out[:strings.Index(out, "MODEL")]), " ")
	if !strings.HasPrefix(heading, "pidex's price table of 20") || !strings.Contains(heading, "pi-ai 1.6.0 (@earendil-works/pi-ai") ||
		!regexp.MustCompile(`(?m)^google/gemma-4-31b-it +pi-ai +0 +0 `).MatchString(out) {
		t.Errorf("prices on a terminal:\n%s", out)
	}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if utf8.RuneCountInString(l) > 70 {
			t.Errorf("prices: a line of %d cells on a 70-cell terminal: %q", utf8.RuneCountInString(l), l)
		}
	}
}
