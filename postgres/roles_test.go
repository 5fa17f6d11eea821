package postgres_test

import (
	"context"
	"database/sql"
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/pgtest"
	"github.com/pidex-dev/pidex/postgres"
)

// team is a team catalog with roles (docs/team.md, Roles): ann may push
// machine a, bob machine b, dash only reads. Each URL logs in as its role.
type team struct {
	owner, ann, bob, dash string
}

func newTeam(t *testing.T) team {
	t.Helper()
	return newTeamIn(t, 0)
}

// newTeamIn is newTeam with the machine tables in partitions hash
// partitions by machine (0: plain).
func newTeamIn(t *testing.T, partitions int) team {
	t.Helper()
	owner := pgtest.URL(t)
	pgtest.RequireCreateRole(t, owner)
	ctx := context.Background()
	u, _ := url.Parse(owner)
	db := strings.TrimPrefix(u.Path, "/")
	tm := team{owner: owner, ann: pgtest.AsRole(owner, pgtest.Role(owner, "ann"), ""),
		bob: pgtest.AsRole(owner, pgtest.Role(owner, "bob"), ""), dash: pgtest.AsRole(owner, pgtest.Role(owner, "dash"), "")}
	st, err := postgres.Open(ctx, owner, postgres.Options{Migrate: true, Partitions: partitions})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	g := postgres.GroupsFor(db)
	var scripts []postgres.TeamScript
	init, err := postgres.TeamInit(db)
	if err != nil {
		t.Fatal(err)
	}
	scripts = append(scripts, init)
	for _, m := range [][2]string{{"a", "ann"}, {"b", "bob"}} {
		s, err := postgres.TeamAddMachine(g, m[0], pgtest.Role(owner, m[1]), "")
		if err != nil {
			t.Fatal(err)
		}
		scripts = append(scripts, s)
	}
	s, err := postgres.TeamAddReader(g, pgtest.Role(owner, "dash"), "")
	if err != nil {
		t.Fatal(err)
	}
	scripts = append(scripts, s)
	for _, s := range scripts {
		if err := st.ApplyTeam(ctx, s); err != nil {
			t.Fatalf("%v\n%s", err, s)
		}
	}
	return tm
}

// Each role pushes its machine, through the staging tables (row-level
// security refuses COPY), and the team catalog answers as with one role;
// a role pushing a machine not bound to it is refused before it writes.
func TestRolesPushTheirMachines(t *testing.T) {
	tm := newTeam(t)
	a, b := newMachine(t, "a"), newMachine(t, "b")
	a.write(t, "--w--/s.jsonl", header("s", "/w"), user("s1", "", "from a"))
	b.write(t, "--w--/t.jsonl", header("t", "/w"), user("t1", "", "from b"))
	a.push(t, tm.ann, postgres.PushOptions{})
	b.push(t, tm.bob, postgres.PushOptions{})
	r := reader(t, tm.dash)
	if ss := list(t, r, pidex.ListOptions{}); len(ss) != 2 {
		t.Fatalf("the reader lists %d sessions, want 2", len(ss))
	}
	if _, err := b.eng.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	_, err := b.eng.Push(context.Background(), tm.ann, postgres.PushOptions{Machine: "b"})
	if !errors.Is(err, pidex.ErrPermission) {
		t.Fatalf("ann pushing machine b: %v, want permission denied", err)
	}
	t.Log(err)
}

// In a catalog partitioned by machine, the policies on each partitioned
// table hold every role to its machines as on plain tables, and no role
// but the owner writes a partition directly (the partitions have no
// policies: pidex_grant gives the groups only SELECT on them).
func TestRolesOnPartitions(t *testing.T) {
	tm := newTeamIn(t, 4)
	a, b := newMachine(t, "a"), newMachine(t, "b")
	a.write(t, "--w--/s.jsonl", header("s", "/w"), user("s1", "", "from a"))
	b.write(t, "--w--/t.jsonl", header("t", "/w"), user("t1", "", "from b"))
	a.push(t, tm.ann, postgres.PushOptions{})
	b.push(t, tm.bob, postgres.PushOptions{})
	if ss := list(t, reader(t, tm.dash), pidex.ListOptions{}); len(ss) != 2 {
		t.Fatalf("the reader lists %d sessions, want 2", len(ss))
	}
	ann, err := sql.Open("pgx", tm.ann)
	if err != nil {
		t.Fatal(err)
	}
	defer ann.Close()
	var partition string
	if err := ann.QueryRow(`SELECT e.tableoid::regclass::text FROM entries e JOIN machines m ON m.id = e.machine_id WHERE m.name = 'b' LIMIT 1`).Scan(&partition); err != nil {
		t.Fatal(err)
	}
	if res, err := ann.Exec(`DELETE FROM entries WHERE machine_id = (SELECT id FROM machines WHERE name = 'b')`); err != nil {
		t.Fatal(err)
	} else if n, _ := res.RowsAffected(); n != 0 {
		t.Errorf("ann deleted %d of b's entries through the partitioned table", n)
	}
	for _, q := range []string{`DELETE FROM ` + partition, `UPDATE ` + partition + ` SET ts = 'x'`,
		`INSERT INTO ` + partition + ` SELECT * FROM ` + partition} {
		if _, err := ann.Exec(q); err == nil || !strings.Contains(err.Error(), "permission denied") {
			t.Errorf("ann: %s: %v, want permission denied", q, err)
		}
	}
	var left int
	if err := ann.QueryRow(`SELECT count(*) FROM ` + partition + ` WHERE machine_id = (SELECT id FROM machines WHERE name = 'b')`).Scan(&left); err != nil || left == 0 {
		t.Errorf("b's entries in %s: %d (%v)", partition, left, err)
	}
}

// A pushing role that holds the call lock (a session left open with
// calls_lock's row locked) stalls another machine's push only for the
// bounded wait: the push then fails saying what holds it and how the
// owner ends it, and goes through once the lock is let go.
func TestCallLockHeldStallsNoPushForEver(t *testing.T) {
	defer postgres.SetCallsWait(300 * time.Millisecond)()
	tm := newTeam(t)
	a, b := newMachine(t, "a"), newMachine(t, "b")
	a.write(t, "--w--/s.jsonl", header("s", "/w"), user("s1", "", "from a"))
	b.write(t, "--w--/t.jsonl", header("t", "/w"), user("t1", "", "from b"))
	a.push(t, tm.ann, postgres.PushOptions{})
	ann, err := sql.Open("pgx", tm.ann)
	if err != nil {
		t.Fatal(err)
	}
	defer ann.Close()
	hold, err := ann.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer hold.Rollback()
	if _, err := hold.Exec(`SELECT one FROM calls_lock FOR UPDATE`); err != nil {
		t.Fatal(err)
	}
	if _, err := b.eng.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // a push that waits for ever
	defer cancel()
	start := time.Now()
	_, err = b.eng.Push(ctx, tm.bob, postgres.PushOptions{Machine: "b"})
	if err == nil || !strings.Contains(err.Error(), "call lock (calls_lock) for over 300ms") || !strings.Contains(err.Error(), "pg_terminate_backend") {
		t.Fatalf("bob's push beside ann's held call lock: %v", err)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Fatalf("the push waited %s", d)
	}
	t.Log(err)
	hold.Rollback()
	b.push(t, tm.bob, postgres.PushOptions{})
	if ss := list(t, reader(t, tm.dash), pidex.ListOptions{}); len(ss) != 2 {
		t.Fatalf("after the lock is let go, the reader lists %d sessions, want 2", len(ss))
	}
}
