package postgres

import (
	"context"
	"io/fs"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/jackc/pgx/v5/stdlib"
	"github.com/jmoiron/sqlx"
	"github.com/pressly/goose/v3"

	"github.com/pidex-dev/pidex/internal/pgtest"
	pgmigrations "github.com/pidex-dev/pidex/migrations/postgres"
)

// build is the migrations of another pidex build: this one's without the
// files named in drop, with the files of add.
func build(t *testing.T, drop []string, add map[string]string) fs.FS {
	t.Helper()
	out := fstest.MapFS{}
	files, err := fs.Glob(pgmigrations.FS, "*.sql")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if slices.Contains(drop, f) {
			continue
		}
		b, err := fs.ReadFile(pgmigrations.FS, f)
		if err != nil {
			t.Fatal(err)
		}
		out[f] = &fstest.MapFile{Data: b}
	}
	for f, body := range add {
		out[f] = &fstest.MapFile{Data: []byte(body)}
	}
	return out
}

// A pidex whose migrations are not the team catalog's refuses it, to push
// and to read, and names the build that migrated it: one that lacks some
// of the catalog's migrations (a build from before they were merged), or
// has another migration under one of their numbers (a build from another
// line of development). Goose's own record, numbers only, let the first
// push in when its last number was the catalog's (issue 37).
func TestSchemaOfAnotherBuild(t *testing.T) {
	ctx := context.Background()
	url := pgtest.URL(t)
	st, err := Open(ctx, url, Options{Migrate: true, Version: "pidex v1.9.0 (commit 0123456789ab)"})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	// Built before 00006, 00007 and 00009 were merged: its last is 00008,
	// as the catalog's last but one.
	before := build(t, []string{"00006_activity.sql", "00007_zero_cost.sql", "00009_roles.sql", "00010_push_tokens.sql"}, nil)
	// Built on another line: its 00008 is another.
	other := build(t, []string{"00008_subagents.sql", "00009_roles.sql", "00010_push_tokens.sql"}, map[string]string{
		"00008_other.sql": "-- +goose Up\nCREATE TABLE other (id int);\n-- +goose Down\nDROP TABLE other;\n"})
	for _, migrate := range []bool{true, false} {
		err := st.schemaOf(ctx, migrate, before)
		if err == nil || !strings.Contains(err.Error(), "00006_activity.sql") || !strings.Contains(err.Error(), "pidex v1.9.0 (commit 0123456789ab)") {
			t.Errorf("a build without 00006 (migrate %v): %v", migrate, err)
		}
		err = st.schemaOf(ctx, migrate, other)
		if err == nil || !strings.Contains(err.Error(), "00008_subagents.sql") || !strings.Contains(err.Error(), "00008_other.sql") ||
			!strings.Contains(err.Error(), "pidex v1.9.0") {
			t.Errorf("a build with another 00008 (migrate %v): %v", migrate, err)
		}
	}
	if err := st.schemaOf(ctx, false, pgmigrations.FS); err != nil {
		t.Errorf("this build: %v", err)
	}
}

// gapped are the migrations the gapped build of TestSchemaGapFilled
// lacks: 00006, 00007 and every one after 00008.
func gapped(t *testing.T) []string {
	all, err := fs.Glob(pgmigrations.FS, "*.sql")
	if err != nil {
		t.Fatal(err)
	}
	out := []string{}
	for _, f := range all {
		if n := f[:5]; n == "00006" || n == "00007" || n > "00008" {
			out = append(out, f)
		}
	}
	return out
}

// A catalog a build with a gap in its migrations made (00001–00005 and
// 00008: a branch's build, before 00006 and 00007 were merged under it)
// is completed by this one, out of order, and then known by content.
func TestSchemaGapFilled(t *testing.T) {
	ctx := context.Background()
	url := pgtest.URL(t)
	gap := build(t, gapped(t), nil)
	if _, err := Open(ctx, url, Options{}); err == nil {
		t.Fatal("an empty catalog opened to read")
	}
	st, err := openWithout(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	p, err := goose.NewProvider(goose.DialectPostgres, st.db.DB, gap) // that build's own migration
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Up(ctx); err != nil {
		t.Fatal(err)
	}
	if err := st.schemaOf(ctx, false, pgmigrations.FS); err == nil || !strings.Contains(err.Error(), "00006_activity.sql, 00007_zero_cost.sql, 00009_roles.sql") {
		t.Errorf("a reader of the gapped catalog: %v", err)
	}
	if err := st.schemaOf(ctx, true, pgmigrations.FS); err != nil {
		t.Fatalf("the owner fills the gap: %v", err)
	}
	var n int
	all, err := fs.Glob(pgmigrations.FS, "*.sql")
	if err != nil {
		t.Fatal(err)
	}
	if err := st.db.QueryRowContext(ctx, `SELECT count(*) FROM migration_sums`).Scan(&n); err != nil || n != len(all) {
		t.Errorf("%d migrations recorded (%v), want %d", n, err, len(all))
	}
	if err := st.schemaOf(ctx, false, pgmigrations.FS); err != nil {
		t.Errorf("after: %v", err)
	}
}

// openWithout connects without checking the schema.
func openWithout(ctx context.Context, url string) (*Store, error) {
	cfg, err := Config(url)
	if err != nil {
		return nil, err
	}
	s := &Store{cfg: cfg, url: Redacted(url)}
	s.db = sqlx.NewDb(stdlib.OpenDB(*cfg), "pgx")
	return s, s.db.PingContext(ctx)
}

// A newer pidex pushing as a role that does not own the catalog's tables
// does not migrate them: it says who may.
func TestSchemaMigratedByTheOwnerOnly(t *testing.T) {
	ctx := context.Background()
	url := pgtest.URL(t)
	pgtest.RequireCreateRole(t, url)
	st, err := Open(ctx, url, Options{Migrate: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	role := pgtest.Role(url, "ann")
	for _, q := range []string{`CREATE ROLE ` + role + ` LOGIN`, `GRANT SELECT ON goose_db_version, migration_sums TO ` + role} {
		if _, err := st.db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	ann, err := openWithout(ctx, pgtest.AsRole(url, role, ""))
	if err != nil {
		t.Fatal(err)
	}
	defer ann.Close()
	newer := build(t, nil, map[string]string{"00099_next.sql": "-- +goose Up\nCREATE TABLE next (id int);\n-- +goose Down\nDROP TABLE next;\n"})
	err = ann.schemaOf(ctx, true, newer)
	if err == nil || !strings.Contains(err.Error(), "00099_next.sql") || !strings.Contains(err.Error(), "only the owner") {
		t.Errorf("a newer pidex as another role: %v", err)
	}
	if err := st.schemaOf(ctx, true, newer); err != nil {
		t.Errorf("the owner: %v", err)
	}
}
