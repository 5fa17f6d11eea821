package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/pidex-dev/pidex/internal/render"
)

// Terminal and pipe output differ, and both are tested through the
// injectable IOStreams: aligned, cut and relative on a terminal;
// tab-separated with full values when piped.
func TestTerminalAndPipeOutput(t *testing.T) {
	root, err := filepath.Abs(showSessions)
	if err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(t.TempDir(), "catalog.sqlite")
	run := func(tty bool, args ...string) string {
		t.Helper()
		var out, errb bytes.Buffer
		a := newAppIO(&render.IOStreams{Out: &out, ErrOut: &errb, OutTTY: tty, ErrTTY: tty, Width: 70})
		if err := a.execute(context.Background(), append([]string{"--db", db, "--sessions", root, "-q"}, args...)); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		return out.String()
	}
	run(false, "index")

	tty := run(true, "list", "--no-refresh")
	if !strings.HasPrefix(tty, "MODIFIED ") || strings.Contains(tty, "\t") {
		t.Errorf("list on a terminal should be aligned columns:\n%s", tty)
	}
	if !strings.Contains(tty, "…") || !strings.Contains(tty, " ago") && !strings.Contains(tty, "-") {
		t.Errorf("list on a terminal should cut titles and show relative times or dates:\n%s", tty)
	}
	piped := run(false, "list", "--no-refresh")
	if !strings.HasPrefix(piped, "modified\tcreated\tid\t") {
		t.Errorf("piped list should be tab-separated with a header:\n%.200s", piped)
	}

	for _, l := range strings.Split(strings.TrimSpace(run(true, "tree", "01a09f30", "--no-refresh")), "\n") {
		if n := utf8.RuneCountInString(l); n > 70 {
			t.Errorf("tree line of %d cells on a 70-cell terminal: %q", n, l)
		}
	}
	long := false
	for _, l := range strings.Split(run(false, "tree", "01a09f30", "--no-refresh"), "\n") {
		long = long || utf8.RuneCountInString(l) > 70
	}
	if !long {
		t.Error("piped tree lines should not be cut to the terminal width")
	}
}
