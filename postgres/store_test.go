package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/engine"
	"github.com/pidex-dev/pidex/internal/catalogtest"
	"github.com/pidex-dev/pidex/internal/pgtest"
	"github.com/pidex-dev/pidex/internal/redact"
	"github.com/pidex-dev/pidex/postgres"
	"github.com/pidex-dev/pidex/query"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// TLS is required to any host that is not this machine, unless sslmode
// says otherwise; loopback and Unix sockets need none.
func TestConfigTLS(t *testing.T) {
	t.Setenv("PGSSLMODE", "")
	for raw, want := range map[string]bool{
		"postgres://u:pw@db.example.com/team":                  true,
		"postgresql://u@10.1.2.3:6432/team":                    true,
		"postgres://u@db1.example.com,db2.example.com/team":    true,
		"postgres://u@db.example.com/team?sslmode=disable":     false, // the URL says otherwise
		"postgres://u@localhost/team":                          false,
		"postgres://u@127.0.0.1:5432/team":                     false,
		"postgres://u@[::1]:5432/team":                         false,
		"postgres://u@/team?host=/var/run/postgresql":          false,
		"postgres://u@db.example.com/team?sslmode=verify-ca":   true,
		"postgres://u@db.example.com/team?sslmode=require&x=1": true,
	} {
		cfg, err := postgres.Config(raw)
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		if got := allTLS(cfg); got != want {
			t.Errorf("%s: TLS %v, want %v", raw, got, want)
		}
		if want && !strings.Contains(raw, "sslmode") && (cfg.TLSConfig == nil || cfg.TLSConfig.InsecureSkipVerify) {
			t.Errorf("%s: the server's certificate is not verified", raw)
		}
	}
	t.Setenv("PGSSLMODE", "disable")
	if cfg, err := postgres.Config("postgres://u@db.example.com/team"); err != nil || allTLS(cfg) {
		t.Errorf("PGSSLMODE=disable: TLS %v (%v)", cfg != nil && allTLS(cfg), err)
	}
	if _, err := postgres.Config("/home/me/catalog.sqlite"); !errors.Is(err, pidex.ErrUsage) {
		t.Errorf("a path as a team catalog: %v", err)
	}
}

// Credentials are never printed: not by Redacted, not in an error.
func TestCredentialsNeverPrinted(t *testing.T) {
	for _, raw := range []string{"postgres://alice:s3cr3tpw@127.0.0.1:1/team?connect_timeout=2",
		"postgres://alice@127.0.0.1:1/team?password=s3cr3tpw&connect_timeout=2"} {
		if r := postgres.Redacted(raw); strings.Contains(r, "s3cr3tpw") {
			t.Errorf("Redacted(%q) = %q", raw, r)
		}
		_, err := postgres.Open(context.Background(), raw, postgres.Options{})
		if err == nil {
			t.Fatalf("%s: connected to nothing", raw)
		}
		if strings.Contains(err.Error(), "s3cr3tpw") {
			t.Errorf("the error quotes the password: %v", err)
		}
	}
}

// machine is a machine with its own session root and local catalog.
type machine struct {
	name string
	root string
	eng  *engine.Engine
}

