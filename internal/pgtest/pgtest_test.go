package pgtest

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

func TestMain(m *testing.M) { Main(m) }

func open(t *testing.T, u string) *sql.DB {
	t.Helper()
	db, err := sql.Open("pgx", u)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func dbName(t *testing.T, u string) string {
	t.Helper()
	p, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimPrefix(p.Path, "/")
}

// A query through pgx's database/sql driver, on a database that is new
// and empty.
func TestURL(t *testing.T) {
	u := URL(t)
	db := open(t, u)
	var sum int
	var name string
	if err := db.QueryRow(`SELECT 1 + 1, current_database()`).Scan(&sum, &name); err != nil {
		t.Fatal(err)
	}
	if sum != 2 || name != dbName(t, u) {
		t.Fatalf("got %d in %q, want 2 in %q", sum, name, dbName(t, u))
	}
	var tables int
	if err := db.QueryRow(`SELECT count(*) FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema')`).Scan(&tables); err != nil || tables != 0 {
		t.Fatalf("a new database holds %d tables (%v)", tables, err)
	}
	var enc string
	if err := db.QueryRow(`SHOW server_encoding`).Scan(&enc); err != nil || enc != "UTF8" {
		t.Fatalf("encoding %q (%v)", enc, err)
	}
	if _, err := db.Exec(`CREATE TABLE t (x text); INSERT INTO t VALUES ('全文検索')`); err != nil {
		t.Fatal(err)
	}
}

// Every call is a database of its own, dropped when its test ends, even
// with a connection still open to it.
func TestDatabasesAreDistinctAndDropped(t *testing.T) {
	var names sync.Map
	t.Run("group", func(t *testing.T) {
		for i := range 4 {
			t.Run(strconv.Itoa(i), func(t *testing.T) {
				t.Parallel()
				u := URL(t)
				if _, dup := names.LoadOrStore(dbName(t, u), i); dup {
					t.Errorf("database %s handed out twice", dbName(t, u))
				}
				db, err := sql.Open("pgx", u) // left open on purpose
				if err != nil {
					t.Fatal(err)
				}
				if _, err := db.Exec(`CREATE TABLE mine (n int)`); err != nil {
					t.Fatal(err)
				}
			})
		}
	})
	n := 0
	names.Range(func(k, _ any) bool {
		n++
		var exists bool
		if err := srv.db.QueryRow(`SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)`, k).Scan(&exists); err != nil || exists {
			t.Errorf("database %s still exists after its test (%v)", k, err)
		}
		return true
	})
	if n != 4 {
		t.Errorf("%d databases, want 4", n)
	}
}

// PIDEX_TEST_PG points the helper at an existing server; here the
// throwaway cluster stands in for one.
func TestEnvURL(t *testing.T) {
	URL(t) // the cluster (or the server PIDEX_TEST_PG names)
	t.Setenv(EnvURL, srv.admin)
	s, skip, err := start()
	if err != nil || skip != "" {
		t.Fatalf("start with %s: %v %s", EnvURL, err, skip)
	}
	t.Cleanup(func() { s.db.Close() })
	if s.cluster != nil {
		t.Fatal("started a cluster although " + EnvURL + " is set")
	}
	u, err := s.create(context.Background(), t)
	if err != nil {
		t.Fatal(err)
	}
	var one int
	if err := open(t, u).QueryRow(`SELECT 1`).Scan(&one); err != nil || one != 1 {
		t.Fatalf("query on %s: %v", u, err)
	}
	t.Setenv(EnvURL, "mysql://nope")
	if _, _, err := start(); err == nil {
		t.Error("a URL that is not postgres:// was accepted")
	}
}

// childMode makes TestChild a test binary of its own for TestTwoBinaries.
const childMode = "PGTEST_CHILD"

func TestChild(t *testing.T) {
	mode := os.Getenv(childMode)
	if mode == "" {
		t.Skip("run by TestTwoBinaries")
	}
	var one int
	if err := open(t, URL(t)).QueryRow(`SELECT 1`).Scan(&one); err != nil {
		t.Fatal(err)
	}
	fmt.Printf("cluster %s %d\n", srv.cluster.dir, srv.cluster.cmd.Process.Pid)
	if mode == "hang" {
		time.Sleep(time.Minute) // until killed
	}
}

// Two test binaries at once each get a cluster of their own; each cluster
// is stopped and removed when its binary ends, and stopped by the kernel
// when its binary is killed (its folder is then removed by the next
// cluster's start).
func TestTwoBinaries(t *testing.T) {
	URL(t)
	if srv.cluster == nil {
		t.Skip("no throwaway cluster (" + EnvURL + " is set)")
	}
	type child struct {
		cmd      *exec.Cmd
		dir      string
		pid      int
		lineRead chan struct{}
	}
	run := func(mode string) *child {
		c := &child{lineRead: make(chan struct{})}
		c.cmd = exec.Command(os.Args[0], "-test.run=^TestChild$", "-test.count=1")
		for _, kv := range os.Environ() {
			if !strings.HasPrefix(kv, EnvURL+"=") {
				c.cmd.Env = append(c.cmd.Env, kv)
			}
		}
		c.cmd.Env = append(c.cmd.Env, childMode+"="+mode)
		out, err := c.cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		c.cmd.Stderr = os.Stderr
		if err := c.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() {
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				if f := strings.Fields(sc.Text()); len(f) == 3 && f[0] == "cluster" {
					c.dir = f[1]
					c.pid, _ = strconv.Atoi(f[2])
					close(c.lineRead)
				}
			}
		}()
		return c
	}
	wait := func(c *child) {
		select {
		case <-c.lineRead:
		case <-time.After(2 * time.Minute):
			c.cmd.Process.Kill()
			t.Fatal("the child test binary did not start its cluster")
		}
	}
	a, b := run("exit"), run("hang")
	wait(a)
	wait(b)
	if a.dir == b.dir || a.dir == srv.cluster.dir || b.dir == srv.cluster.dir {
		t.Fatalf("clusters share a folder: %s, %s, %s", a.dir, b.dir, srv.cluster.dir)
	}
	if err := a.cmd.Wait(); err != nil {
		t.Fatalf("child: %v", err)
	}
	gone := func(pid int) bool {
		for range 200 {
			if !alive(pid) {
				return true
			}
			time.Sleep(50 * time.Millisecond)
		}
		return false
	}
	if !gone(a.pid) {
		t.Error("the server outlived its test binary")
	}
	if _, err := os.Stat(a.dir); !os.IsNotExist(err) {
		t.Errorf("cluster folder left behind: %v", err)
	}
	// The other one is killed: no TestMain, no cleanup.
	b.cmd.Process.Signal(syscall.SIGKILL)
	b.cmd.Wait()
	if runtime.GOOS == "linux" && !gone(b.pid) {
		t.Error("the server outlived its killed test binary")
	}
	if _, err := os.Stat(b.dir); err != nil {
		t.Fatalf("the killed binary's folder: %v", err)
	}
	removeStale(filepath.Dir(b.dir))
	if _, err := os.Stat(b.dir); !os.IsNotExist(err) {
		t.Errorf("stale cluster folder not removed: %v", err)
	}
	if _, err := os.Stat(srv.cluster.dir); err != nil {
		t.Errorf("removeStale removed a live cluster: %v", err)
	}
}
