package main

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pidex-dev/pidex/internal/catalogtest"
	"github.com/pidex-dev/pidex/internal/pgtest"
	"github.com/pidex-dev/pidex/internal/render"
)

// pidexRun runs pidex in this process as cli does, without failing the
// test (so that a goroutine may call it), with stdin as its standard
// input; stderr ends with the error as pidex prints it.
func pidexRun(ctx context.Context, stdin string, args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	a := newAppIO(&render.IOStreams{Out: &out, ErrOut: &errb, Width: 120, Height: 40})
	a.stdin = strings.NewReader(stdin)
	err := a.execute(ctx, args)
	a.fail(err)
	return exitCode(err, a.warned), out.String(), errb.String()
}

// cliErr is cli with the standard error too.
func cliErr(t *testing.T, want int, args ...string) (string, string) {
	t.Helper()
	code, out, errOut := pidexRun(t.Context(), "", args...)
	if code != want {
		t.Fatalf("pidex %s: exit %d, want %d\n%s", strings.Join(args, " "), code, want, errOut)
	}
	return out, errOut
}

// teamRoles is a team catalog set up as docs/team.md's Roles say, by its
// owner, a role that owns the database and may create roles (not a
// superuser): ann may push machine m0, bob m1, dash only reads. Each URL
// logs in as its role (the throwaway cluster trusts its socket: the
// roles are what is tested here; TestTeamCredentials asks for passwords).
type teamRoles struct {
	su, owner, ann, bob, dash string
	names                     map[string]string // ann, bob, dash, owner: their role names
}

func newTeamRoles(t *testing.T) *teamRoles {
	t.Helper()
	su := pgtest.URL(t)
	pgtest.RequireCreateRole(t, su)
	tr := &teamRoles{su: su, names: map[string]string{}}
	for _, n := range []string{"owner", "ann", "bob", "dash"} {
		tr.names[n] = pgtest.Role(su, n)
	}
	u, _ := url.Parse(su)
	db := strings.TrimPrefix(u.Path, "/")
	sqlExec(t, su, `CREATE ROLE `+tr.names["owner"]+` LOGIN CREATEROLE`)
	sqlExec(t, su, `ALTER DATABASE `+db+` OWNER TO `+tr.names["owner"])
	tr.owner = pgtest.AsRole(su, tr.names["owner"], "")
	tr.ann = pgtest.AsRole(su, tr.names["ann"], "")
	tr.bob = pgtest.AsRole(su, tr.names["bob"], "")
	tr.dash = pgtest.AsRole(su, tr.names["dash"], "")
	cli(t, 0, "-q", "team", "init", "--to", tr.owner, "--apply")
	cli(t, 0, "-q", "team", "add-machine", "m0", "--role", tr.names["ann"], "--to", tr.owner, "--apply")
	cli(t, 0, "-q", "team", "add-machine", "m1", "--role", tr.names["bob"], "--to", tr.owner, "--apply")
	// The printed SQL is what --apply runs: run it as the owner would, in psql.
	script := cli(t, 0, "team", "add-reader", tr.names["dash"], "--to", tr.owner)
	sqlExec(t, tr.owner, script)
	// init again (after an upgrade) changes nothing, and needs no
	// CREATEROLE once the groups exist.
	sqlExec(t, su, `ALTER ROLE `+tr.names["owner"]+` NOCREATEROLE`)
	cli(t, 0, "-q", "team", "init", "--to", tr.owner, "--apply")
	sqlExec(t, su, `ALTER ROLE `+tr.names["owner"]+` CREATEROLE`)
	return tr
}

// sqlExec runs statements (a script of several is one simple query).
func sqlExec(t *testing.T, url, stmts string) {
	t.Helper()
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(stmts); err != nil {
		t.Fatalf("%s: %v", stmts, err)
	}
}