func newMachine(t *testing.T, name string) *machine {
	t.Helper()
	root := t.TempDir()
	eng, err := engine.Open(context.Background(), engine.Options{DBPath: filepath.Join(t.TempDir(), "c.sqlite"), Roots: []string{root}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	return &machine{name: name, root: root, eng: eng}
}

func (m *machine) write(t *testing.T, rel string, lines ...string) string {
	t.Helper()
	p := filepath.Join(m.root, rel)
	catalogtest.WriteFile(t, p, strings.Join(lines, "\n")+"\n")
	return p
}

func (m *machine) push(t *testing.T, url string, o postgres.PushOptions) *postgres.PushStats {
	t.Helper()
	if _, err := m.eng.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	o.Machine = m.name
	st, err := m.eng.Push(context.Background(), url, o)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func header(id, cwd string) string {
	return fmt.Sprintf(`{"type":"session","version":3,"id":%q,"timestamp":"2026-05-01T10:00:00.000Z","cwd":%q}`, id, cwd)
}

func user(id, parent, text string) string {
	p := "null"
	if parent != "" {
		p = `"` + parent + `"`
	}
	return fmt.Sprintf(`{"type":"message","id":%q,"parentId":%s,"timestamp":"2026-05-01T10:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":%q}]}}`, id, p, text)
}

// teamReader is the team catalog's backend, and the read layer over it.
type teamReader struct {
	*query.Reader
	pg *postgres.Reader
}

func reader(t *testing.T, url string) teamReader {
	t.Helper()
	st, err := postgres.Open(context.Background(), url, postgres.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return teamReader{query.New(st.Reader(), nil), st.Reader()}
}

func list(t *testing.T, r teamReader, o pidex.ListOptions) []pidex.Session {
	t.Helper()
	ss, err := r.List(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	return ss
}

// --redact replaces secrets in every text that leaves the machine (the
// raw lines, their text and search rows, first messages, names, labels)
// and counts them; the lines stay JSON, the rest of the entry as it was.
func TestPushRedact(t *testing.T) {
	url := pgtest.URL(t)
	m := newMachine(t, "laptop")
	key := catalogtest.SecretKey
	m.write(t, "--w-app--/a.jsonl", catalogtest.SecretSession("sa", "/w/app")...)
	st := m.push(t, url, postgres.PushOptions{Redact: true})
	if st.Redacted < 5 {
		t.Errorf("%d secrets redacted, want at least 5 (key, URL password, private key, GitHub token, AWS id)", st.Redacted)
	}
	r := reader(t, url)
	ss := list(t, r, pidex.ListOptions{})
	if len(ss) != 1 || strings.Contains(ss[0].FirstMessage, key) || !strings.Contains(ss[0].FirstMessage, redact.Marker) ||
		ss[0].Name == nil || strings.Contains(*ss[0].Name, "ghp_") {
		t.Fatalf("listing: %+v", ss)
	}
	var rows pidex.RowCollector
	err := r.SQLStream(context.Background(), pidex.SQLOptions{Statement: `SELECT convert_from(raw, 'UTF8') FROM entry_lines
		UNION ALL SELECT text FROM entry_text UNION ALL SELECT label FROM labels UNION ALL SELECT tsv::text FROM text_index`}, &rows)
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range rows.Rows.Rows {
		s := fmt.Sprint(row[0])
		for _, secret := range catalogtest.Secrets {
			if strings.Contains(strings.ToLower(s), strings.ToLower(secret)) {
				t.Errorf("%q left the machine: %s", secret, s)
			}
		}
	}
	if hits, err := r.Search(context.Background(), pidex.SearchOptions{Query: "hunter2pass", Limit: 10}); err != nil || len(hits) != 0 {
		t.Errorf("a redacted password is found: %v %v", hits, err)
	}
	ref, err := r.Resolve(context.Background(), "sa", "")
	if err != nil {
		t.Fatal(err)
	}
	es, err := r.pg.Lines(context.Background(), ref, mustPath(t, r, ref), 0, 0)
	if err != nil || len(es) != 4 {
		t.Fatalf("the redacted lines do not decode: %v (%d)", err, len(es))
	}
	// Without --redact the rows are pushed again as they are.
	if st := m.push(t, url, postgres.PushOptions{}); st.Rewritten != 1 || st.Redacted != 0 {
		t.Errorf("push without --redact after one with: %+v", st)
	}
}

func mustPath(t *testing.T, r teamReader, ref pidex.SessionRef) []pidex.Entry {
	t.Helper()
	p, err := r.Path(context.Background(), ref, "")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// --project and --exclude-project choose the sessions pushed; a session
// pushed before and left out now is removed.
func TestPushProjects(t *testing.T) {
	url := pgtest.URL(t)
	m := newMachine(t, "laptop")
	m.write(t, "--w-alpha--/a.jsonl", header("a", "/w/alpha"), user("a1", "", "alpha"))
	m.write(t, "--w-beta--/b.jsonl", header("b", "/w/Beta"), user("b1", "", "beta"))
	m.write(t, "--w-gamma--/c.jsonl", header("c", "/w/gamma-secret"), user("c1", "", "gamma"))
	var r teamReader
	ids := func() string {
		if r.Reader == nil {
			r = reader(t, url)
		}
		var out []string
		for _, s := range list(t, r, pidex.ListOptions{}) {
			out = append(out, s.ID)
		}
		return strings.Join(out, " ")
	}
	if st := m.push(t, url, postgres.PushOptions{Exclude: []string{"SECRET"}}); st.Excluded != 1 || st.New != 2 {
		t.Errorf("exclude: %+v", st)
	}
	if got := ids(); got != "a b" && got != "b a" {
		t.Errorf("pushed %q, want a and b", got)
	}
	if st := m.push(t, url, postgres.PushOptions{Projects: []string{"beta"}}); st.Removed != 1 || st.Excluded != 2 {
		t.Errorf("project beta: %+v", st)
	}
	if got := ids(); got != "b" {
		t.Errorf("pushed %q, want b", got)
	}
}

// Another machine's rows are never touched: a machine that pushes an
// empty root removes its own sessions only.
func TestPushOwnRowsOnly(t *testing.T) {
	url := pgtest.URL(t)
	a, b := newMachine(t, "a"), newMachine(t, "b")
	a.write(t, "--w--/s.jsonl", header("s", "/w"), user("s1", "", "from a"))
	b.write(t, "--w--/s.jsonl", header("s", "/w"), user("s1", "", "from b"))
	a.push(t, url, postgres.PushOptions{})
	b.push(t, url, postgres.PushOptions{})
	r := reader(t, url)
	if _, err := r.Resolve(context.Background(), "s", ""); !errors.Is(err, pidex.ErrAmbiguous) {
		t.Errorf("one session id on two machines: %v", err)
	}
	if ref, err := r.Resolve(context.Background(), "s", "b"); err != nil || ref.Machine != "b" {
		t.Errorf("--machine b: %+v %v", ref, err)
	}
	if err := removeAll(b.root); err != nil {
		t.Fatal(err)
	}
	if st := b.push(t, url, postgres.PushOptions{}); st.Removed != 1 {
		t.Errorf("b's removal: %+v", st)
	}
	ss := list(t, r, pidex.ListOptions{})
	if len(ss) != 1 || ss[0].Machine != "a" {
		t.Errorf("after b removed its file: %+v", ss)
	}
	if ss := list(t, r, pidex.ListOptions{Machine: "b"}); len(ss) != 0 {
		t.Errorf("--machine b lists %d", len(ss))
	}
}

// sql on a team catalog is read-only, with the local catalog's refusals
// (usage errors) and timeout.
func TestSQLReadOnly(t *testing.T) {
	url := pgtest.URL(t)
	m := newMachine(t, "laptop")
	m.write(t, "--w--/s.jsonl", header("s", "/w"), user("s1", "", "hello"))
	m.push(t, url, postgres.PushOptions{})
	r := reader(t, url)
	ctx := context.Background()
	for _, stmt := range []string{
		"DELETE FROM files",
		"WITH gone AS (DELETE FROM files RETURNING id) SELECT * FROM gone",
		"SELECT * FROM files; DELETE FROM files",
		"SELECT nextval('file_ids')",
		"PRAGMA table_info(files)",
		"WITH x AS (UPDATE push_state SET files = 0 RETURNING 1) SELECT * FROM x",
	} {
		_, err := collect(ctx, r, pidex.SQLOptions{Statement: stmt})
		if !errors.Is(err, pidex.ErrUsage) {
			t.Errorf("%s: %v, want a refusal (usage error)", stmt, err)
		}
	}
	if _, err := collect(ctx, r, pidex.SQLOptions{Statement: "SELECT pg_sleep(10)", Timeout: 200 * time.Millisecond}); !errors.Is(err, pidex.ErrTimeout) {
		t.Errorf("pg_sleep past the timeout: %v", err)
	}
	rows, err := collect(ctx, r, pidex.SQLOptions{Statement: "SELECT session_id, :n + 1 AS next, ':n' AS text, 1::int AS cast FROM sessions_v WHERE session_id = :id",
		Params: map[string]string{"id": "s", "n": "41"}})
	if err != nil || len(rows.Rows) != 1 || fmt.Sprint(rows.Rows[0]) != "[s 42 :n 1]" {
		t.Errorf("named parameters: %v %v", rows, err)
	}
	// What PostgreSQL lets a read-only transaction do anyway (a large
	// object) is rolled back with it: the transaction never commits.
	if _, err := collect(ctx, r, pidex.SQLOptions{Statement: "SELECT lo_create(0)"}); err != nil {
		t.Fatal(err)
	}
	if rows, err := collect(ctx, r, pidex.SQLOptions{Statement: "SELECT count(*) FROM pg_largeobject_metadata"}); err != nil || fmt.Sprint(rows.Rows) != "[[0]]" {
		t.Errorf("a large object outlived its statement: %v %v", rows, err)
	}
	// set_config reaches only the statement's own connection.
	if _, err := collect(ctx, r, pidex.SQLOptions{Statement: "SELECT set_config('search_path', 'nowhere', false)"}); err != nil {
		t.Fatal(err)
	}
	if ss := list(t, r, pidex.ListOptions{}); len(ss) != 1 {
		t.Errorf("after a statement set the search path: %d sessions", len(ss))
	}
}

// removeAll removes what dir holds, keeping dir.
func removeAll(dir string) error {
	es, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range es {
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

// The team catalog's views have the documented columns, in order
// (pidex.TeamViews: the local catalog's and machine).
func TestViewsPinned(t *testing.T) {
	url := pgtest.URL(t)
	m := newMachine(t, "laptop")
	m.push(t, url, postgres.PushOptions{})
	r := reader(t, url)
	for _, v := range pidex.TeamViews() {
		rows, err := collect(context.Background(), r, pidex.SQLOptions{Statement: "SELECT * FROM " + v.Name + " LIMIT 0"})
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, c := range v.Columns {
			want = append(want, c.Name)
		}
		if got := strings.Join(rows.Columns, " "); got != strings.Join(want, " ") {
			t.Errorf("%s: columns %s, documented %s", v.Name, got, strings.Join(want, " "))
		}
	}
}

// collect runs a statement and keeps every row.
func collect(ctx context.Context, r teamReader, o pidex.SQLOptions) (pidex.Rows, error) {
	var c pidex.RowCollector
	err := r.SQLStream(ctx, o, &c)
	return c.Rows, err
}

// allTLS reports whether every connection cfg may make is encrypted.
func allTLS(cfg *pgx.ConnConfig) bool {
	if cfg.TLSConfig == nil {
		return false
	}
	for _, fb := range cfg.Fallbacks {
		if fb.TLSConfig == nil {
			return false
		}
	}
	return true
}
