//go:build unix

package indexer

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pidex-dev/pidex"
)

// Issue 39, items 1 and 2: a settings or .env file that is a FIFO, a
// link to /dev/zero or a file larger than MaxSettingsFile, and a
// sessionDir naming a FIFO, on the real file system (SystemEnv): finding
// the roots and listing them return (before, the FIFO blocked the open
// forever and /dev/zero ran out of memory), and each file not read is
// named in a root's note.
func TestSettingsThatAreNotFiles(t *testing.T) {
	fifo := func(t *testing.T, p string) {
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target string) func(*testing.T, string) {
		return func(t *testing.T, p string) {
			if err := os.Symlink(target, p); err != nil {
				t.Fatal(err)
			}
		}
	}
	huge := func(t *testing.T, p string) {
		b := []byte(`{"sessionDir": "/elsewhere"` + strings.Repeat(" ", MaxSettingsFile) + `}`)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name string
		file string // under the home ("~/…") or the project ("./…")
		make func(*testing.T, string)
		note string // in a root's note
	}{
		{"global settings a FIFO", "~/.pi/agent/settings.json", fifo, "settings.json not read: not a regular file: it is a named pipe (FIFO)"},
		{"project settings a FIFO", "./.pi/settings.json", fifo, "project settings " + "PROJ/.pi/settings.json not read: not a regular file: it is a named pipe (FIFO)"},
		{"global settings a link to /dev/zero", "~/.pi/agent/settings.json", link("/dev/zero"), "not read: not a regular file: it is a character device"},
		{"global settings over 1 MiB", "~/.pi/agent/settings.json", huge, "not read: too large: longer than 1 MiB"},
		{"~/.env a FIFO", "~/.env", fifo, "omp's environment file HOME/.env not read: not a regular file: it is a named pipe (FIFO)"},
		{"~/.omp/.env a FIFO", "~/.omp/.env", fifo, "omp's environment file HOME/.omp/.env not read: not a regular file: it is a named pipe (FIFO)"},
		{"the project's .env a link to /dev/zero", "./.env", link("/dev/zero"), "PROJ/.env not read: not a regular file: it is a character device"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			proj := filepath.Join(home, "proj")
			for _, d := range []string{filepath.Join(home, ".pi", "agent", "sessions"), filepath.Join(home, ".omp", "agent", "sessions"), filepath.Join(proj, ".pi")} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			p := filepath.Join(proj, tc.file[2:])
			if strings.HasPrefix(tc.file, "~") {
				p = filepath.Join(home, tc.file[2:])
			}
			tc.make(t, p)
			env := SystemEnv()
			env.Home, env.Cwd = home, proj
			env.LookupEnv = func(string) (string, bool) { return "", false }
			roots := returns(t, func() any { return FindRoots(env, []string{proj}) }).([]pidex.Root)
			var notes []string
			for _, r := range roots {
				notes = append(notes, r.Note)
			}
			want := strings.NewReplacer("HOME", home, "PROJ", proj).Replace(tc.note)
			if !strings.Contains(strings.Join(notes, "\n"), want) {
				t.Errorf("notes %q, want one saying %q", notes, want)
			}
		})
	}
	// A sessionDir that names a FIFO: listed as a flat root, whose listing
	// is an error saying what it is.
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".pi", "agent"), 0o755); err != nil {
		t.Fatal(err)
	}
	flat := filepath.Join(home, "flat")
	fifo(t, flat)
	if err := os.WriteFile(filepath.Join(home, ".pi", "agent", "settings.json"), []byte(`{"sessionDir":"~/flat"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	env := SystemEnv()
	env.Home, env.Cwd = home, home
	env.LookupEnv = func(string) (string, bool) { return "", false }
	found := false
	for _, r := range returns(t, func() any { return FindRoots(env, nil) }).([]pidex.Root) {
		found = found || (r.Path == flat && r.Flat)
	}
	if !found {
		t.Fatalf("sessionDir %s is not a root", flat)
	}
	errs := returns(t, func() any { _, errs := discover(flat, "pi"); return errs }).([]error)
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "not a folder: it is a named pipe (FIFO)") {
		t.Errorf("listing a FIFO root: %v", errs)
	}
}

// returns is f's result, failing the test if f has not returned after a
// minute: not a timing assertion, a blocked open never returns.
func returns(t *testing.T, f func() any) any {
	t.Helper()
	done := make(chan any, 1)
	go func() { done <- f() }()
	select {
	case v := <-done:
		return v
	case <-time.After(time.Minute):
		t.Fatal("blocked")
		return nil
	}
}
