//go:build unix

package pgtest

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// superuser is the role initdb creates (trust authentication: the socket
// is in a folder only this cluster uses).
const superuser = "pidex"

// cluster is a throwaway PostgreSQL cluster in a folder of its own:
// data/ (the cluster), the server's socket, server.log, and owner (the
// pid of the test binary that started it).
type cluster struct {
	dir  string
	bin  string
	cred *syscall.Credential
	cmd  *exec.Cmd
	done chan struct{} // closed when the server has exited
}

func (c *cluster) url(db string) string {
	return (&url.URL{Scheme: "postgres", User: url.User(superuser), Host: "", Path: "/" + db,
		RawQuery: "host=" + url.QueryEscape(c.dir) + "&sslmode=disable"}).String()
}

// runAs is the user the cluster runs as: nil for the current user, else
// (as root) nobody.
func runAs() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("nobody")
	if err != nil {
		return nil, fmt.Errorf("running as root, and no user nobody to run PostgreSQL as: %w", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), Groups: []uint32{}}, nil
}

// baseDir is where the cluster's folder goes: the temporary directory,
// unless another user could not reach it or the socket's path would be
// too long (Unix sockets: about 100 bytes).
func baseDir(cred *syscall.Credential) string {
	base := os.TempDir()
	if len(base) > 60 || (cred != nil && !traversable(base)) {
		return "/tmp"
	}
	return base
}

// traversable reports whether every folder of dir lets others through.
func traversable(dir string) bool {
	for d := dir; ; d = filepath.Dir(d) {
		st, err := os.Stat(d)
		if err != nil || st.Mode().Perm()&0o001 == 0 {
			return false
		}
		if d == filepath.Dir(d) {
			return true
		}
	}
}

func startCluster(bin string) (*cluster, error) {
	c, err := initCluster(bin)
	if err != nil {
		return nil, err
	}
	if err := c.launch(); err != nil {
		c.stop()
		return nil, err
	}
	return c, nil
}

// initCluster makes a new cluster's folder and data, without starting it.
func initCluster(bin string) (*cluster, error) {
	cred, err := runAs()
	if err != nil {
		return nil, err
	}
	base := baseDir(cred)
	removeStale(base)
	dir, err := os.MkdirTemp(base, dirPrefix+"*")
	if err != nil {
		return nil, err
	}
	c := &cluster{dir: dir, bin: bin, cred: cred}
	fail := func(err error) (*cluster, error) {
		os.RemoveAll(dir)
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "owner"), []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
		return fail(err)
	}
	if cred != nil {
		if err := os.Chown(dir, int(cred.Uid), int(cred.Gid)); err != nil {
			return fail(err)
		}
	}
	data := filepath.Join(dir, "data")
	initdb := exec.Command(filepath.Join(bin, "initdb"), "-D", data, "-U", superuser, "-A", "trust",
		"-E", "UTF8", "--no-locale", "--no-sync")
	initdb.Env = env()
	initdb.Dir = dir
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	if out, err := initdb.CombinedOutput(); err != nil {
		return fail(fmt.Errorf("initdb: %v\n%s", err, out))
	}
	return c, nil
}

// launch starts the cluster's server on its data and waits until it
// accepts connections.
func (c *cluster) launch() error {
	dir, bin, cred := c.dir, c.bin, c.cred
	data := filepath.Join(dir, "data")
	c.done = make(chan struct{})
	logf, err := os.OpenFile(filepath.Join(dir, "server.log"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer logf.Close()
	// Unix socket only, in the cluster's own folder: nothing to collide
	// with another test binary's cluster. Durability is not wanted.
	c.cmd = exec.Command(filepath.Join(bin, "postgres"), "-D", data, "-k", dir, "-p", "5432",
		"-c", "listen_addresses=", "-c", "fsync=off", "-c", "synchronous_commit=off",
		"-c", "full_page_writes=off", "-c", "max_connections=200", "-c", "log_min_messages=warning")
	c.cmd.Env = env()
	c.cmd.Dir = dir
	c.cmd.Stdout, c.cmd.Stderr = logf, logf
	c.cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Setpgid: true}
	setPdeathsig(c.cmd.SysProcAttr)
	started := make(chan error, 1)
	go func() {
		// The parent-death signal is sent when the thread that started the
		// child exits: keep this goroutine on its thread while the server runs.
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := c.cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		c.cmd.Wait()
		close(c.done)
	}()
	if err := <-started; err != nil {
		return fmt.Errorf("start postgres: %w", err)
	}
	return c.ready(60 * time.Second)
}

// ready waits until the server accepts connections.
func (c *cluster) ready(timeout time.Duration) error {
	db, err := sql.Open("pgx", c.url("postgres"))
	if err != nil {
		return err
	}
	defer db.Close()
	deadline := time.Now().Add(timeout)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err = db.PingContext(ctx)
		cancel()
		if err == nil {
			return nil
		}
		select {
		case <-c.done:
			return fmt.Errorf("postgres exited: %s", c.log())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("postgres not ready after %v: %v\n%s", timeout, err, c.log())
		}
	}
}

