package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/pidex-dev/pidex/internal/render"
)

// Every command's help ends its description with EXAMPLES.
func TestEveryCommandHasExamples(t *testing.T) {
	a := newAppIO(&render.IOStreams{Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}})
	root := a.rootCmd()
	names := []string{""}
	for _, c := range root.Commands() {
		if c.Name() != "help" && !c.Hidden {
			names = append(names, c.Name())
		}
	}
	if len(names) < 14 {
		t.Fatalf("only %d commands: %v", len(names), names)
	}
	for _, name := range names {
		var out bytes.Buffer
		a := newAppIO(&render.IOStreams{Out: &out, ErrOut: &out})
		args := []string{"--help"}
		if name != "" {
			args = []string{name, "--help"}
		}
		if err := a.execute(context.Background(), args); err != nil {
			t.Fatalf("pidex %s --help: %v", name, err)
		}
		if i := strings.Index(out.String(), "\nExamples:\n  "); i < 0 {
			t.Errorf("pidex %s --help has no examples:\n%s", name, out.String())
		}
	}
}
