// Package pgtest gives tests a real PostgreSQL: URL(t) is the postgres://
// URL of a fresh, empty database, dropped when the test ends.
//
// Where the server comes from, in order:
//
//  1. PIDEX_TEST_PG, a postgres:// URL of a server on which its user may
//     CREATE DATABASE (its database is only used to create and drop the
//     tests' databases);
//  2. else a throwaway cluster, started once per test binary: initdb into a
//     new folder under the temporary directory, then the postgres server
//     in the foreground as a child of the test binary, listening on a Unix
//     socket in that folder only (no TCP port: test binaries running in
//     parallel cannot collide), fsync off. The binaries are found under
//     /usr/lib/postgresql/*/bin (Debian's postgresql package; the highest
//     version), else wherever initdb is on PATH. As root, the cluster runs
//     as user nobody (PostgreSQL refuses to run as root);
//  3. else the test is skipped, saying so (only when no PostgreSQL
//     binaries can be found: a cluster that fails to start fails the test).
//
// A package whose tests use URL stops the cluster after its tests with
//
//	func TestMain(m *testing.M) { pgtest.Main(m) }
//
// Without it, or when the test binary dies (a panic, a timeout, SIGKILL),
// the kernel stops the server with the binary (Linux: parent-death
// signal), and the next cluster started on the machine removes the folder
// left behind.
package pgtest

import (
	"cmp"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"
)

// EnvURL names the variable that points the tests at an existing server.
const EnvURL = "PIDEX_TEST_PG"

// dirPrefix starts the name of every throwaway cluster's folder.
const dirPrefix = "pidex-pgtest-"

var (
	once    sync.Once
	srv     *server // the server the tests' databases live on
	srvErr  error
	srvSkip string // why there is no server (no binaries)
)

// server is where URL creates databases: an admin URL and a pool on it.
type server struct {
	admin   string // URL of the maintenance database
	db      *sql.DB
	cluster *cluster // nil for PIDEX_TEST_PG
}

// URL returns the URL of a new, empty database on the test server,
// created for t and dropped (with any connection left open to it) when t
// and its subtests are done. Safe for parallel tests.
func URL(t testing.TB) string {
	t.Helper()
	once.Do(func() { srv, srvSkip, srvErr = start() })
	if srvSkip != "" {
		t.Skip(srvSkip)
	}
	if srvErr != nil {
		t.Fatalf("pgtest: %v", srvErr)
	}
	u, err := srv.create(context.Background(), t)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	return u
}

// Main runs the package's tests, then stops the throwaway cluster (if one
// was started) and removes its folder, and exits with the tests' status.
func Main(m *testing.M) {
	code := m.Run()
	Stop()
	os.Exit(code)
}

// Stop stops the throwaway cluster and removes its folder; later calls
// to URL fail. Main calls it.
func Stop() {
	once.Do(func() { srvErr = errors.New("stopped") })
	if srv == nil {
		return
	}
	srv.db.Close()
	if srv.cluster != nil {
		srv.cluster.stop()
	}
	srv, srvErr = nil, errors.New("pgtest: the server was stopped")
}

func start() (*server, string, error) {
	if env := os.Getenv(EnvURL); env != "" {
		s, err := connect(env)
		if err != nil {
			return nil, "", fmt.Errorf("%s: %w", EnvURL, err)
		}
		return s, "", nil
	}
	if !canStart {
		return nil, "pgtest: no throwaway PostgreSQL cluster on this system: set " + EnvURL + " to a server's postgres:// URL", nil
	}
	bin := findBin()
	if bin == "" {
		return nil, "pgtest: no PostgreSQL binaries (looked in /usr/lib/postgresql/*/bin and for initdb on PATH): " +
			"install Debian's postgresql package, or set " + EnvURL + " to a server's postgres:// URL", nil
	}
	c, err := startCluster(bin)
	if err != nil {
		return nil, "", err
	}
	s, err := connect(c.url("postgres"))
	if err != nil {
		c.stop()
		return nil, "", err
	}
	s.cluster = c
	return s, "", nil
}

func connect(admin string) (*server, error) {
	if _, err := url.Parse(admin); err != nil || !strings.HasPrefix(admin, "postgres") {
		return nil, fmt.Errorf("want a postgres:// URL, got %q", redact(admin))
	}
	db, err := sql.Open("pgx", admin)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(4)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("connect to %s: %w", redact(admin), err)
	}
	return &server{admin: admin, db: db}, nil
}

// create makes a database with a random name and registers its drop.
func (s *server) create(ctx context.Context, t testing.TB) (string, error) {
	var b [6]byte
	rand.Read(b[:])
	name := "pidex_test_" + hex.EncodeToString(b[:])
	// template0: an empty database whatever the server's template1 holds.
	if _, err := s.db.ExecContext(ctx, `CREATE DATABASE `+name+` TEMPLATE template0 ENCODING 'UTF8'`); err != nil {
		return "", fmt.Errorf("create database: %w", err)
	}
	t.Cleanup(func() {
		if _, err := s.db.ExecContext(context.Background(), `DROP DATABASE IF EXISTS `+name+` WITH (FORCE)`); err != nil {
			t.Errorf("pgtest: drop database %s: %v", name, err)
		}
		if err := dropRoles(context.Background(), s.db, name); err != nil {
			t.Errorf("pgtest: %v", err)
		}
	})
	u, _ := url.Parse(s.admin)
	u.Path = "/" + name
	u.RawPath = ""
	return u.String(), nil
}

// redact hides a password in a URL for messages.
func redact(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.User == nil {
		return s
	}
	return u.Redacted()
}

// findBin returns the folder holding initdb and postgres: the highest
// version under /usr/lib/postgresql, else initdb's folder on PATH.
func findBin() string {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	version := func(d string) float64 {
		v, _ := strconv.ParseFloat(filepath.Base(filepath.Dir(d)), 64)
		return v
	}
	slices.SortFunc(dirs, func(a, b string) int { return cmp.Compare(version(b), version(a)) })
	for _, d := range dirs {
		if isExec(filepath.Join(d, "initdb")) && isExec(filepath.Join(d, "postgres")) {
			return d
		}
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		if p, err := filepath.EvalSymlinks(p); err == nil && isExec(filepath.Join(filepath.Dir(p), "postgres")) {
			return filepath.Dir(p)
		}
	}
	return ""
}

func isExec(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0
}
