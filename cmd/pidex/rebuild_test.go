package main

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pidex-dev/pidex/engine"
	"github.com/pidex-dev/pidex/internal/catalogtest"
	"github.com/pidex-dev/pidex/sqlite"
)

// `index --full` in one process while `index --watch` runs in another:
// both keep working, and the catalog ends equal to a fresh index of the
// same files (before pidex rebuilt in place, the watcher went on writing
// into the replaced, deleted catalog file and its appends were lost).
func TestRebuildWhileWatching(t *testing.T) {
	bin, err := exec.LookPath("pidex") // the test binary, set up by testscript.Main
	if err != nil {
		t.Fatal("pidex not on PATH:", err)
	}
	if b := os.Getenv("PIDEX_TEST_BIN"); b != "" {
		bin = b // to check another build against the same scenario
	}
	root := t.TempDir()
	file := filepath.Join(root, "--w-app--", "a.jsonl")
	writeSession(t, file, `{"type":"session","version":3,"id":"watched","timestamp":"2026-05-01T10:00:00.000Z","cwd":"/w/app"}`,
		userLine("u1", "", "start"))
	writeSession(t, filepath.Join(root, "--w-lib--", "b.jsonl"), `{"type":"session","version":3,"id":"other","timestamp":"2026-05-01T11:00:00.000Z","cwd":"/w/lib"}`,
		userLine("v1", "", "hello"))
	db := filepath.Join(t.TempDir(), "catalog.sqlite")
	args := []string{"--db", db, "--sessions", root}

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	watch := exec.CommandContext(ctx, bin, append(args, "index", "--watch", "--json")...)
	watch.Stderr = os.Stderr
	out, err := watch.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := watch.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	waitFor := func(what, substr string) {
		t.Helper()
		deadline := time.After(20 * time.Second)
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("the watcher exited while waiting for %s", what)
				}
				if strings.Contains(l, substr) {
					return
				}
			case <-deadline:
				t.Fatalf("the watcher never reported %s", what)
			}
		}
	}
	waitFor("its first refresh", `"new":2`)

	full := exec.CommandContext(ctx, bin, append(args, "index", "--full")...)
	if b, err := full.CombinedOutput(); err != nil {
		t.Fatalf("index --full while watching: %v\n%s", err, b)
	}
	appendLine(t, file, userLine("u2", "u1", "after the rebuild"))
	waitFor("the append after the rebuild", `"appended":1`)
	appendLine(t, file, userLine("u3", "u2", "and one more"))
	waitFor("a second append", `"appended":1`)

	if err := watch.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if err := watch.Wait(); err != nil {
		t.Fatalf("the watcher did not stop cleanly: %v", err)
	}
	// The catalog as the two processes left it (no refresh here), against a
	// fresh index of the same files.
	live, err := sqlite.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	got := catalogtest.Dump(t, live.DB)
	live.Close()
	want := freshDump(t, root)
	if got != want {
		t.Errorf("catalog after rebuild-while-watching differs from a fresh index:\n%s\n--- fresh\n%s", got, want)
	}
}

func freshDump(t *testing.T, root string) string {
	t.Helper()
	db := filepath.Join(t.TempDir(), "fresh.sqlite")
	e, err := engine.Open(context.Background(), engine.Options{DBPath: db, Roots: []string{root}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.Refresh(context.Background())
	e.Close()
	if err != nil {
		t.Fatal(err)
	}
	c, err := sqlite.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	return catalogtest.Dump(t, c.DB)
}

func userLine(id, parent, text string) string {
	p := "null"
	if parent != "" {
		p = `"` + parent + `"`
	}
	return `{"type":"message","id":"` + id + `","parentId":` + p + `,"timestamp":"2026-05-01T10:00:01.000Z","message":{"role":"user","content":"` + text + `","timestamp":1777629601000}}`
}

func writeSession(t *testing.T, path string, lines ...string) {
	t.Helper()
	catalogtest.WriteFile(t, path, strings.Join(lines, "\n")+"\n")
}

func appendLine(t *testing.T, path, line string) {
	t.Helper()
	catalogtest.AppendFile(t, path, line+"\n")
}
