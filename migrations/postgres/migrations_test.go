package postgres_test

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"

	"github.com/pidex-dev/pidex/internal/pgtest"
	"github.com/pidex-dev/pidex/migrations/postgres"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// provider migrates a database of its own; with partitions > 0, laid out
// in that many hash partitions by machine (migration 00011 reads the
// session's pidex.partitions, which pgx sends from the URL).
func provider(t *testing.T, partitions int) (*goose.Provider, *sql.DB) {
	t.Helper()
	url := pgtest.URL(t)
	if partitions > 0 {
		url += "&pidex.partitions=" + strconv.Itoa(partitions)
	}
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	p, err := goose.NewProvider(goose.DialectPostgres, db, postgres.FS)
	if err != nil {
		t.Fatal(err)
	}
	return p, db
}

// The migrations apply to an empty database, undo completely, and apply
// again: with plain tables, and with the machine tables in 4 hash
// partitions by machine.
func TestUpDownUp(t *testing.T) {
	inLayouts(t, upDownUp)
}

// inLayouts runs fn on plain tables and on the machine tables in 4 hash
// partitions by machine.
func inLayouts(t *testing.T, fn func(t *testing.T, partitions int)) {
	for _, partitions := range []int{0, 4} {
		t.Run(fmt.Sprintf("partitions=%d", partitions), func(t *testing.T) { fn(t, partitions) })
	}
}

