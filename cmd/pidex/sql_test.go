package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/catalogtest"
	"github.com/pidex-dev/pidex/internal/render"
	"github.com/pidex-dev/pidex/sqlite"
)

// sqlEnv is a catalog of the bundled corpus and a way to run the CLI on it.
type sqlEnv struct {
	t    *testing.T
	root string
	db   string
}

func newSQLEnv(t *testing.T, root string) *sqlEnv {
	t.Helper()
	root, _ = filepath.Abs(root)
	e := &sqlEnv{t: t, root: root, db: filepath.Join(t.TempDir(), "catalog.sqlite")}
	if _, err := e.run("index"); err != nil {
		t.Fatal(err)
	}
	return e
}

func (e *sqlEnv) run(args ...string) (string, error) {
	var out, errb bytes.Buffer
	err := newApp(&out, &errb).execute(context.Background(), append([]string{"--db", e.db, "--sessions", e.root, "-q"}, args...))
	if err != nil {
		return out.String(), fmt.Errorf("%w (stderr: %s)", err, errb.String())
	}
	return out.String(), nil
}

// The documented queries (testdata/sql/*.sql, shown in docs/sql.md with
// their output) give their committed output on the bundled corpus. With
// -update, the outputs and docs/sql.md are rewritten.
func TestSQLDocumentedQueries(t *testing.T) {
	e := newSQLEnv(t, showSessions)
	files, _ := filepath.Glob("testdata/sql/*.sql")
	if len(files) != 10 {
		t.Fatalf("%d documented queries, want 10", len(files))
	}
	sort.Strings(files)
	var examples strings.Builder
	for _, f := range files {
		got, err := e.run("sql", "--no-refresh", "-f", f, "--format", "table")
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		golden := strings.TrimSuffix(f, ".sql") + ".out"
		if updateGoldens() {
			if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
		} else if want, err := os.ReadFile(golden); err != nil || string(want) != got {
			t.Errorf("%s: output differs from %s (run with -update after an intended change):\n%s", f, golden, lineDiff(string(want), got))
		}
		q, _ := os.ReadFile(f)
		fmt.Fprintf(&examples, "### %s\n\n```sql\n%s```\n\n```\n%s```\n\n", strings.TrimSuffix(filepath.Base(f), ".sql"), q, got)
	}
	doc := sqlDoc(examples.String())
	docPath := filepath.Join("..", "..", "docs", "sql.md")
	if updateGoldens() {
		if err := os.WriteFile(docPath, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if have, err := os.ReadFile(docPath); err != nil || string(have) != doc {
		t.Errorf("docs/sql.md is not up to date with the views and examples (run go test ./cmd/pidex -run TestSQLDocumentedQueries -update)")
	}
}

// Each view has exactly the columns the reference documents: the stable
// interface cannot drift silently.
func TestSQLViewColumnsPinned(t *testing.T) {
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "c.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, v := range pidex.Views {
		var got []string
		if err := db.Select(&got, "SELECT name FROM pragma_table_info(?)", v.Name); err != nil || len(got) == 0 {
			t.Fatalf("%s: %v (no such view?)", v.Name, err)
		}
		var want []string
		for _, c := range v.Columns {
			want = append(want, c.Name)
		}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("%s columns\n got %v\nwant %v", v.Name, got, want)
		}
	}
}

func fileSum(t *testing.T, p string) string {
	b, err := os.ReadFile(p)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return fmt.Sprintf("%x", sha256.Sum256(b))
}

// Nothing that writes gets through pidex sql: each is a usage error, no
// file appears, and the catalog (and its WAL) keep their bytes.
func TestSQLRefusesWrites(t *testing.T) {
	e := newSQLEnv(t, showSessions)
	dir := t.TempDir()
	vacuumTo, attached := filepath.Join(dir, "copy.db"), filepath.Join(dir, "new.db")
	before := fileSum(t, e.db) + fileSum(t, e.db+"-wal")
	for _, stmt := range []string{
		"INSERT INTO meta (key, value) VALUES ('x', 'y')",
		"UPDATE sessions SET name = 'x'",
		"DELETE FROM files",
		"CREATE TABLE x (a)",
		"CREATE TEMP TABLE x (a)",
		"CREATE VIEW v AS SELECT 1",
		"DROP TABLE files",
		"DROP VIEW sessions_v",
		"ALTER TABLE files ADD COLUMN x",
		"ATTACH '" + attached + "' AS x",
		"VACUUM INTO '" + vacuumTo + "'",
		"VACUUM",
		"REINDEX",
		"ANALYZE",
		"PRAGMA user_version = 7",
		"PRAGMA journal_mode = DELETE",
		"PRAGMA query_only = 0",
		"WITH x AS (SELECT 1) DELETE FROM files",
		"WITH x AS (SELECT 1) INSERT INTO meta SELECT 'a', 'b' FROM x",
		"SELECT load_extension('x')",
		"SELECT 1; DELETE FROM files",
		"  /* comment */ -- line\n DELETE FROM files",
		"REPLACE INTO meta VALUES ('a', 'b')",
		"BEGIN",
		"SAVEPOINT a",
	} {
		_, err := e.run("sql", "--no-refresh", stmt)
		if !errors.Is(err, pidex.ErrUsage) {
			t.Errorf("%q: %v, want a usage error", stmt, err)
		}
	}
	for _, p := range []string{vacuumTo, attached} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s exists after pidex sql: %v", p, err)
		}
	}
	if after := fileSum(t, e.db) + fileSum(t, e.db+"-wal"); after != before {
		t.Error("the catalog's bytes changed")
	}
	// Reads work, including pragmas that read.
	if out, err := e.run("sql", "--no-refresh", "PRAGMA table_info(sessions_v)"); err != nil || !strings.Contains(out, "session_id") {
		t.Errorf("PRAGMA table_info: %v\n%s", err, out)
	}
}