// machineDump is every row the team catalog holds of a machine, byte for
// byte (ids and times included), in every table with a machine's rows,
// its row of machines, the cross-machine flags of its files and the roles
// bound to it.
func machineDump(t *testing.T, url, machine string) string {
	t.Helper()
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var tables []string
	rows, err := db.Query(`SELECT table_name FROM information_schema.columns WHERE column_name = 'machine_id' AND table_schema = current_schema()
		AND table_name IN (SELECT table_name FROM information_schema.tables WHERE table_type = 'BASE TABLE') ORDER BY table_name`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var n string
		rows.Scan(&n)
		tables = append(tables, n)
	}
	rows.Close()
	if len(tables) < 20 {
		t.Fatalf("%d tables of machine rows: %v", len(tables), tables)
	}
	var parts []string
	q := func(what, stmt string) {
		var s sql.NullString
		if err := db.QueryRow(`SELECT string_agg(x, E'\n' ORDER BY x) FROM (`+stmt+`) y`, machine).Scan(&s); err != nil {
			t.Fatalf("dump %s: %v", what, err)
		}
		parts = append(parts, fmt.Sprintf("== %s (%d bytes)\n%s", what, len(s.String), s.String))
	}
	for _, table := range tables {
		q(table, `SELECT to_jsonb(t)::text AS x FROM `+table+` t WHERE machine_id = (SELECT id FROM machines WHERE name = $1)`)
	}
	q("machines", `SELECT to_jsonb(m)::text AS x FROM machines m WHERE name = $1`)
	q("usage_xm", `SELECT to_jsonb(x)::text AS x FROM usage_xm x JOIN files f ON f.id = x.file_id WHERE f.machine_id = (SELECT id FROM machines WHERE name = $1)`)
	q("machine_roles", `SELECT to_jsonb(r)::text AS x FROM machine_roles r WHERE machine = $1`)
	return strings.Join(parts, "\n")
}

// A team catalog with roles (docs/team.md, Roles), each developer's role
// pushing its own machine, and a reader: see the subtests.
func TestTeamRoles(t *testing.T) {
	c := newPushCorpusN(t, 24) // forks, branches, and calls on both machines (copies)
	tr := newTeamRoles(t)
	cli(t, 0, c.args(0, "--no-refresh", "push", "--to", tr.ann)...)
	cli(t, 0, c.args(1, "--no-refresh", "push", "--to", tr.bob)...)
	// The rows the roles push under row-level security (through staging
	// tables) are the ones the owner's push writes (COPY).
	if got, want := teamDump(t, tr.su), c.fresh(t); got != want {
		t.Fatalf("pushed by the machines' roles, the team catalog differs from the owner's push:\n%s", firstDiff(want, got))
	}
	// Calls on both machines: the roles derived cross-machine flags
	// (through pidex_derive_calls).
	if !strings.Contains(teamDump(t, tr.su), "== usage_xm\nm") {
		t.Fatal("no cross-machine call flags: the corpus holds no call on two machines")
	}
	t.Run("each machine its own", func(t *testing.T) { eachMachineItsOwn(t, c, tr) })
	t.Run("reader", func(t *testing.T) { readerReadsOnly(t, c, tr) })
	t.Run("revoke", func(t *testing.T) { revoked(t, c, tr) })
}

