package main

import (
	"database/sql"
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
	"github.com/pidex-dev/pidex/internal/pgtest"
)

// teamDump is the team catalog's content, machine by machine and file by
// file (file ids, which depend on push order, and push times aside): two
// team catalogs with the same dump answer everything alike.
func teamDump(t *testing.T, url string) string {
	t.Helper()
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var parts []string
	q := func(what, stmt string) {
		var s sql.NullString
		if err := db.QueryRow(`SELECT string_agg(x, E'\n' ORDER BY x) FROM (` + stmt + `) y`).Scan(&s); err != nil {
			t.Fatalf("dump %s: %v", what, err)
		}
		parts = append(parts, "== "+what+"\n"+s.String)
	}
	q("machines", `SELECT (to_jsonb(m) - 'id')::text AS x FROM machines m`)
	q("push_state", `SELECT m.name || ' ' || (to_jsonb(p) - 'machine_id' - 'started_ms' - 'finished_ms' - 'changes' - 'pushed_by')::text AS x
		FROM push_state p JOIN machines m ON m.id = p.machine_id`)
	q("files", `SELECT m.name || ' ' || (to_jsonb(f) - 'id' - 'machine_id')::text AS x FROM files f JOIN machines m ON m.id = f.machine_id`)
	for _, table := range []string{"sessions", "entries", "entry_lines", "entry_text", "text_index", "edges", "labels", "usage",
		"usage_xm", "usage_rollup", "usage_rollup_hour", "tool_calls", "warnings"} {
		q(table, `SELECT m.name || ' ' || f.path || ' ' || (to_jsonb(t) - 'file_id' - 'machine_id')::text AS x
			FROM `+table+` t JOIN files f ON f.id = t.file_id JOIN machines m ON m.id = f.machine_id`)
	}
	return strings.Join(parts, "\n")
}

// pushCorpus is two machines' roots, indexed into their local catalogs:
// sessions with usage, branches and forks; the second holds copies of some
// of the first's (calls on two machines).
type pushCorpus struct {
	roots, dbs []string
}

func newPushCorpus(t *testing.T) *pushCorpus { return newPushCorpusN(t, 120) }

// newPushCorpusN is newPushCorpus with n sessions on the first machine
// (the copies on the second are of those it has).
func newPushCorpusN(t *testing.T, n int) *pushCorpus {
	base := t.TempDir()
	c := &pushCorpus{}
	for i := range 2 {
		c.roots = append(c.roots, filepath.Join(base, "root"+strconv.Itoa(i)))
		c.dbs = append(c.dbs, filepath.Join(base, "m"+strconv.Itoa(i)+".sqlite"))
	}
	writeKillCorpusN(t, c.roots[0], n)
	r := rand.New(rand.NewPCG(5, 6))
	for i := range min(30, n) {
		catalogtest.WriteFile(t, filepath.Join(c.roots[1], "--w-b--", fmt.Sprintf("b%03d.jsonl", i)), teamSession(r, fmt.Sprintf("b%03d", i), "/w/b", i))
	}
	copies := []int{3, 14, 77}
	if n <= 77 {
		copies = []int{3, 14, n - 3}
	}
	for _, k := range copies {
		src := filepath.Join(c.roots[0], fmt.Sprintf("--w-p%d--", k%5), fmt.Sprintf("k%03d.jsonl", k))
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		catalogtest.WriteFile(t, filepath.Join(c.roots[1], "--w-copies--", fmt.Sprintf("k%03d.jsonl", k)), string(b))
	}
	for i := range c.roots {
		cli(t, 3, c.args(i, "index")...)
	}
	return c
}

// args are the arguments of pidex for machine i.
func (c *pushCorpus) args(i int, more ...string) []string {
	return append([]string{"--db", c.dbs[i], "--sessions", c.roots[i], "--machine", "m" + strconv.Itoa(i), "-q"}, more...)
}

// fresh is the dump of the machines' catalogs pushed into an empty team
// catalog, one after the other.
func (c *pushCorpus) fresh(t *testing.T) string {
	url := pgtest.URL(t)
	for i := range c.roots {
		cli(t, 0, c.args(i, "--no-refresh", "push", "--to", url)...)
	}
	return teamDump(t, url)
}

// pidexBin is the test binary acting as pidex (testscript puts it on PATH).
func pidexBin(t *testing.T) string {
	bin, err := exec.LookPath("pidex")
	if err != nil {
		t.Fatal("pidex not on PATH:", err)
	}
	return bin
}

// A push killed with SIGKILL at random moments, again and again, then
// one push that completes, leaves the team catalog equal to a fresh
// push: every transaction applied whole or not at all, and the cursors
// say where to go on. 5 kills here; PIDEX_PUSH_KILLS=N for N.
func TestPushSIGKILL(t *testing.T) {
	bin := pidexBin(t)
	kills := 5
	if s := os.Getenv("PIDEX_PUSH_KILLS"); s != "" {
		var err error
		if kills, err = strconv.Atoi(s); err != nil {
			t.Fatal(err)
		}
	}
	c := newPushCorpus(t)
	url := pgtest.URL(t)
	r := rand.New(rand.NewPCG(7, 8))
	killed := 0
	for i := range kills {
		m := i % 2
		cmd := exec.Command(bin, c.args(m, "--no-refresh", "push", "--to", url)...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(20+r.IntN(600)) * time.Millisecond)
		_ = cmd.Process.Signal(syscall.SIGKILL)
		if err := cmd.Wait(); err != nil && strings.Contains(err.Error(), "killed") {
			killed++
		}
	}
	for m := range c.roots {
		cli(t, 0, c.args(m, "--no-refresh", "push", "--to", url)...)
	}
	if got, want := teamDump(t, url), c.fresh(t); got != want {
		t.Fatalf("after %d kills (%d mid-push), the team catalog differs from a fresh push:\n%s", kills, killed, firstDiff(want, got))
	}
	t.Logf("%d of %d pushes killed mid-way", killed, kills)
}

