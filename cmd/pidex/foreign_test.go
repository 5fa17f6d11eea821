package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jmoiron/sqlx"
)

// A SQLite database of something else is refused and left as it was; a
// damaged pidex catalog (its header says pidex, its pages are garbage) is
// rebuilt by index --full.
func TestForeignAndDamagedCatalogs(t *testing.T) {
	root, _ := filepath.Abs(showSessions)
	dir := t.TempDir()
	run := func(db string, args ...string) (string, error) {
		var out, errb bytes.Buffer
		err := newApp(&out, &errb).execute(context.Background(), append([]string{"--db", db, "--sessions", root, "-q"}, args...))
		if err != nil {
			return errb.String(), err
		}
		return out.String(), nil
	}
	// The second one's header happens to carry pidex's application id
	// ("pidx"): it was taken for an old catalog and emptied.
	for i, id := range []string{"", "PRAGMA application_id = 1885955192"} {
		foreign := filepath.Join(dir, fmt.Sprintf("notes%d.db", i))
		fdb := sqlx.MustOpen("sqlite", foreign)
		if id != "" {
			fdb.MustExec(id)
		}
		fdb.MustExec("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('keep me')")
		fdb.Close()
		before, _ := os.ReadFile(foreign)
		for _, args := range [][]string{{"list"}, {"index", "--full"}, {"index"}} {
			if _, err := run(foreign, args...); err == nil || !strings.Contains(err.Error(), "not a pidex catalog") {
				t.Errorf("%v on someone else's database %d: %v", args, i, err)
			}
		}
		if after, _ := os.ReadFile(foreign); !bytes.Equal(before, after) {
			t.Errorf("someone else's database %d was changed", i)
		}
	}

	damaged := filepath.Join(dir, "catalog.sqlite")
	if _, err := run(damaged, "list"); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(damaged)
	for i := 100; i < len(b) && i < 8192; i++ {
		b[i] = 0xA5 // keep the header (it says pidex), ruin the pages
	}
	os.Remove(damaged + "-wal")
	os.Remove(damaged + "-shm")
	if err := os.WriteFile(damaged, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := run(damaged, "list", "--no-refresh"); err == nil {
		t.Fatal("a damaged catalog opened")
	}
	if _, err := run(damaged, "index", "--full"); err != nil {
		t.Fatalf("index --full on a damaged pidex catalog: %v", err)
	}
	if out, err := run(damaged, "list", "--no-refresh"); err != nil || !strings.Contains(out, "01a09f30") {
		t.Errorf("after the rebuild: %v\n%.300s", err, out)
	}
}
