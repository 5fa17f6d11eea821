package indexer

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pressly/goose/v3"

	"github.com/pidex-dev/pidex/internal/catalogtest"
	"github.com/pidex-dev/pidex/migrations"
)

// The rollups keep the calls pi recorded at $0 with tokens apart
// (zero_cost), and migration 00018 makes them from the usage rows exactly
// as the indexer does: a catalog migrated down and up again holds the
// rollups a refresh made.
func TestZeroCostRollups(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "--home-ann-honest--", "h.jsonl"), catalogtest.UnpricedSession())
	ix := newIndexer(t, root)
	refresh(t, ix)
	var rows []struct {
		Model    string `db:"model"`
		ZeroCost bool   `db:"zero_cost"`
		Calls    int64  `db:"calls"`
	}
	if err := ix.DB.Select(&rows, `SELECT model, zero_cost, sum(calls) AS calls FROM usage_rollup GROUP BY 1, 2 ORDER BY 1, 2`); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rows {
		z := ""
		if r.ZeroCost {
			z = " zero"
		}
		got = append(got, r.Model+z+" "+string(rune('0'+r.Calls)))
	}
	// glm-4.6's aborted call has no tokens: not a zero-cost call; gemma's
	// free call is one (free is decided at report time, by the table).
	if want := "claude-opus-4-5 1,claude-opus-4-5 zero 1,gemma-4-31b-it zero 1,glm-4.6 1,glm-4.6 zero 2"; strings.Join(got, ",") != want {
		t.Errorf("rollup rows %s, want %s", strings.Join(got, ","), want)
	}

	before := dump(t, ix)
	p, err := goose.NewProvider(goose.DialectSQLite3, ix.DB.DB.DB, migrations.FS)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	// Down to before 00018 (and whatever came after it), then up again.
	if _, err := p.DownTo(ctx, 17); err != nil {
		t.Fatal(err)
	}
	var zero int
	if err := ix.DB.Get(&zero, `SELECT count(*) FROM pragma_table_info('usage_rollup') WHERE name = 'zero_cost'`); err != nil || zero != 0 {
		t.Fatalf("after 00018's Down: zero_cost column %d (%v)", zero, err)
	}
	if _, err := p.Up(ctx); err != nil {
		t.Fatal(err)
	}
	if after := dump(t, ix); after != before {
		t.Errorf("migration 00018 made other rollups than the indexer:\nindexer:\n%s\nmigration:\n%s", before, after)
	}
}