func (c *cluster) log() string {
	b, _ := os.ReadFile(filepath.Join(c.dir, "server.log"))
	return string(bytes.TrimSpace(b))
}

// stop shuts the server down (fast shutdown, then a kill) and removes the
// cluster's folder.
func (c *cluster) stop() {
	c.halt(syscall.SIGINT)
	os.RemoveAll(c.dir)
}

// halt stops the server with sig (SIGINT: fast shutdown, rolling back
// open transactions; SIGQUIT: immediate, as a crash) and waits for it.
func (c *cluster) halt(sig syscall.Signal) {
	if c.cmd != nil && c.cmd.Process != nil && c.done != nil {
		select {
		case <-c.done:
			return
		default:
		}
		c.cmd.Process.Signal(sig)
		select {
		case <-c.done:
		case <-time.After(20 * time.Second):
			c.cmd.Process.Kill()
			<-c.done
		}
	}
}

// env is the environment of initdb and postgres: this one without the
// PG* variables (PGDATA, PGHOST…) that would point them elsewhere.
func env() []string {
	var out []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PG") {
			out = append(out, kv)
		}
	}
	return out
}

// removeStale removes the folders of clusters whose test binary is gone
// (one that died before it could stop its cluster), stopping a server
// still running there (on Linux the kernel has stopped it already).
func removeStale(base string) {
	dirs, _ := filepath.Glob(filepath.Join(base, dirPrefix+"*"))
	for _, d := range dirs {
		owner, err := readPid(filepath.Join(d, "owner"))
		if err != nil || alive(owner) {
			continue
		}
		if pm, err := readPid(filepath.Join(d, "data", "postmaster.pid")); err == nil && alive(pm) {
			syscall.Kill(pm, syscall.SIGQUIT)
			for i := 0; i < 100 && alive(pm); i++ {
				time.Sleep(50 * time.Millisecond)
			}
		}
		os.RemoveAll(d)
	}
}

// readPid reads the number on a file's first line.
func readPid(p string) (int, error) {
	b, err := os.ReadFile(p)
	if err != nil {
		return 0, err
	}
	line, _, _ := strings.Cut(string(b), "\n")
	n, err := strconv.Atoi(strings.TrimSpace(line))
	if err == nil && n <= 0 {
		err = errors.New("not a pid")
	}
	return n, err
}

// alive reports whether a process runs (a zombie, dead but not yet reaped
// by an init that does not reap, does not count).
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	if err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true // no /proc: trust kill
	}
	// pid (comm) state …: the state follows the last ')'.
	if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) {
		return stat[i+2] != 'Z'
	}
	return true
}

// sigQuit is PostgreSQL's immediate shutdown.
const sigQuit = syscall.SIGQUIT

// canStart: a throwaway cluster can be started on this system.
const canStart = true

// requirePasswords rewrites pg_hba.conf so that every role but the
// superuser logs in with a password (SCRAM-SHA-256), reloads it, and
// waits until new connections are asked for one (the server reloads on
// its own time after the signal).
func (c *cluster) requirePasswords() error {
	hba := "local all " + superuser + " trust\nlocal all all scram-sha-256\n"
	if err := os.WriteFile(filepath.Join(c.dir, "data", "pg_hba.conf"), []byte(hba), 0o600); err != nil {
		return err
	}
	db, err := sql.Open("pgx", c.url("postgres"))
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := db.Exec(`SELECT pg_reload_conf()`); err != nil {
		return fmt.Errorf("reload the configuration: %w", err)
	}
	// A role that does not exist is refused for its name under trust,
	// for its password under scram-sha-256 (28P01).
	probe := strings.Replace(c.url("postgres"), "//"+superuser+"@", "//pgtest_probe@", 1)
	for i := 0; ; i++ {
		pdb, err := sql.Open("pgx", probe)
		if err != nil {
			return err
		}
		err = pdb.Ping()
		pdb.Close()
		if err != nil && strings.Contains(err.Error(), "28P01") {
			return nil
		}
		if i > 500 {
			return fmt.Errorf("the server did not take its new pg_hba.conf (%v)", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (c *cluster) socketDir() string { return c.dir }
