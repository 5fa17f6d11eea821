package postgres_test

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"strings"
	"testing"

	"github.com/pidex-dev/pidex/migrations/postgres"
)

// A released migration is never edited: team catalogs that applied it
// keep what it made, so an edit would reach only new ones and the two
// drift apart. SHA256SUMS pins every migration's bytes. A change goes into
// a new migration; a new migration gets its line here when it is
// committed (`cd migrations/postgres && sha256sum NEW.sql >> SHA256SUMS`,
// and review the diff: no other line may change). The SQLite catalog's
// migrations are pinned the same way.
func TestReleasedMigrationsAreNeverEdited(t *testing.T) {
	f, err := os.Open("SHA256SUMS")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pinned := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok {
			t.Fatalf("SHA256SUMS: malformed line %q", sc.Text())
		}
		pinned[name] = sum
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	files, err := fs.Glob(postgres.FS, "*.sql")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		b, err := fs.ReadFile(postgres.FS, name)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(b)
		switch want, ok := pinned[name]; {
		case !ok:
			t.Errorf("%s has no checksum in SHA256SUMS: add its line when you commit it", name)
		case want != hex.EncodeToString(sum[:]):
			t.Errorf("%s was edited after its release: team catalogs that applied it will never see the edit; revert it and put the change in a new migration", name)
		}
		delete(pinned, name)
	}
	for name := range pinned {
		t.Errorf("SHA256SUMS pins %s, which is gone: a released migration is never removed either", name)
	}
}
