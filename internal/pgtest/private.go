package pgtest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"testing"
)

// Cluster is a throwaway cluster of one test's own, which the test may
// stop and start again (a fault test: the server going away in the
// middle of a push). It is removed when the test ends.
type Cluster struct {
	c *cluster
}

// NewCluster starts a cluster for t alone (skipping t, as URL does, where
// none can be had; PIDEX_TEST_PG's server cannot be stopped by a test, so
// it does not serve here).
func NewCluster(t testing.TB) *Cluster {
	t.Helper()
	if !canStart {
		t.Skip("pgtest: no throwaway PostgreSQL cluster on this system")
	}
	bin := findBin()
	if bin == "" {
		t.Skip("pgtest: no PostgreSQL binaries (looked in /usr/lib/postgresql/*/bin and for initdb on PATH)")
	}
	c, err := startCluster(bin)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	t.Cleanup(c.stop)
	return &Cluster{c: c}
}

// URL creates a database on the cluster and returns its URL.
func (c *Cluster) URL(t testing.TB) string {
	t.Helper()
	db, err := sql.Open("pgx", c.c.url("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var b [6]byte
	rand.Read(b[:])
	name := "pidex_private_" + hex.EncodeToString(b[:])
	if _, err := db.ExecContext(context.Background(), `CREATE DATABASE `+name+` TEMPLATE template0 ENCODING 'UTF8'`); err != nil {
		t.Fatalf("pgtest: create database: %v", err)
	}
	u, _ := url.Parse(c.c.url(name))
	return u.String()
}

// Crash stops the server at once, as a crash or a power cut would
// (immediate shutdown: open transactions are lost, connections drop).
func (c *Cluster) Crash() { c.c.halt(sigQuit) }

// Start starts the stopped server again on its data.
func (c *Cluster) Start(t testing.TB) {
	t.Helper()
	if err := c.c.launch(); err != nil {
		t.Fatalf("pgtest: restart: %v", err)
	}
}

// RequirePasswords makes the cluster ask every role but its superuser for
// a password (SCRAM-SHA-256 on the socket) from now on, as a team
// server does: a test of where a role's password comes from (PGPASSWORD,
// .pgpass, a service file) then fails without the right one. The
// superuser's URL (URL) needs none.
func (c *Cluster) RequirePasswords(t testing.TB) {
	t.Helper()
	if err := c.c.requirePasswords(); err != nil {
		t.Fatalf("pgtest: %v", err)
	}
}

// Dir is the folder of the cluster's Unix socket: its URLs' host.
func (c *Cluster) Dir() string { return c.c.socketDir() }