// entry_json refuses to return other bytes once a file changed.
func TestSQLEntryJSONChangedFile(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, "--w-app--", "a.jsonl")
	const hdr = `{"type":"session","version":3,"id":"s1","timestamp":"2026-05-01T10:00:00.000Z","cwd":"/w/app"}`
	catalogtest.WriteFile(t, p, hdr+"\n"+userLine("u1", "", "hello")+"\n")
	catalogtest.AppendFile(t, p, userLine("u2", "u1", "world")+"\n")
	e := newSQLEnv(t, root)
	q := "SELECT json_extract(entry_json(path, offset), '$.message.content') FROM messages_v ORDER BY offset"
	out, err := e.run("sql", "--no-refresh", q)
	if err != nil || out != "json_extract(entry_json(path, offset), '$.message.content')\nhello\nworld\n" {
		t.Fatalf("entry_json: %v\n%q", err, out)
	}
	// Rewritten in place with other lines of another length.
	catalogtest.WriteFile(t, p, hdr+"\n"+userLine("x1", "", "a much longer first message now")+"\n"+userLine("x2", "x1", "and more")+"\n")
	if _, err := e.run("sql", "--no-refresh", q); err == nil || !strings.Contains(err.Error(), "changed since it was indexed") {
		t.Errorf("entry_json on a rewritten file: %v, want an error", err)
	}
	// After a refresh it reads the new lines.
	if out, err := e.run("sql", q); err != nil || !strings.Contains(out, "and more") {
		t.Errorf("after a refresh: %v\n%s", err, out)
	}
}

func TestSQLFormatsParamsTimeout(t *testing.T) {
	e := newSQLEnv(t, showSessions)
	q := "SELECT 1 AS n, 2.5 AS r, NULL AS z, 'a\tb\nc\\d' AS s"
	for format, want := range map[string]string{
		"json":   "[\n{\"n\":1,\"r\":2.5,\"z\":null,\"s\":\"a\\tb\\nc\\\\d\"}\n]\n",
		"ndjson": "{\"n\":1,\"r\":2.5,\"z\":null,\"s\":\"a\\tb\\nc\\\\d\"}\n",
		"tsv":    "n\tr\tz\ts\n1\t2.5\t\ta\\tb\\nc\\\\d\n",
		"csv":    "n,r,z,s\n1,2.5,,\"a\tb\nc\\d\"\n",
	} {
		if out, err := e.run("sql", "--no-refresh", "--format", format, q); err != nil || out != want {
			t.Errorf("--format %s: %v\n got %q\nwant %q", format, err, out, want)
		}
	}
	if out, err := e.run("sql", "--no-refresh", "--json", "SELECT :n + 1 AS x, :s AS s", "--param", "n=41", "--param", "s=hi"); err != nil || out != "[\n{\"x\":42,\"s\":\"hi\"}\n]\n" {
		t.Errorf("--param: %v %q", err, out)
	}
	_, err := e.run("sql", "--no-refresh", "--timeout", "100ms",
		"WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c")
	if err == nil || !strings.Contains(err.Error(), "interrupted") {
		t.Errorf("--timeout: %v", err)
	}
	var out bytes.Buffer
	a := newAppIO(&render.IOStreams{Out: &out, ErrOut: &bytes.Buffer{}, OutTTY: true, Width: 80, Height: 10})
	err = a.execute(context.Background(), []string{"--db", e.db, "--sessions", e.root, "-q", "sql", "--no-refresh",
		"WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 100) SELECT x FROM c"})
	if err != nil || !strings.Contains(out.String(), "… 94 more rows (100 in all)") {
		t.Errorf("terminal table: %v\n%s", err, out.String())
	}
}

