package main

import (
	"bytes"
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pidex-dev/pidex/internal/render"
)

// Shell completion: the scripts for the four shells, and the words the
// scripts ask for — session ids and names from the catalog, entries of a
// session, the values of --by, --role, --sort, --branch, --tz and the
// others, from where the options take them.
func TestCompletion(t *testing.T) {
	root, _ := filepath.Abs(showSessions)
	db := filepath.Join(t.TempDir(), "c.sqlite")
	cli := func(args ...string) string {
		t.Helper()
		var out, errb bytes.Buffer
		a := newAppIO(&render.IOStreams{Out: &out, ErrOut: &errb})
		if err := a.execute(context.Background(), append([]string{"--db", db, "--sessions", root}, args...)); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		return out.String()
	}
	cli("-q", "index")
	for shell, want := range map[string]string{
		"bash": "__start_pidex", "zsh": "#compdef pidex", "fish": "complete -c pidex", "powershell": "Register-ArgumentCompleter",
	} {
		if got := cli("completion", shell); !strings.Contains(got, want) {
			t.Errorf("pidex completion %s lacks %q", shell, want)
		}
	}
	tests := []struct {
		line []string // what was typed, the last word being completed
		want []string // completions (without descriptions) that must be there
		not  []string // and must not
	}{
		{[]string{"show", "01a09f"}, []string{"01a09f30-132d-724f-a634-c14fac694f8c"}, []string{"01a0a561-3aba-724f-a634-c15148c18a5a"}},
		{[]string{"tree", "release"}, []string{"release-notes.2026-09"}, nil},
		{[]string{"path", "export"}, []string{"export flags (forked)"}, nil},         // a unique name
		{[]string{"show", "Fix"}, nil, []string{"Fix flaky login test (auth.spec)"}}, // two sessions share it
		{[]string{"show", "01a09f30", "--leaf", "ae2"}, []string{"ae21c73b"}, nil},
		{[]string{"search", "--session", "4c0f"}, []string{"4c0ffee0-1d2e-4f3a-8b4c-5d6e7f8091a2"}, nil},
		{[]string{"cost", "--by", ""}, []string{"day", "week", "month", "model", "provider", "project", "session", "source"}, nil},
		{[]string{"cost", "--by", "day,mo"}, []string{"day,model", "day,month"}, []string{"day,day"}},
		{[]string{"cost", "--source", "assistant,"}, []string{"assistant,compaction", "assistant,toolResult"}, []string{"assistant,assistant"}},
		{[]string{"cost", "--tz", "Europe/Par"}, []string{"Europe/Paris"}, nil},
		{[]string{"cost", "--tz", "asia/kath"}, []string{"Asia/Kathmandu"}, nil},
		{[]string{"cost", "--branch", ""}, []string{"all", "active", "abandoned"}, nil},
		{[]string{"search", "--role", ""}, []string{"user", "assistant", "tool", "summary"}, nil},
		{[]string{"search", "--branch", ""}, []string{"all", "active"}, []string{"abandoned"}},
		{[]string{"search", "--sort", ""}, []string{"relevance", "newest"}, nil},
		{[]string{"list", "--sort", "c"}, []string{"created", "cost"}, []string{"modified"}},
		{[]string{"sql", "--format", "n"}, []string{"ndjson"}, []string{"csv"}},
		{[]string{"l"}, []string{"list"}, nil},
		{[]string{"list", "--agent", "pi,o"}, []string{"pi,omp", "pi,openclaw"}, []string{"pi,pi"}},
	}
	if len(zones()) < 2 { // a system without a zone database
		t.Log("no time zone database: --tz completes to UTC only")
		tests = slices.DeleteFunc(tests, func(tt struct {
			line []string
			want []string
			not  []string
		}) bool {
			return slices.Contains(tt.line, "--tz")
		})
	}
	for _, tt := range tests {
		out := cli(append([]string{"__complete"}, tt.line...)...)
		var got []string
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			if strings.HasPrefix(l, ":") { // the directive
				continue
			}
			w, _, _ := strings.Cut(l, "\t")
			got = append(got, w)
		}
		for _, w := range tt.want {
			if !slices.Contains(got, w) {
				t.Errorf("pidex %s<TAB>: no %q in %q", strings.Join(tt.line, " "), w, got)
			}
		}
		for _, w := range tt.not {
			if slices.Contains(got, w) {
				t.Errorf("pidex %s<TAB>: %q should not complete", strings.Join(tt.line, " "), w)
			}
		}
	}
}