func upDownUp(t *testing.T, partitions int) {
	ctx := context.Background()
	p, db := provider(t, partitions)
	if _, err := p.Up(ctx); err != nil {
		t.Fatal(err)
	}
	var parted, children, owned int
	if err := db.QueryRow(`SELECT count(*), COALESCE(sum((SELECT count(*) FROM pg_inherits i WHERE i.inhparent = p.partrelid)), 0),
		cardinality(pidex_machine_tables()) FROM pg_partitioned_table p`).Scan(&parted, &children, &owned); err != nil {
		t.Fatal(err)
	}
	if want := min(partitions, 1) * owned; parted != want || children != want*partitions {
		t.Fatalf("%d partitioned tables of %d partitions, want %d of %d each", parted, children, want, partitions)
	}
	tables := func() int {
		var n int
		if err := db.QueryRow(`SELECT count(*) FROM pg_tables WHERE schemaname = 'public' AND tablename != 'goose_db_version'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	up := tables()
	if up == 0 {
		t.Fatal("no tables after Up")
	}
	if _, err := p.DownTo(ctx, 0); err != nil {
		t.Fatal(err)
	}
	if n := tables(); n != 0 {
		t.Fatalf("%d tables left after Down", n)
	}
	if _, err := p.Up(ctx); err != nil {
		t.Fatal(err)
	}
	if n := tables(); n != up {
		t.Fatalf("%d tables after Up again, %d the first time", n, up)
	}
}

func migrated(t *testing.T) *sql.DB {
	t.Helper()
	return migratedIn(t, 0)
}

func migratedIn(t *testing.T, partitions int) *sql.DB {
	t.Helper()
	p, db := provider(t, partitions)
	if _, err := p.Up(context.Background()); err != nil {
		t.Fatal(err)
	}
	return db
}

func exec(t *testing.T, db *sql.DB, q string, args ...any) {
	t.Helper()
	if _, err := db.Exec(q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// fixture: machines a, b, c; a holds /s/1 (created 100) and its fork
// /s/2 (200), b another /s/1 (created 100, the same path: a copy of a's
// file), c /t/3 (created 50). Call X (entry e1) is in a's /s/1 (on its
// path), a's /s/2 and b's /s/1; call Y (entry e2) in a's /s/1 and c's /t/3;
// call Z (entry e1, other tokens: another call) in b only. The flags are
// those each machine derived over its own files.
const fixture = `
INSERT INTO machines (name) VALUES ('a'), ('b'), ('c');
INSERT INTO files (machine_id, path, root, kind) VALUES
  (1, '/s/1', '/s', 'session'), (1, '/s/2', '/s', 'session'), (2, '/s/1', '/s', 'session'), (3, '/t/3', '/t', 'session');
INSERT INTO sessions (file_id, machine_id, session_id, version, created_ms) VALUES
  (1, 1, 's1', 3, 100), (2, 1, 's2', 3, 200), (3, 2, 's1', 3, 100), (4, 3, 's3', 3, 50);
INSERT INTO usage (file_id, "offset", machine_id, source, entry_id, ts_ms, input, output, on_path, is_copy, call_active) VALUES
  (1, 10, 1, 'assistant', 'e1', 1000, 10, 20, true,  false, true),
  (2, 10, 1, 'assistant', 'e1', 1000, 10, 20, false, true,  true),
  (3, 10, 2, 'assistant', 'e1', 1000, 10, 20, false, false, false),
  (1, 20, 1, 'assistant', 'e2', 2000, 5, 5,   false, false, false),
  (4, 20, 3, 'assistant', 'e2', 2000, 5, 5,   false, false, false),
  (3, 30, 2, 'assistant', 'e1', 1000, 11, 20, true,  false, true);
`

func overrides(t *testing.T, db *sql.DB) string {
	t.Helper()
	rows, err := db.Query(`SELECT m.name || ':' || f.path || '@' || x."offset" || '=' || x.is_copy || '/' || x.call_active
		FROM usage_xm x JOIN files f ON f.id = x.file_id JOIN machines m ON m.id = f.machine_id ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		rows.Scan(&s)
		out = append(out, s)
	}
	return strings.Join(out, " ")
}

// derive derives the cross-machine flags of the calls of the touched
// entry ids (docs/postgres.md, Cost), as a push does.
func derive(t *testing.T, db *sql.DB, ids ...string) {
	t.Helper()
	exec(t, db, `SELECT pidex_derive_calls($1)`, ids)
}

// A call held by several machines counts once over the union: its
// original is the record of the session created first, then path, then
// machine name; it is active when any record is on its path. Only the rows
// whose machine derived otherwise get an override, and removing a machine's
// file takes its rows and its overrides with it.
func TestCrossMachineDedup(t *testing.T) {
	inLayouts(t, crossMachineDedup)
}

func crossMachineDedup(t *testing.T, partitions int) {
	db := migratedIn(t, partitions)
	exec(t, db, fixture)
	derive(t, db, "e1", "e2")
	// X: a's /s/1 is the original (a < b on the same time and path); b's
	// copy becomes a copy, active through a's. Y: c's /t/3 (created 50) is
	// the original, a's record a copy. Z and a's fork copy: as derived.
	if got, want := overrides(t, db), "a:/s/1@20=true/false b:/s/1@10=true/true"; got != want {
		t.Fatalf("overrides %q, want %q", got, want)
	}
	derive(t, db, "e1", "e2") // idempotent
	if got, want := overrides(t, db), "a:/s/1@20=true/false b:/s/1@10=true/true"; got != want {
		t.Fatalf("again: overrides %q, want %q", got, want)
	}
	exec(t, db, `DELETE FROM files WHERE machine_id = 3`) // c removes /t/3
	derive(t, db, "e2")
	if got, want := overrides(t, db), "b:/s/1@10=true/true"; got != want {
		t.Fatalf("after c's removal: overrides %q, want %q", got, want)
	}
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM usage WHERE machine_id = 3`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("c's usage rows left: %d (%v)", n, err)
	}
	if err := db.QueryRow(`SELECT count(*) FROM usage WHERE machine_id = 1`).Scan(&n); err != nil || n != 3 {
		t.Fatalf("a's usage rows: %d, want 3 (%v)", n, err)
	}
}

// A row cannot name a file of another machine.
func TestOwnership(t *testing.T) {
	inLayouts(t, ownership)
}

func ownership(t *testing.T, partitions int) {
	db := migratedIn(t, partitions)
	exec(t, db, fixture)
	for _, q := range []string{
		`INSERT INTO entries (file_id, "offset", machine_id, length, line, seq, id, type) VALUES (1, 99, 2, 1, 1, 1, 'x', 'message')`,
		`INSERT INTO usage (file_id, "offset", machine_id, source, entry_id) VALUES (4, 99, 1, 'assistant', 'x')`,
		`UPDATE sessions SET machine_id = 2 WHERE file_id = 1`,
	} {
		if _, err := db.Exec(q); err == nil {
			t.Errorf("accepted: %s", q)
		}
	}
	exec(t, db, `INSERT INTO entries (file_id, "offset", machine_id, length, line, seq, id, type) VALUES (1, 99, 1, 1, 1, 1, 'x', 'message')`)
	// A chunk of two lines: entry_lines (a view since 00014) reads each
	// out of it; the entry gone, its line is gone from the view; the file
	// gone, its chunks are.
	exec(t, db, `INSERT INTO entries (file_id, "offset", machine_id, length, line, seq, id, type) VALUES (1, 102, 1, 1, 2, 2, 'y', 'message')`)
	exec(t, db, `INSERT INTO line_chunks (file_id, "offset", machine_id, offsets, ends, raw) VALUES (1, 99, 1, '{99,102}', '{2,7}', '\x7b7d5b2261225d')`)
	if _, err := db.Exec(`INSERT INTO line_chunks (file_id, "offset", machine_id, offsets, ends, raw) VALUES (1, 200, 2, '{200}', '{2}', '\x7b7d')`); err == nil {
		t.Error("accepted a chunk of machine a's file as machine b's")
	}
	lines := func() string {
		var got string
		if err := db.QueryRow(`SELECT COALESCE(string_agg("offset" || '=' || convert_from(raw, 'UTF8'), ' ' ORDER BY "offset"), '')
			FROM entry_lines WHERE machine_id = 1 AND file_id = 1 AND "offset" IN (99, 102)`).Scan(&got); err != nil {
			t.Fatal(err)
		}
		return got
	}
	if got := lines(); got != `99={} 102=["a"]` {
		t.Errorf("entry_lines = %q, want each line out of its chunk", got)
	}
	exec(t, db, `DELETE FROM entries WHERE file_id = 1 AND "offset" = 99`)
	if got := lines(); got != `102=["a"]` {
		t.Errorf("entry_lines = %q after its entry's removal, want the other line alone", got)
	}
	exec(t, db, `DELETE FROM files WHERE machine_id = 1 AND id = 1`)
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM line_chunks WHERE file_id = 1`).Scan(&n); err != nil || n != 0 {
		t.Errorf("a file's chunks outlived it: %d (%v)", n, err)
	}
}