// sqlDoc is docs/sql.md: the views' reference and the worked examples.
func sqlDoc(examples string) string {
	return `# SQL over pidex's catalog

The catalog (see the README for where it lives) is a SQLite file. ` + "`pidex sql`" + ` runs one read-only
statement on it after refreshing it (` + "`--no-refresh`" + ` skips that); ` + "`pidex schema`" + ` prints the reference
below. The views keep their columns from one pidex release to the next (a test pins them); the
tables under them may change. Times are Unix milliseconds (` + "`ts_ms`" + `) unless named ` + "`timestamp`" + `
(ISO 8601 as pi wrote it).

pidex adds two functions, which only pidex's own connections have. In other clients (` + "`sqlite3 -readonly`" + `,
Datasette, DuckDB's SQLite scanner) ` + "`sessions_v`" + `, ` + "`usage_v`" + `, ` + "`labels_v`" + ` and ` + "`active_path_v`" + ` work as
they are; ` + "`entries_v`" + `, ` + "`messages_v`" + ` and ` + "`tool_calls_v`" + ` call the functions and fail there with "no such
function" (query the ` + "`entries`" + ` and ` + "`tool_calls`" + ` tables instead):

- ` + "`entry_json(path, offset [, length])`" + ` — the entry's JSON line, read back from the session file, so
  SQLite's JSON functions reach any field: ` + "`json_extract(entry_json(path, offset), '$.message.stopReason')`" + `.
  When the file changed since it was indexed (its size or mtime, the line at the offset or its length
  differ), it raises an error instead of returning other bytes: refresh and ask again.
- ` + "`entry_text(path, offset [, length])`" + ` — the entry's searchable text (what ` + "`pidex search`" + ` indexes).

Both read only what the catalog points at: a session file of the catalog, at the offset of one of its
entries (the ` + "`path`" + ` and ` + "`offset`" + ` of ` + "`entries_v`" + `), for the entry's stored length. Any other path is refused
with the same words whether it exists or not, a file that is no longer a regular file is not read, and
a line over 16 MiB is an error for ` + "`entry_json`" + ` (` + "`pidex show --json`" + ` reads it) and read cut by
` + "`entry_text`" + ` (each string keeps its first 64 KiB). Both read files, so they cost about a millisecond
per row on large lines: filter first.

## Views

` + render.ViewReference(pidex.Views) + `## Examples

Each runs on the bundled corpus (` + "`testdata/sessions`" + `) with ` + "`pidex sql -f FILE --format table`" + `;
the files are ` + "`cmd/pidex/testdata/sql/*.sql`" + `, and a test checks these outputs.

` + examples
}

