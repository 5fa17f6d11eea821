package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pidex-dev/pidex/internal/catalogtest"
	"github.com/pidex-dev/pidex/sqlite"
)

// `pidex index` killed with SIGKILL at random moments of a cold index (a
// bulk load: 150 sessions with usage, forks and branches, so the cost
// report's derivation at its end is interrupted too) loses nothing: a
// last index makes the catalog equal to a fresh one, with no duplicate.
// 6 kills here; PIDEX_SIGKILL=N for N.
func TestSIGKILLDuringColdIndex(t *testing.T) {
	bin, err := exec.LookPath("pidex")
	if err != nil {
		t.Fatal("pidex not on PATH:", err)
	}
	kills := 6
	if s := os.Getenv("PIDEX_SIGKILL"); s != "" {
		if kills, err = strconv.Atoi(s); err != nil {
			t.Fatal(err)
		}
	}
	root := t.TempDir()
	writeKillCorpus(t, root)
	db := filepath.Join(t.TempDir(), "catalog.sqlite")
	r := rand.New(rand.NewPCG(3, 4))
	killed := 0
	for i := 0; i < kills; i++ {
		cmd := exec.Command(bin, "--db", db, "--sessions", root, "-q", "index")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(10+r.IntN(150)) * time.Millisecond)
		_ = cmd.Process.Signal(syscall.SIGKILL)
		if err := cmd.Wait(); err != nil && strings.Contains(err.Error(), "killed") {
			killed++
		}
	}
	if out, err := exec.Command(bin, "--db", db, "--sessions", root, "-q", "index").CombinedOutput(); err != nil {
		t.Fatalf("last index: %v\n%s", err, out)
	}
	live, err := sqlite.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	if got, want := catalogtest.Dump(t, live.DB), freshDump(t, root); got != want {
		t.Errorf("after %d kills the catalog differs from a fresh index", killed)
	}
	var stale int
	if err := live.Get(&stale, `SELECT count(*) FROM meta WHERE key = 'calls_stale'`); err != nil || stale != 0 {
		t.Errorf("the bulk load's mark is still set (%d, %v)", stale, err)
	}
	t.Logf("%d of %d runs killed in flight", killed, kills)
}

// writeKillCorpus writes 120 sessions of assistant calls with usage, some
// with an abandoned branch, and 20 forks holding copies of their original.
func writeKillCorpus(t *testing.T, root string) { writeKillCorpusN(t, root, 120) }

// writeKillCorpusN is writeKillCorpus with n sessions.
func writeKillCorpusN(t *testing.T, root string, n int) {
	for i := range n {
		var b strings.Builder
		fmt.Fprintf(&b, `{"type":"session","version":3,"id":"k%03d","timestamp":"2026-05-01T10:%02d:00.000Z","cwd":"/w/p%d"}`+"\n", i, i%60, i%5)
		parent := "null"
		for j := range 60 {
			id := fmt.Sprintf("k%03d-%03d", i, j)
			if j == 40 && i%3 == 0 { // a branch back from the middle
				parent = fmt.Sprintf(`"k%03d-%03d"`, i, 20)
			}
			fmt.Fprintf(&b, `{"type":"message","id":%q,"parentId":%s,"timestamp":"2026-05-%02dT%02d:%02d:00.000Z","message":{"role":"assistant","content":[{"type":"text","text":"answer %d of %d"}],"provider":"anthropic","model":"claude-x","usage":{"input":%d,"output":7,"cacheRead":0,"cacheWrite":0,"totalTokens":%d,"cost":{"total":0.001}}}}`+"\n",
				id, parent, 1+i%28, j%24, j%60, j, i, 100+j, 107+j)
			parent = `"` + id + `"`
		}
		p := filepath.Join(root, fmt.Sprintf("--w-p%d--", i%5), fmt.Sprintf("k%03d.jsonl", i))
		catalogtest.WriteFile(t, p, b.String())
		if i%7 == 0 && i/7 < 20 { // a fork: the same entries in a later file
			fork := strings.Replace(b.String(), fmt.Sprintf(`"id":"k%03d"`, i), fmt.Sprintf(`"id":"f%03d"`, i), 1)
			catalogtest.WriteFile(t, filepath.Join(filepath.Dir(p), fmt.Sprintf("z%03d.jsonl", i)), fork)
		}
	}
}

// `pidex index --full` killed while it builds its side catalog leaves the
// side files behind (each a copy of the whole catalog); the next command,
// whatever it is, removes them. 3 kills.
func TestKilledFullIndexLeavesNoSideFiles(t *testing.T) {
	bin, err := exec.LookPath("pidex")
	if err != nil {
		t.Fatal("pidex not on PATH:", err)
	}
	root := t.TempDir()
	writeKillCorpus(t, root)
	db := filepath.Join(t.TempDir(), "catalog.sqlite")
	args := func(a ...string) []string { return append([]string{"--db", db, "--sessions", root, "-q"}, a...) }
	if out, err := exec.Command(bin, args("index")...).CombinedOutput(); err != nil {
		t.Fatalf("first index: %v\n%s", err, out)
	}
	left := 0
	for range 3 {
		cmd := exec.Command(bin, args("index", "--full")...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Killed once its side file exists (or when it ends first).
		deadline := time.Now().Add(30 * time.Second)
		for time.Now().Before(deadline) {
			if m, _ := filepath.Glob(db + ".rebuild-*"); len(m) > 0 {
				break
			}
			time.Sleep(time.Millisecond)
		}
		_ = cmd.Process.Signal(syscall.SIGKILL)
		_ = cmd.Wait()
		m, _ := filepath.Glob(db + ".rebuild-*")
		left += len(m)
	}
	if left == 0 {
		t.Fatal("no kill left a side file: the test did not test anything")
	}
	if out, err := exec.Command(bin, args("list")...).CombinedOutput(); err != nil {
		t.Fatalf("list after the kills: %v\n%s", err, out)
	}
	if m, _ := filepath.Glob(db + ".rebuild-*"); len(m) != 0 {
		t.Errorf("side files left after the next run: %v", m)
	}
}
