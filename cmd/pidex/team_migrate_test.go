package main

import (
	"bytes"
	"context"
	"database/sql"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/pressly/goose/v3"

	"github.com/pidex-dev/pidex/internal/pgtest"
	"github.com/pidex-dev/pidex/internal/render"
	pgmigrations "github.com/pidex-dev/pidex/migrations/postgres"
)

// A team catalog pushed before the keys started with the machine
// (migration 00010) is migrated by team init --partitions 4 into machine
// keys and hash partitions, rows kept: every read answers as before, and
// the machines push on.
func TestTeamCatalogMigratesToMachineKeys(t *testing.T) {
	url := pgtest.URL(t)
	pgtest.RequireCreateRole(t, url)
	base := t.TempDir()
	roots := teamCorpus(t, base)
	machines := []string{"laptop", "desktop", "server"}
	push := func() {
		t.Helper()
		for i, r := range roots {
			cli(t, 3, "--db", filepath.Join(base, machines[i]+".sqlite"), "--sessions", r, "--machine", machines[i], "-q", "push", "--to", url)
		}
	}
	push()
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// Back to 00010's schema, as a pidex of then left it (rows and all).
	p, err := goose.NewProvider(goose.DialectPostgres, db, pgmigrations.FS)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	// The answers at 00011 on plain tables are those pushed; Down and Up
	// must keep them.
	team := []string{"--catalog", url}
	args := [][]string{{"list", "--json"}, {"search", "--json", "--limit", "30", "--", "the"},
		{"search", "--json", "--", `"quick brown fox"`}, {"search", "--json", "--sessions-only", "--", "session OR model"},
		{"cost", "--json", "--by", "day,model,machine"}, {"cost", "--json", "--by", "session", "--branch", "active"},
		{"stats", "--json"}, {"sql", "--json", "SELECT * FROM usage_v ORDER BY machine, path, 3"},
		{"sql", "--json", "SELECT * FROM tool_calls_v ORDER BY machine, path, 3, call_id"},
		{"sql", "--json", "SELECT * FROM active_path_v ORDER BY machine, path, 3, depth"}}
	list := cli(t, -1, append(team, "list", "--json", "--machine", "desktop")...)
	for _, m := range regexp.MustCompile(`"path":"([^"]+)"`).FindAllStringSubmatch(list, 6) {
		args = append(args, []string{"show", "--json", "--machine", "desktop", m[1]}, []string{"tree", "--json", "--machine", "desktop", m[1]},
			[]string{"show", "--context", "--json", "--machine", "desktop", m[1]})
	}
	before := make([]string, len(args))
	for i, a := range args {
		before[i] = cli(t, -1, append(team, a...)...)
	}
	var overrides int
	if err := db.QueryRow(`SELECT count(*) FROM usage_xm`).Scan(&overrides); err != nil || overrides == 0 {
		t.Fatalf("%d cross-machine overrides (%v)", overrides, err)
	}
	if _, err := p.DownTo(ctx, 10); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`DELETE FROM migration_sums WHERE version > 10`); err != nil {
		t.Fatal(err)
	}
	var xmMachine int
	var identity string
	if err := db.QueryRow(`SELECT (SELECT count(*) FROM information_schema.columns WHERE table_name = 'usage_xm' AND column_name = 'machine_id'),
			(SELECT is_identity FROM information_schema.columns WHERE table_name = 'files' AND column_name = 'id')`).Scan(&xmMachine, &identity); err != nil ||
		xmMachine != 0 || identity != "YES" {
		t.Fatalf("not 00010's schema: usage_xm.machine_id %d, files.id identity %s (%v)", xmMachine, identity, err)
	}

	cli(t, 0, "-q", "team", "init", "--to", url, "--apply", "--partitions", "4")
	checkLayout(t, url, 4)
	var kept, unfilled int
	if err := db.QueryRow(`SELECT count(*), count(*) FILTER (WHERE NOT EXISTS (SELECT 1 FROM usage u
			WHERE u.machine_id = x.machine_id AND u.file_id = x.file_id AND u."offset" = x."offset")) FROM usage_xm x`).Scan(&kept, &unfilled); err != nil ||
		kept != overrides || unfilled != 0 {
		t.Fatalf("usage_xm after the migration: %d rows (%d before), %d not of their usage row's machine (%v)", kept, overrides, unfilled, err)
	}
	for i, a := range args {
		if got := cli(t, -1, append(team, a...)...); got != before[i] {
			t.Errorf("pidex %v after the migration:\n%s", a, firstDiff(before[i], got))
		}
	}
	// Its layout is its own: another is refused.
	var out, errb bytes.Buffer
	a := newAppIO(&render.IOStreams{Out: &out, ErrOut: &errb, Width: 120, Height: 40})
	if err := a.execute(t.Context(), []string{"-q", "team", "init", "--to", url, "--apply", "--partitions", "8"}); err == nil ||
		!regexp.MustCompile(`laid out as 4 partitions`).MatchString(err.Error()) {
		t.Errorf("team init --partitions 8 on a catalog of 4: %v", err)
	}

	// The machines push on: new files get ids after the old ones.
	teamChanges(t, roots)
	push()
	union := []string{"--db", filepath.Join(base, "union.sqlite")}
	for _, r := range roots {
		union = append(union, "--sessions", r)
	}
	cli(t, 3, append(union, "-q", "index")...)
	eq := &teamEq{t: t, local: append(union, "--no-refresh"), team: team, machines: machines}
	eq.same("list", "--json")
	eq.same("cost", "--json", "--by", "day,model")
	eq.same("search", "--json", "--limit", "30", "--", "the")
}