// pidex schema prints every view with its columns; the query can also
// come from standard input.
func TestSQLSchemaAndStdin(t *testing.T) {
	e := newSQLEnv(t, showSessions)
	out, err := e.run("schema")
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range pidex.Views {
		if !strings.Contains(out, "### "+v.Name+"\n") || !strings.Contains(out, "| `"+v.Columns[len(v.Columns)-1].Name+"` |") {
			t.Errorf("pidex schema lacks %s", v.Name)
		}
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stdin := os.Stdin
	os.Stdin = r
	defer func() { os.Stdin = stdin }()
	go func() { w.WriteString("SELECT count(*) AS n FROM sessions_v"); w.Close() }()
	if out, err := e.run("sql", "--no-refresh", "--format", "csv"); err != nil || !strings.HasPrefix(out, "n\n") {
		t.Errorf("query from stdin: %v %q", err, out)
	}
}

// failingWriter takes n bytes, then fails as a closed pipe does; it
// records the largest live heap it saw while taking them.
type failingWriter struct {
	n, got, nextSample int
	maxHeap            uint64
}

var errPipeClosed = errors.New("write: broken pipe")

func (w *failingWriter) Write(p []byte) (int, error) {
	if w.got >= w.n {
		return 0, errPipeClosed
	}
	w.got += len(p)
	if w.got >= w.nextSample {
		// What is live, not what awaits collection: the garbage a GC
		// cycle allows grows with whatever other tests left live.
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		w.maxHeap = max(w.maxHeap, ms.HeapAlloc)
		w.nextSample += 2 << 20
	}
	return len(p), nil
}

// pidex sql streams: an endless SELECT prints as it goes, in the memory of
// a few rows, until the reader goes away (or --timeout): before, it held
// every row until the statement ended, printed nothing and died out of
// memory.
func TestSQLStreams(t *testing.T) {
	e := newSQLEnv(t, showSessions)
	endless := "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x, printf('%.200c', 'y') AS pad FROM c"
	run := func(w io.Writer, args ...string) error {
		a := newAppIO(&render.IOStreams{Out: w, ErrOut: &bytes.Buffer{}, Width: 80, Height: 24})
		return a.execute(context.Background(), append([]string{"--db", e.db, "--sessions", e.root, "-q", "sql", "--no-refresh"}, args...))
	}
	for _, format := range []string{"tsv", "csv", "json", "ndjson", "table"} {
		// The heap is the process's: what other tests left live is the
		// baseline, and only the growth over it counts.
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		w := &failingWriter{n: 32 << 20}
		err := run(w, "--format", format, "--timeout", "60s", endless)
		if !errors.Is(err, errPipeClosed) || w.got < w.n {
			t.Fatalf("--format %s: %v after %d bytes, want the write error after %d", format, err, w.got, w.n)
		}
		if w.maxHeap > ms.HeapAlloc+64<<20 {
			t.Errorf("--format %s: the heap grew by %d MB while streaming 32 MB of rows", format, (w.maxHeap-ms.HeapAlloc)>>20)
		}
	}
	// On a terminal the table shows a screenful, counts some more rows and
	// stops the statement.
	var screen bytes.Buffer
	a := newAppIO(&render.IOStreams{Out: &screen, ErrOut: &bytes.Buffer{}, OutTTY: true, Width: 80, Height: 10})
	err := a.execute(context.Background(), []string{"--db", e.db, "--sessions", e.root, "-q", "sql", "--no-refresh", endless})
	if err != nil || !strings.HasSuffix(screen.String(), "… more than 10,000 more rows: --format tsv, csv or json prints them all\n") || strings.Count(screen.String(), "\n") != 8 {
		t.Errorf("an endless SELECT on a terminal: %v\n%s", err, screen.String())
	}
	// --timeout stops an endless statement that is printing: what was read
	// is out, and the error is the statement's.
	var out countingWriter
	err = run(&out, "--format", "ndjson", "--timeout", "200ms", endless)
	if !errors.Is(err, pidex.ErrTimeout) || out == 0 || exitCode(err, false) != exitStatement {
		t.Errorf("--timeout on an endless SELECT: %v (exit %d) after %d bytes", err, exitCode(err, false), out)
	}
}

type countingWriter int

func (c *countingWriter) Write(p []byte) (int, error) {
	*c += countingWriter(len(p))
	return len(p), nil
}

// A catalog holds whatever any run read into it (the demo's --sessions
// folder, another root), but sql, like every read, answers for the roots
// being read: each view shows their sessions only, and so do warnings.
func TestSQLAnswersForTheRootsRead(t *testing.T) {
	base := t.TempDir()
	mine, demo := filepath.Join(base, "mine"), filepath.Join(base, "demo")
	copyTree(t, "../../testdata/sessions/--home-ann-proj-alpha--", filepath.Join(mine, "--home-ann-proj-alpha--"))
	copyTree(t, "../../testdata/sessions", demo) // damaged files among them: warnings
	db := filepath.Join(base, "c.sqlite")
	cli(t, -1, "--db", db, "--sessions", demo, "-q", "index")
	cli(t, 0, "--db", db, "--sessions", mine, "-q", "index")
	count := func(args ...string) string {
		return strings.TrimSpace(cli(t, -1, append([]string{"--db", db, "--no-refresh"}, args...)...))
	}
	for _, v := range pidex.Views {
		q := "SELECT count(*), sum(path LIKE '%/demo/%') FROM " + v.Name
		if got := count("--sessions", mine, "sql", "--format", "tsv", q); !strings.HasSuffix(got, "\t0") && !strings.HasSuffix(got, "\t") {
			t.Errorf("%s read for mine counts the demo's sessions: %q", v.Name, got)
		}
	}
	if got := count("--sessions", mine, "sql", "--format", "tsv", "SELECT count(*) FROM sessions_v"); !strings.HasSuffix(got, "\n4") {
		t.Errorf("sessions_v for mine: %q, want its 4 sessions", got)
	}
	if got := count("--sessions", demo, "sql", "--format", "tsv", "SELECT count(*) > 4 FROM sessions_v"); !strings.HasSuffix(got, "\n1") {
		t.Errorf("sessions_v for the demo: %q, want its sessions", got)
	}
	if got := count("--sessions", mine, "warnings"); got != "FILE\tLINE\tWARNING" {
		t.Errorf("warnings for mine list the demo's files:\n%s", got)
	}
	if got := count("--sessions", demo, "warnings"); !strings.Contains(got, "malformed-middle") {
		t.Errorf("warnings for the demo:\n%s", got)
	}
}
