package catalog

import (
	"context"
	"path/filepath"
	"testing"
)

func TestOpenMigratesAndUsesWAL(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "sub", "index.sqlite")
	for i := 0; i < 2; i++ { // the second open finds the schema current
		db, err := Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		var n int
		if err := db.GetContext(ctx, &n, "SELECT count(*) FROM sqlite_master WHERE type='table' AND name IN ('files','sessions','entries','edges','labels','usage')"); err != nil {
			t.Fatal(err)
		}
		if n != 6 {
			t.Fatalf("got %d catalog tables, want 6", n)
		}
		var mode string
		if err := db.GetContext(ctx, &mode, "PRAGMA journal_mode"); err != nil || mode != "wal" {
			t.Fatalf("journal_mode = %q, %v", mode, err)
		}
		db.Close()
	}
}
