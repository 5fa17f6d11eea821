package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pidex-dev/pidex/engine"
)

// Two builds of pidex on one catalog (issue 39, item 5: a pinned pidex an
// agent started for MCP beside a newer CLI): this one, and the next one —
// this source with the derivation one higher and a migration more, built
// here. A build never empties a catalog a newer one built: it answers
// from it as it is, never writing it, while the newer one keeps it
// current. So, with both building, listing, searching and serving it at
// once, from a catalog this build made first (the newer one rebuilds it
// once, on its first open) for 4 s (PIDEX_STRESS longer): no command of
// either fails, the newer build rebuilds it exactly once, and afterwards
// it equals a fresh index by the newer build.
func TestStressTwoBuilds(t *testing.T) {
	cur, err := exec.LookPath("pidex")
	if err != nil {
		t.Fatal("pidex not on PATH:", err)
	}
	next := nextBuild(t)
	d := stressDuration(t)
	root := t.TempDir()
	db := filepath.Join(t.TempDir(), "catalog.sqlite")
	args := func(a ...string) []string { return append([]string{"--db", db, "--sessions", root}, a...) }
	ctx, cancel := context.WithCancel(context.Background())
	var writers sync.WaitGroup
	writers.Go(func() { writePi(ctx, t, root) })
	time.Sleep(200 * time.Millisecond) // a few sessions first
	if out, err := exec.Command(cur, args("index", "-q")...).CombinedOutput(); err != nil && !isExit(err, exitWarnings) {
		t.Fatalf("this build's first index: %v\n%s", err, out)
	}

	var mu sync.Mutex
	var failures []string
	rebuilds := 0
	var loops sync.WaitGroup
	until := time.Now().Add(d)
	loop := func(bin, name string, a ...string) {
		loops.Go(func() {
			for time.Now().Before(until) {
				out, err := exec.Command(bin, args(a...)...).CombinedOutput()
				mu.Lock()
				if err != nil && !isExit(err, exitWarnings) {
					failures = append(failures, fmt.Sprintf("%s: %v\n%s", name, err, out))
				}
				rebuilds += bytes.Count(out, []byte("rebuilding it from the session files"))
				mu.Unlock()
			}
		})
	}
	loop(cur, "this: list", "list")
	loop(cur, "this: search", "search", "message")
	loop(cur, "this: sql", "sql", "SELECT count(*) FROM sessions_v")
	loop(cur, "this: cost", "cost", "--by", "day")
	// The newer build's first open, while this one reads and writes the
	// catalog: it rebuilds it, once; then it keeps it current.
	time.Sleep(d / 8)
	out, err := exec.Command(next, args("list")...).CombinedOutput()
	if err != nil && !isExit(err, exitWarnings) {
		t.Fatalf("the newer build's first open: %v\n%s", err, out)
	}
	mu.Lock()
	rebuilds += bytes.Count(out, []byte("rebuilding it from the session files"))
	mu.Unlock()
	loop(next, "next: index", "index")
	loop(next, "next: list", "list")
	loops.Wait()
	cancel()
	writers.Wait()
	for _, f := range failures {
		t.Error(f)
	}
	if rebuilds != 1 {
		t.Errorf("the catalog was rebuilt %d times; want once, by the newer build on its first open", rebuilds)
	}
	// This build never wrote it after the newer one took it: refused.
	if out, err := exec.Command(cur, args("index")...).CombinedOutput(); !isExit(err, exitError) || !strings.Contains(string(out), "newer pidex") {
		t.Errorf("this build's index of the newer build's catalog: %v\n%s\nwant exit %d and a word on the newer pidex", err, out, exitError)
	}
	if out, err := exec.Command(next, args("index", "-q")...).CombinedOutput(); err != nil && !isExit(err, exitWarnings) {
		t.Fatalf("final index: %v\n%s", err, out)
	}
	freshDB := filepath.Join(t.TempDir(), "fresh.sqlite")
	if out, err := exec.Command(next, "--db", freshDB, "--sessions", root, "index", "-q").CombinedOutput(); err != nil && !isExit(err, exitWarnings) {
		t.Fatalf("fresh index: %v\n%s", err, out)
	}
	dump := func(path string) string {
		out, err := exec.Command(next, "--db", path, "--sessions", root, "--no-refresh", "sql", "--format", "tsv",
			"SELECT path, session_id, entry_count, message_count, total_tokens FROM sessions_v ORDER BY path").Output()
		if err != nil {
			t.Fatalf("sql: %v", err)
		}
		return string(out)
	}
	if got, want := dump(db), dump(freshDB); got != want {
		t.Errorf("the shared catalog differs from a fresh index by the newer build:\n%s\nwant\n%s", got, want)
	}
}

// nextBuild builds this module as the next release would be: its
// derivation one higher and one migration more, given to go build as an
// overlay (the packages they do not reach come from the build cache).
func nextBuild(t *testing.T) string {
	t.Helper()
	src, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(src, "indexer", "indexer.go"))
	if err != nil {
		t.Fatal(err)
	}
	decl := regexp.MustCompile(`(?m)^const Derivation = \d+$`)
	if !decl.Match(b) {
		t.Fatal("indexer/indexer.go declares no `const Derivation = N`")
	}
	dir := t.TempDir()
	replace := map[string]string{
		filepath.Join(src, "indexer", "indexer.go"):              filepath.Join(dir, "indexer.go"),
		filepath.Join(src, "migrations", "09999_next_build.sql"): filepath.Join(dir, "09999_next_build.sql"),
	}
	writeFile(t, replace[filepath.Join(src, "indexer", "indexer.go")],
		decl.ReplaceAll(b, []byte("const Derivation = "+strconv.Itoa(engine.Derivation+1))))
	writeFile(t, replace[filepath.Join(src, "migrations", "09999_next_build.sql")], []byte(`-- +goose Up
ALTER TABLE sessions ADD COLUMN next_build INTEGER;
-- +goose Down
ALTER TABLE sessions DROP COLUMN next_build;
`))
	overlay, err := json.Marshal(map[string]any{"Replace": replace})
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "overlay.json"), overlay)
	bin := filepath.Join(dir, "pidex-next")
	cmd := exec.Command("go", "build", "-overlay", filepath.Join(dir, "overlay.json"), "-o", bin, "./cmd/pidex")
	cmd.Dir = src
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build the next pidex: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "version").CombinedOutput()
	if want := fmt.Sprint(engine.Derivation + 1); err != nil || !strings.Contains(string(out), want) {
		t.Fatalf("the next pidex's version: %v\n%s\nwant derivation %s", err, out, want)
	}
	return bin
}

func writeFile(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