// A role whose machine is taken pushes it no more (its next statement is
// refused); a reader revoked reads no more; the rows stay.
func revoked(t *testing.T, c *pushCorpus, tr *teamRoles) {
	before := machineDump(t, tr.su, "m0")
	cli(t, 0, "-q", "team", "revoke", tr.names["ann"], "m0", "--to", tr.owner, "--apply")
	if _, errOut := cliErr(t, 1, c.args(0, "--no-refresh", "push", "--to", tr.ann)...); !strings.Contains(errOut, "permission denied") {
		t.Errorf("ann's push after her machine was taken: %s", errOut)
	}
	cli(t, 0, "-q", "team", "revoke", tr.names["dash"], "--to", tr.owner, "--apply")
	if _, errOut := cliErr(t, 1, "--catalog", tr.dash, "list"); !strings.Contains(errOut, "permission denied") {
		t.Errorf("dash's list after revoke: %s", errOut)
	}
	rows := func(dump string) string { r, _, _ := strings.Cut(dump, "== machine_roles"); return r }
	if after := machineDump(t, tr.su, "m0"); rows(after) != rows(before) {
		t.Errorf("m0's rows changed with its role's revocation:\n%s", firstDiff(before, after))
	}
	cli(t, 0, "-q", "team", "add-machine", "m0", "--role", tr.names["bob"], "--to", tr.owner, "--apply")
	cli(t, 0, c.args(0, "--no-refresh", "push", "--to", tr.bob)...) // another role may take the machine on
}

// Each developer's role pushes its own machine, and only it: pushing,
// deleting or rewriting the other's machine — with its own role and its
// own machine name, with a forged --machine, or with any statement its
// credentials allow — is refused, and the other machine's rows stay byte
// for byte as they were.
func eachMachineItsOwn(t *testing.T, c *pushCorpus, tr *teamRoles) {
	for _, attack := range []struct {
		who, url, victim, own string
		root                  int
	}{{"ann", tr.ann, "m1", "m0", 0}, {"bob", tr.bob, "m0", "m1", 1}} {
		before := machineDump(t, tr.su, attack.victim)
		if !strings.Contains(before, `"path"`) {
			t.Fatalf("%s has no files to protect:\n%s", attack.victim, before)
		}
		// A forged --machine: its own files, and an empty root (which
		// would remove every file of the machine).
		_, errOut := cliErr(t, 1, "--db", c.dbs[attack.root], "--sessions", c.roots[attack.root], "--machine", attack.victim, "-q",
			"--no-refresh", "push", "--to", attack.url)
		if !strings.Contains(errOut, "permission denied") || !strings.Contains(errOut, attack.victim) {
			t.Errorf("%s pushing %s: %s", attack.who, attack.victim, errOut)
		}
		empty := t.TempDir()
		_, errOut = cliErr(t, 1, "--db", filepath.Join(t.TempDir(), "e.sqlite"), "--sessions", empty, "--machine", attack.victim, "-q",
			"push", "--to", attack.url, "--json")
		if !strings.Contains(errOut, "permission denied") {
			t.Errorf("%s pushing an empty %s: %s", attack.who, attack.victim, errOut)
		}
		rawAttacks(t, attack.url, attack.victim, attack.own)
		if after := machineDump(t, tr.su, attack.victim); after != before {
			t.Fatalf("%s changed %s's rows:\n%s", attack.who, attack.victim, firstDiff(before, after))
		}
	}
	// Each still pushes its own machine.
	cli(t, 0, c.args(0, "--no-refresh", "push", "--to", tr.ann)...)
}

