package main

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pidex-dev/pidex/internal/catalogtest"
	"github.com/pidex-dev/pidex/internal/pgtest"
)

// A role's password reaches the team catalog's server from PGPASSWORD, a
// .pgpass file, a connection service file, or PIDEX_PG holding the whole
// URL — never from a command line — on a server that asks every role for
// it (SCRAM). pidex team … --password-stdin sets it from standard input,
// as a verifier: the password is printed nowhere. A wrong or missing one
// is refused without being printed.
func TestTeamCredentials(t *testing.T) {
	const password = "s3cret-ann-7Qx"
	cl := pgtest.NewCluster(t)
	su := cl.URL(t)
	u, _ := url.Parse(su)
	db := strings.TrimPrefix(u.Path, "/")
	cli(t, 0, "-q", "team", "init", "--to", su, "--apply")
	code, out, errOut := pidexRun(t.Context(), password+"\n", "team", "add-machine", "m0", "--role", "ann", "--to", su, "--apply", "--password-stdin")
	if code != 0 || strings.Contains(out+errOut, password) || strings.Contains(out+errOut, "SCRAM-SHA-256$") || !strings.Contains(out, "verifier") {
		t.Fatalf("add-machine --password-stdin: exit %d\n%s%s", code, out, errOut)
	}
	if _, errOut := cliErr(t, 2, "team", "add-reader", "dash", "--password-stdin"); !strings.Contains(errOut, "--apply") {
		t.Errorf("--password-stdin without --apply: %s", errOut)
	}
	cl.RequirePasswords(t)

	root := t.TempDir()
	catalogtest.WriteFile(t, filepath.Join(root, "--w--", "s.jsonl"), `{"type":"session","version":3,"id":"c1","timestamp":"2026-05-01T10:00:00.000Z","cwd":"/w"}`+"\n"+
		userLine("c1-a", "", "hello")+"\n")
	local := []string{"--db", filepath.Join(t.TempDir(), "c.sqlite"), "--sessions", root, "--machine", "m0", "-q"}
	ann := pgtest.AsRole(su, "ann", "")
	push := func(want int, args ...string) string {
		t.Helper()
		code, out, errOut := pidexRun(context.Background(), "", append(append(local, "push"), args...)...)
		if code != want || strings.Contains(out+errOut, password) {
			t.Fatalf("push %v: exit %d, want %d\n%s%s", args, code, want, out, errOut)
		}
		return errOut
	}
	noPassfile := filepath.Join(t.TempDir(), "none")
	t.Setenv("PGPASSFILE", noPassfile)
	t.Setenv("PGPASSWORD", "")
	t.Setenv("PGSERVICEFILE", noPassfile)
	t.Setenv("PIDEX_PG", "")
	if errOut := push(1, "--to", ann); !strings.Contains(errOut, "password") {
		t.Errorf("without a password: %s", errOut)
	}
	t.Setenv("PGPASSWORD", "not-"+password)
	if errOut := push(1, "--to", ann); strings.Contains(errOut, "not-"+password) {
		t.Errorf("a wrong password is printed: %s", errOut)
	}
	t.Setenv("PGPASSWORD", password)
	push(0, "--to", ann)
	t.Setenv("PGPASSWORD", "")
	passfile := filepath.Join(t.TempDir(), "pgpass")
	// A Unix socket's host is localhost in .pgpass (as libpq has it).
	if err := os.WriteFile(passfile, []byte("localhost:5432:"+db+":ann:"+password+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PGPASSFILE", passfile)
	push(0, "--to", ann)
	t.Setenv("PGPASSFILE", noPassfile)
	service := filepath.Join(t.TempDir(), "pg_service.conf")
	if err := os.WriteFile(service, []byte("[team]\nhost="+cl.Dir()+"\nport=5432\ndbname="+db+"\nuser=ann\npassword="+password+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PGSERVICEFILE", service)
	t.Setenv("PIDEX_PG", "postgres://?service=team")
	push(0)
	t.Setenv("PGSERVICEFILE", noPassfile)
	t.Setenv("PIDEX_PG", pgtest.AsRole(su, "ann", password))
	if errOut := push(0); strings.Contains(errOut, "warning") {
		t.Errorf("a password in PIDEX_PG is warned of: %s", errOut)
	}
	t.Setenv("PIDEX_PG", "")
	if out := cli(t, 0, "--catalog", su, "sql", "SELECT count(*) AS n FROM sessions_v"); strings.TrimSpace(out) != "n\n1" {
		t.Errorf("the pushes' session: %s", out)
	}
}

// A password given on the command line of a command that runs until
// interrupted (push --watch, serve, mcp) is warned of, on stderr, and
// never printed; a one-shot command, or a URL from the environment, is
// not warned of.
func TestPasswordOnCommandLineWarned(t *testing.T) {
	const password = "s3cret-on-argv"
	nowhere := "postgres://ann:" + password + "@127.0.0.1:1/team?connect_timeout=2"
	local := []string{"--db", filepath.Join(t.TempDir(), "c.sqlite"), "--sessions", t.TempDir(), "-q"}
	for _, args := range [][]string{
		append(append([]string{}, local...), "--machine", "m", "push", "--watch", "--to", nowhere),
		{"serve", "--catalog", nowhere, "--addr", "127.0.0.1:0"},
		{"mcp", "--catalog", nowhere},
	} {
		_, out, errOut := pidexRun(t.Context(), "", args...)
		if !strings.Contains(errOut, "warning: the URL given with --") || !strings.Contains(errOut, "PGPASSWORD") {
			t.Errorf("pidex %s: no warning:\n%s", strings.Join(args, " "), errOut)
		}
		if strings.Contains(out+errOut, password) {
			t.Errorf("pidex %s printed the password:\n%s%s", strings.Join(args, " "), out, errOut)
		}
	}
	_, _, errOut := pidexRun(t.Context(), "", append(append([]string{}, local...), "--machine", "m", "push", "--to", nowhere)...)
	if strings.Contains(errOut, "warning") || strings.Contains(errOut, password) {
		t.Errorf("a one-shot push: %s", errOut)
	}
	t.Setenv("PIDEX_CATALOG", nowhere)
	_, _, errOut = pidexRun(t.Context(), "", "serve", "--addr", "127.0.0.1:0")
	if strings.Contains(errOut, "warning") || strings.Contains(errOut, password) {
		t.Errorf("serve with PIDEX_CATALOG: %s", errOut)
	}
}
