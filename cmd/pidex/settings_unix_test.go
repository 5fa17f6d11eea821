//go:build unix

package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pidex-dev/pidex/internal/tooltest"
)

// Issue 39, items 1 and 2, as the user met them: a FIFO where pidex reads
// settings (pi's global and project settings, omp's .env files, a
// sessionDir) or a settings file that never ends (a link to /dev/zero)
// hung every command, `pidex mcp` at its start included, or ran it out of
// memory. Each command now ends, with the files it did not read named by
// `pidex roots`.
func TestSettingsThatAreNotFilesDoNotHang(t *testing.T) {
	bin := tooltest.Pidex(t)
	mkfifo := func(t *testing.T, p string) {
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name  string
		setup func(t *testing.T, home, proj string)
		note  string // in `pidex roots`
	}{
		{"global settings a FIFO", func(t *testing.T, home, _ string) { mkfifo(t, filepath.Join(home, ".pi", "agent", "settings.json")) },
			"settings.json not read: not a regular file: it is a named pipe (FIFO)"},
		{"project settings a FIFO", func(t *testing.T, _, proj string) { mkfifo(t, filepath.Join(proj, ".pi", "settings.json")) },
			"project settings"},
		{"~/.env a FIFO", func(t *testing.T, home, _ string) { mkfifo(t, filepath.Join(home, ".env")) }, ".env not read"},
		{"~/.omp/.env a FIFO", func(t *testing.T, home, _ string) { mkfifo(t, filepath.Join(home, ".omp", ".env")) }, ".omp/.env not read"},
		{"sessionDir a FIFO", func(t *testing.T, home, _ string) {
			mkfifo(t, filepath.Join(home, "flat"))
			if err := os.WriteFile(filepath.Join(home, ".pi", "agent", "settings.json"), []byte(`{"sessionDir":"~/flat"}`), 0o644); err != nil {
				t.Fatal(err)
			}
		}, ""},
		{"global settings a link to /dev/zero", func(t *testing.T, home, _ string) {
			if err := os.Symlink("/dev/zero", filepath.Join(home, ".pi", "agent", "settings.json")); err != nil {
				t.Fatal(err)
			}
		}, "not a regular file: it is a character device"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			proj := filepath.Join(home, "proj")
			for _, d := range []string{filepath.Join(home, ".pi", "agent", "sessions"), filepath.Join(home, ".omp", "agent", "sessions"), filepath.Join(proj, ".pi")} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			tc.setup(t, home, proj)
			env := []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "PIDEX_DB=" + filepath.Join(home, "c.sqlite")}
			for _, args := range [][]string{{"roots"}, {"list", "--no-refresh"}, {"list"}, {"index"}} {
				out := endsWithin(t, bin, env, proj, strings.NewReader(""), args...)
				if args[0] == "roots" && !strings.Contains(out, tc.note) {
					t.Errorf("pidex roots does not say %q:\n%s", tc.note, out)
				}
			}
			// pidex mcp answers initialize and a tool call, then ends when
			// stdin closes.
			in, stdin := io.Pipe()
			go func() {
				init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n" +
					`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
					`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_sessions","arguments":{}}}` + "\n"
				_, _ = io.WriteString(stdin, init)
			}()
			out := endsWithin(t, bin, env, proj, lineCloser{in, stdin, `"id":2`}, "mcp")
			if !strings.Contains(out, `"serverInfo"`) || !strings.Contains(out, `"id":2`) {
				t.Errorf("pidex mcp did not answer: %q", out)
			}
		})
	}
}

// endsWithin runs pidex in dir with env and stdin and returns its stdout;
// a run that has not ended after two minutes is killed and fails the test
// (not a timing assertion: these commands hung forever).
func endsWithin(t *testing.T, bin string, env []string, dir string, stdin io.Reader, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env, cmd.Dir, cmd.Stdin = env, dir, stdin
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if lc, ok := stdin.(lineCloser); ok {
		cmd.Stdout = io.MultiWriter(&out, lc)
	}
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("pidex %s hung\n%s", strings.Join(args, " "), errb.String())
	}
	if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() > 3) {
		t.Errorf("pidex %s: %v\n%s", strings.Join(args, " "), err, errb.String())
	}
	return out.String()
}

// lineCloser is a client's stdin: it closes once the server has written
// want (the answer it waits for), as a client hangs up when done.
type lineCloser struct {
	*io.PipeReader
	w    *io.PipeWriter
	want string
}

func (l lineCloser) Write(p []byte) (int, error) {
	if bytes.Contains(p, []byte(l.want)) {
		l.w.Close()
	}
	return len(p), nil
}
