package postgres_test

import (
	"context"
	"database/sql"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"

	"github.com/pidex-dev/pidex/internal/pgtest"
	"github.com/pidex-dev/pidex/migrations/postgres"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

func provider(t *testing.T) (*goose.Provider, *sql.DB) {
	t.Helper()
	db, err := sql.Open("pgx", pgtest.URL(t))
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
// again.
func TestUpDownUp(t *testing.T) {
	ctx := context.Background()
	p, db := provider(t)
	if _, err := p.Up(ctx); err != nil {
		t.Fatal(err)
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
