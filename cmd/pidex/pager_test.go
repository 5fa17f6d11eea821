package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pidex-dev/pidex/internal/render"
)

// show and tree on a terminal go through the pager ($PIDEX_PAGER, else
// $PAGER, else less -FRX); --no-pager, an empty pager, cat, or output
// that is not a terminal write directly; a pager the user quits early is
// no error; a pager that does not exist is said once and skipped.
func TestPager(t *testing.T) {
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("pager tests skipped: no /bin/sh")
	}
	root, _ := filepath.Abs(showSessions)
	db := filepath.Join(t.TempDir(), "c.sqlite")
	dir := t.TempDir()
	run := func(tty bool, args ...string) (stdout, stderr string, err error) {
		t.Helper()
		var out, errb bytes.Buffer
		a := newAppIO(&render.IOStreams{Out: &out, ErrOut: &errb, OutTTY: tty, Width: 100})
		err = a.execute(context.Background(), append([]string{"--db", db, "--sessions", root}, args...))
		return out.String(), errb.String(), err
	}
	if _, _, err := run(false, "-q", "index"); err != nil {
		t.Fatal(err)
	}
	want, _, _ := run(true, "--no-pager", "--no-refresh", "show", "01a09f30")
	if len(want) < 1000 {
		t.Fatalf("show wrote %d bytes", len(want))
	}
	tests := []struct {
		name        string
		pidexPager  *string // nil: unset
		pager       *string
		tty         bool
		args        []string
		paged       bool // the pager got the text, stdout nothing
		stderrWants string
	}{
		{name: "PIDEX_PAGER", pidexPager: ptr("cat > $OUT"), tty: true, paged: true},
		{name: "PAGER when PIDEX_PAGER is unset", pager: ptr("cat > $OUT"), tty: true, paged: true},
		{name: "PIDEX_PAGER wins", pidexPager: ptr("cat > $OUT"), pager: ptr("false"), tty: true, paged: true},
		{name: "--no-pager", pidexPager: ptr("cat > $OUT"), tty: true, args: []string{"--no-pager"}},
		{name: "piped", pidexPager: ptr("cat > $OUT"), tty: false},
		{name: "empty", pidexPager: ptr(""), tty: true},
		{name: "cat", pidexPager: ptr("cat"), tty: true},
		{name: "quit early", pidexPager: ptr("head -c 100 > $OUT"), tty: true, paged: true},
		{name: "missing", pidexPager: ptr("no-such-pager-here -R"), tty: true, stderrWants: `no pager "no-such-pager-here"`},
		{name: "tree", pidexPager: ptr("cat > $OUT"), tty: true, args: []string{"tree"}, paged: true},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "-")+".txt")
			t.Setenv("OUT", out)
			for k, v := range map[string]*string{"PIDEX_PAGER": tt.pidexPager, "PAGER": tt.pager} {
				if v == nil {
					unsetenv(t, k)
				} else {
					t.Setenv(k, *v)
				}
			}
			cmd := []string{"--no-refresh", "show", "01a09f30"}
			if len(tt.args) > 0 && tt.args[0] == "tree" {
				cmd = []string{"--no-refresh", "tree", "01a09f30"}
			} else {
				cmd = append(tt.args, cmd...)
			}
			stdout, stderr, err := run(tt.tty, cmd...)
			if err != nil {
				t.Fatalf("case %d: %v", i, err)
			}
			paged, _ := os.ReadFile(out)
			switch {
			case tt.paged && stdout != "":
				t.Errorf("paged, yet stdout has %d bytes", len(stdout))
			case tt.paged && tt.name == "quit early" && len(paged) != 100:
				t.Errorf("the pager read %d bytes, want 100", len(paged))
			case tt.paged && tt.name == "PIDEX_PAGER" && string(paged) != want:
				t.Errorf("the pager got other text than show writes")
			case tt.paged && len(paged) == 0:
				t.Error("the pager got nothing")
			case !tt.paged && (len(paged) > 0 || len(stdout) < 1000):
				t.Errorf("not paged: the pager got %d bytes, stdout %d", len(paged), len(stdout))
			}
			if !strings.Contains(stderr, tt.stderrWants) {
				t.Errorf("stderr %q, want %q", stderr, tt.stderrWants)
			}
		})
	}
}

func ptr(s string) *string { return &s }

// unsetenv unsets k for the test, restoring it after.
func unsetenv(t *testing.T, k string) {
	t.Setenv(k, "") // registers the restore
	os.Unsetenv(k)
}