// rawAttacks runs, with a role's credentials, statements that would
// write another machine's rows: each is refused (an error) or finds
// nothing it may change (no row affected).
func rawAttacks(t *testing.T, url, victim, own string) {
	t.Helper()
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	var vid, oid int64
	if err := db.QueryRow(`SELECT id FROM machines WHERE name = $1`, victim).Scan(&vid); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow(`SELECT id FROM machines WHERE name = $1`, own).Scan(&oid); err != nil {
		t.Fatal(err)
	}
	v, o := fmt.Sprint(vid), fmt.Sprint(oid)
	for _, stmt := range []string{
		`DELETE FROM files WHERE machine_id = ` + v,
		`DELETE FROM entries WHERE machine_id = ` + v,
		`DELETE FROM machines WHERE id = ` + v,
		`DELETE FROM push_state WHERE machine_id = ` + v,
		`UPDATE machines SET name = 'taken' WHERE id = ` + v,
		`UPDATE sessions SET name = 'rewritten' WHERE machine_id = ` + v,
		`UPDATE line_chunks SET raw = '\x7b7d' WHERE machine_id = ` + v,
		`DELETE FROM line_chunks WHERE machine_id = ` + v,
		`UPDATE usage_rollup SET cost = 0 WHERE machine_id = ` + v,
		`UPDATE push_state SET text_entries = 0, files = 0 WHERE machine_id = ` + v,
		`UPDATE files SET machine_id = ` + o + ` WHERE machine_id = ` + v, // take its files
		`UPDATE files SET machine_id = ` + v + ` WHERE machine_id = ` + o, // give it one's own
		`INSERT INTO files (machine_id, path, root, kind) VALUES (` + v + `, '/planted', '/', 'session')`,
		`INSERT INTO sessions (file_id, machine_id, session_id, version) SELECT id, machine_id, 'planted', 3 FROM files WHERE machine_id = ` + v + ` LIMIT 1`,
		`INSERT INTO entries (file_id, "offset", machine_id, length, line, seq, id, type) SELECT id, 999999999, ` + o + `, 1, 1, 1, 'x', 'message' FROM files WHERE machine_id = ` + v + ` LIMIT 1`,
		`INSERT INTO labels (file_id, target_id, machine_id, label, "offset") SELECT id, 'x', machine_id, 'planted', 0 FROM files WHERE machine_id = ` + v + ` LIMIT 1`,
		// An upsert whose proposed row is its own machine's, landing on the
		// other machine's row.
		`INSERT INTO sessions (file_id, machine_id, session_id, version) SELECT file_id, ` + o + `, 'x', 3 FROM sessions WHERE machine_id = ` + v + `
			ON CONFLICT (file_id) DO UPDATE SET name = 'rewritten'`,
		`INSERT INTO machines (name) VALUES ('` + victim + `') ON CONFLICT (name) DO UPDATE SET derivation = 0`,
		`INSERT INTO machines (name) VALUES ('` + victim + `-2')`,
		`INSERT INTO machine_roles (machine, role) VALUES ('` + victim + `', current_user)`,
		`UPDATE machine_roles SET role = current_user`,
		`DELETE FROM machine_roles`,
		`INSERT INTO team_roles (role, may) VALUES (current_user, 'push')`,
		`DELETE FROM usage_xm`,
		`INSERT INTO usage_xm (file_id, "offset", is_copy, call_active) SELECT file_id, "offset", true, false FROM usage WHERE machine_id = ` + v,
		`TRUNCATE files CASCADE`,
		`TRUNCATE usage_rollup`,
		`ALTER TABLE files DISABLE ROW LEVEL SECURITY`,
		`DROP POLICY pidex_own ON sessions`,
		`CREATE POLICY mine ON sessions FOR ALL USING (true)`,
		`SELECT pidex_grant()`,
		`CREATE TABLE planted (id int)`,
		`CREATE FUNCTION planted() RETURNS int LANGUAGE sql AS 'SELECT 1'`,
		`SELECT machine_id FROM push_locks WHERE machine_id = ` + v + ` FOR UPDATE`,
		// A temporary table of its own in the place of machine_roles
		// (searched first) does not reach the policies.
		`CREATE TEMP TABLE machine_roles (machine text, role name); INSERT INTO pg_temp.machine_roles VALUES ('` + victim + `', current_user);
			UPDATE sessions SET name = 'rewritten' WHERE machine_id = ` + v,
		`CREATE TEMP TABLE machines (id int, name text); INSERT INTO pg_temp.machines VALUES (` + v + `, '` + own + `');
			DELETE FROM entries WHERE machine_id = ` + v,
		// Deriving the cross-machine flags again changes nothing: they are
		// derived from the rows as they are.
		`SELECT pidex_derive_calls(ARRAY(SELECT DISTINCT entry_id FROM usage))`,
	} {
		res, err := db.Exec(stmt)
		db.Exec(`DISCARD ALL`) // its temporary tables go
		if err != nil || strings.HasPrefix(stmt, "SELECT pidex_derive_calls") {
			continue // refused (or allowed, and checked by the dump)
		}
		if n, _ := res.RowsAffected(); n != 0 {
			t.Errorf("with the credentials of %s's neighbour, %s: %d rows affected", victim, stmt, n)
		}
	}
	// No role may take another's name, nor the owner's.
	var owner string
	if err := db.QueryRow(`SELECT tableowner FROM pg_tables WHERE tablename = 'files' AND schemaname = current_schema()`).Scan(&owner); err != nil {
		t.Fatal(err)
	}
	for _, role := range []string{victimRole(t, db, victim), owner} {
		if _, err := db.Exec(`SET ROLE ` + ident(role)); err == nil {
			t.Errorf("SET ROLE %s succeeded", role)
		}
		db.Exec(`RESET ROLE`)
	}
}