// The server stopped at once (a crash, a power cut) in the middle of a
// push, then started again: the next push completes, and the team catalog
// equals a fresh push. 3 crashes here; PIDEX_PUSH_CRASHES=N for N.
func TestPushServerCrash(t *testing.T) {
	bin := pidexBin(t)
	crashes := 3
	if s := os.Getenv("PIDEX_PUSH_CRASHES"); s != "" {
		var err error
		if crashes, err = strconv.Atoi(s); err != nil {
			t.Fatal(err)
		}
	}
	c := newPushCorpus(t)
	cl := pgtest.NewCluster(t)
	url := cl.URL(t)
	r := rand.New(rand.NewPCG(9, 10))
	failed := 0
	for i := range crashes {
		cmd := exec.Command(bin, c.args(i%2, "--no-refresh", "push", "--to", url)...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(100+r.IntN(800)) * time.Millisecond)
		cl.Crash()
		if err := cmd.Wait(); err != nil {
			failed++
		}
		cl.Start(t)
	}
	for m := range c.roots {
		cli(t, 0, c.args(m, "--no-refresh", "push", "--to", url)...)
	}
	if got, want := teamDump(t, url), c.fresh(t); got != want {
		t.Fatalf("after %d crashes (%d mid-push), the team catalog differs from a fresh push:\n%s", crashes, failed, firstDiff(want, got))
	}
	t.Logf("%d of %d pushes cut by the crash", failed, crashes)
}

// Two machines pushing at once into one team catalog lose nothing, even
// with calls both hold: the result is what pushing one after the other
// gives. Then a file removed on a machine disappears with its next push.
func TestPushConcurrentAndRemoval(t *testing.T) {
	bin := pidexBin(t)
	c := newPushCorpus(t)
	url := pgtest.URL(t)
	var cmds []*exec.Cmd
	for m := range c.roots {
		cmd := exec.Command(bin, c.args(m, "--no-refresh", "push", "--to", url)...)
		var out strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	for _, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("%v: %v\n%s", cmd.Args, err, cmd.Stdout)
		}
	}
	if got, want := teamDump(t, url), c.fresh(t); got != want {
		t.Fatalf("two machines pushing at once: the team catalog differs from pushes one after the other:\n%s", firstDiff(want, got))
	}

	gone := filepath.Join(c.roots[1], "--w-copies--", "k014.jsonl")
	if err := os.Remove(gone); err != nil {
		t.Fatal(err)
	}
	out := cli(t, 0, c.args(1, "push", "--to", url, "--json")...)
	if !strings.Contains(out, `"removed": 1,`) {
		t.Errorf("push after a removal: %s", out)
	}
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM files WHERE path = $1`, gone).Scan(&n); err != nil || n != 0 {
		t.Errorf("the removed file is still in the team catalog (%d, %v)", n, err)
	}
	if got, want := teamDump(t, url), c.fresh(t); got != want {
		t.Fatalf("after a removal, the team catalog differs from a fresh push:\n%s", firstDiff(want, got))
	}
	// The other machine's copy of the same session still counts its calls.
	lo := cli(t, 0, "--catalog", url, "cost", "--json", "--by", "machine")
	if !strings.Contains(lo, `"machine": "m0"`) || !strings.Contains(lo, `"machine": "m1"`) {
		t.Errorf("cost by machine: %s", lo)
	}
}

// push --watch pushes again after a change under the roots, until
// interrupted: an appended entry reaches the team catalog without another
// command.
func TestPushWatch(t *testing.T) {
	bin := pidexBin(t)
	root := t.TempDir()
	p := filepath.Join(root, "--w--", "s.jsonl")
	catalogtest.WriteFile(t, p, `{"type":"session","version":3,"id":"w1","timestamp":"2026-05-01T10:00:00.000Z","cwd":"/w"}`+"\n"+
		userLine("a1", "", "first words")+"\n")
	url := pgtest.URL(t)
	cmd := exec.Command(bin, "--db", filepath.Join(t.TempDir(), "c.sqlite"), "--sessions", root, "--machine", "w", "-q", "push", "--to", url, "--watch", "--json")
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
	}()
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	entries := func() int {
		var n int
		if err := db.QueryRow(`SELECT count(*) FROM entries`).Scan(&n); err != nil {
			return -1 // the first push has not made the schema yet
		}
		return n
	}
	// Waits for what a push should bring; the deadline only stops a
	// broken watch from hanging the test (no time is asserted).
	wait := func(want int) {
		t.Helper()
		for deadline := time.Now().Add(60 * time.Second); entries() != want; {
			if time.Now().After(deadline) {
				t.Fatalf("the team catalog holds %d entries, want %d; push --watch said:\n%s", entries(), want, out.String())
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	wait(1)
	catalogtest.AppendFile(t, p, userLine("a2", "a1", "more words")+"\n")
	wait(2)
}