// The search rows take tsvector literals (no parser: the tokens are
// pidex's) and answer tsquery literals through their partial indexes; a
// file's removal takes them along.
func TestSearchRows(t *testing.T) {
	db := migrated(t)
	exec(t, db, fixture)
	exec(t, db, `INSERT INTO entries (file_id, "offset", machine_id, length, line, seq, id, type) VALUES
		(1, 5, 1, 1, 1, 1, 'x', 'message'), (4, 5, 3, 1, 1, 1, 'y', 'message')`)
	exec(t, db, `INSERT INTO entry_text (file_id, "offset", machine_id, text) VALUES (1, 5, 1, 'parse_header: 全文検索'), (4, 5, 3, 'header parse')`)
	exec(t, db, `INSERT INTO text_index (file_id, "offset", part, machine_id, tokens, tsv) VALUES
		(1, 5, 0, 1, 6, $1::tsvector), (4, 5, 0, 3, 2, $2::tsvector)`,
		`'parse':1 'header':2 '全文':3 '文検':4 '検索':5 '索':6`, `'header':1 'parse':2`)
	count := func(q string) int {
		var n int
		if err := db.QueryRow(`SELECT count(*) FROM text_index WHERE NOT win AND tsv @@ $1::tsquery`, q).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	for q, want := range map[string]int{`'parse' <-> 'header'`: 1, `'parse' & 'header'`: 2, `'検索'`: 1, `'検':*`: 1, `'header' & !('parse' <-> 'header')`: 1} {
		if got := count(q); got != want {
			t.Errorf("%s: %d rows, want %d", q, got, want)
		}
	}
	exec(t, db, `DELETE FROM files WHERE machine_id = 3`)
	if got := count(`'parse' & 'header'`); got != 1 {
		t.Errorf("after a removal: %d rows, want 1", got)
	}
}

// Every table a push writes (each with a machine_id column, and machines)
// has row-level security with its two policies: every row readable, only
// the rows of the role's machines writable (docs/team.md, Roles); and no
// other table has it (pidex_grant gives pushing roles write privileges on
// exactly the tables with row-level security), but push_tokens, which has
// it with no policy: the owner's alone. A new table of machine rows
// without them would be open to every pushing role.
func TestRowSecurityOnEveryMachineTable(t *testing.T) {
	inLayouts(t, rowSecurityOnEveryMachineTable)
}

// (A partitioned table's policies hold for the rows read and written
// through it; its partitions have none, and pidex_grant gives the groups
// only SELECT on them.)
func rowSecurityOnEveryMachineTable(t *testing.T, partitions int) {
	db := migratedIn(t, partitions)
	rows, err := db.Query(`SELECT c.relname, c.relrowsecurity,
			EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'machine_id' AND NOT a.attisdropped),
			COALESCE((SELECT string_agg(p.polname || ':' || p.polcmd::text, ' ' ORDER BY p.polname) FROM pg_policy p WHERE p.polrelid = c.oid), '')
		FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') AND NOT c.relispartition ORDER BY c.relname`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	machineTables := 0
	for rows.Next() {
		var name, policies string
		var rls, hasMachine bool
		if err := rows.Scan(&name, &rls, &hasMachine, &policies); err != nil {
			t.Fatal(err)
		}
		owned := hasMachine || name == "machines"
		switch {
		case owned && name == "usage_xm" && (rls || policies != ""):
			// Derived across machines, written by pidex_derive_calls only:
			// without row-level security, pidex_grant gives the pushing
			// group no write on it.
			t.Errorf("usage_xm: row-level security %v, policies %q: only pidex_derive_calls writes it", rls, policies)
		case name == "usage_xm":
		case owned && (!rls || policies != "pidex_own:* pidex_read:r"):
			t.Errorf("%s holds a machine's rows: row-level security %v, policies %q, want pidex_own:* pidex_read:r", name, rls, policies)
		case name == "push_tokens" && (!rls || policies != ""):
			// Sealed: row-level security and no policy, so that no role but
			// the owner sees or writes a token's hash (migration 00010).
			t.Errorf("push_tokens: row-level security %v, policies %q, want true and none", rls, policies)
		case name == "push_tokens":
		case !owned && (rls || policies != ""):
			t.Errorf("%s holds no machine's rows but has row-level security %v, policies %q", name, rls, policies)
		}
		if owned {
			machineTables++
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if machineTables < 22 {
		t.Errorf("%d tables of machine rows, want at least 22", machineTables)
	}
}