// victimRole is a role bound to machine (to try SET ROLE to it).
func victimRole(t *testing.T, db *sql.DB, machine string) string {
	t.Helper()
	var role string
	if err := db.QueryRow(`SELECT role FROM machine_roles WHERE machine = $1 LIMIT 1`, machine).Scan(&role); err != nil {
		t.Fatal(err)
	}
	return role
}

func ident(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// A reader's role reads every command's answer as the owner does, and
// can write nothing, nor take any lock a push takes; whatever it holds
// (every advisory lock pidex ever used, every table it may lock, an open
// snapshot) stalls no push.
func readerReadsOnly(t *testing.T, c *pushCorpus, tr *teamRoles) {
	for _, args := range [][]string{{"list", "--json"}, {"search", "answer", "--json"}, {"cost", "--json", "--by", "machine"},
		{"stats", "--json"}, {"show", "--json", "--machine", "m1", "b003"}, {"tree", "--json", "--machine", "m0", "k001"},
		{"path", "--json", "--machine", "m0", "k001"}, {"sql", "--json", "SELECT machine, count(*) AS n FROM sessions_v GROUP BY machine ORDER BY machine"}} {
		owner := cli(t, 0, append([]string{"--catalog", tr.su}, args...)...)
		reader := cli(t, 0, append([]string{"--catalog", tr.dash}, args...)...)
		if reader != owner || len(reader) < 40 {
			t.Errorf("pidex %s as the reader:\n%s", strings.Join(args, " "), firstDiff(owner, reader))
		}
	}
	// pidex sql: a write is refused as ever; what the reader's role may not
	// do is "permission denied", not a write.
	_, errOut := cliErr(t, 2, "--catalog", tr.dash, "sql", "WITH gone AS (DELETE FROM files RETURNING id) SELECT count(*) FROM gone")
	if !strings.Contains(errOut, "would write") {
		t.Errorf("sql DELETE as the reader: %s", errOut)
	}
	for _, stmt := range []string{"SELECT pidex_derive_calls('{}')", "SELECT pidex_grant()"} {
		_, errOut := cliErr(t, 4, "--catalog", tr.dash, "sql", stmt)
		if !strings.Contains(errOut, "permission denied") || strings.Contains(errOut, "would write") {
			t.Errorf("sql %s as the reader: %s", stmt, errOut)
		}
	}
	// pidex sql runs as the reading group whoever connects: even the
	// owner's statement may not take a push's lock.
	if _, errOut := cliErr(t, 4, "--catalog", tr.owner, "sql", "SELECT pidex_derive_calls('{}')"); !strings.Contains(errOut, "permission denied") {
		t.Errorf("sql as the owner runs as the reading group: %s", errOut)
	}
	// A push as the reader.
	if _, errOut := cliErr(t, 1, c.args(0, "--no-refresh", "push", "--to", tr.dash)...); !strings.Contains(errOut, "permission denied") {
		t.Errorf("the reader pushing: %s", errOut)
	}
	// Its own statements: no write, no push lock.
	db, err := sql.Open("pgx", tr.dash)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, stmt := range []string{
		`DELETE FROM files`, `UPDATE sessions SET name = 'x'`, `INSERT INTO machines (name) VALUES ('x')`, `TRUNCATE entries`,
		`SELECT machine_id FROM push_locks FOR UPDATE`, `SELECT one FROM calls_lock FOR UPDATE`, `SELECT machine_id FROM push_locks FOR KEY SHARE`,
		`LOCK TABLE calls_lock IN ROW SHARE MODE`, `LOCK TABLE push_locks IN SHARE MODE`, `LOCK TABLE files IN SHARE MODE`,
		`SELECT id FROM machines FOR SHARE`, `SELECT id FROM files FOR KEY SHARE`,
		`SELECT pidex_derive_calls('{}')`, `CREATE TEMP TABLE x (id int)`, `SELECT nextval('files_id_seq')`,
	} {
		if _, err := db.Exec(`BEGIN; ` + stmt + `; ROLLBACK`); err == nil {
			t.Errorf("the reader's role may: %s", stmt)
		}
		db.Exec(`ROLLBACK`)
	}
	// The reader holds whatever it can: every advisory lock pidex's pushes
	// and migrations ever took, a lock on every table it may lock, an open
	// transaction with its snapshot. A push that adds, appends and removes
	// files (and so derives call flags) goes through all the same.
	hold, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer hold.Rollback()
	for _, stmt := range []string{
		`SELECT pg_advisory_lock(x'70696478'::int)`, `SELECT pg_advisory_lock(x'70696478'::int, id) FROM machines`,
		`SELECT pg_advisory_xact_lock(hashtext('pidex calls'))`, `SELECT pg_advisory_lock(hashtext('pidex calls'))`,
		`SELECT count(*) FROM files`,
	} {
		if _, err := hold.Exec(stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	var locked int
	rows, err := hold.Query(`SELECT tablename FROM pg_tables WHERE schemaname = current_schema()`)
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for rows.Next() {
		var n string
		rows.Scan(&n)
		tables = append(tables, n)
	}
	rows.Close()
	for _, table := range tables {
		if _, err := hold.Exec(`SAVEPOINT s; LOCK TABLE ` + table + ` IN ACCESS SHARE MODE; RELEASE s`); err != nil {
			hold.Exec(`ROLLBACK TO SAVEPOINT s`)
			continue
		}
		locked++
	}
	if locked < 20 {
		t.Fatalf("the reader locked %d tables", locked)
	}
	root := c.roots[0]
	catalogtest.AppendFile(t, filepath.Join(root, "--w-p1--", "k001.jsonl"), userLine("k001-new", "k001-059", "an appended question")+"\n")
	if err := os.Remove(filepath.Join(root, "--w-p2--", "k002.jsonl")); err != nil {
		t.Fatal(err)
	}
	catalogtest.WriteFile(t, filepath.Join(root, "--w-p9--", "new.jsonl"), `{"type":"session","version":3,"id":"n001","timestamp":"2026-05-01T10:00:00.000Z","cwd":"/w/p9"}`+"\n"+
		userLine("n001-a", "", "a new session")+"\n")
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	done := make(chan string, 1)
	go func() {
		code, out, errOut := pidexRun(ctx, "", c.args(0, "push", "--to", tr.ann, "--json")...)
		done <- fmt.Sprintf("exit %d\n%s%s", code, out, errOut)
	}()
	select {
	case got := <-done:
		if !strings.HasPrefix(got, "exit 0") && !strings.HasPrefix(got, "exit 3") || !strings.Contains(got, `"removed": 1`) || !strings.Contains(got, `"new": 1`) {
			t.Fatalf("the push beside the reader's locks: %s", got)
		}
	case <-time.After(90 * time.Second):
		t.Fatal("a reader's locks stalled a push for 90 s")
	}
}
