package migrations

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"strings"
	"testing"
)

// A released migration is never edited: catalogs that applied it keep
// what it made, so an edit reaches only new catalogs and the two kinds
// drift apart (0d28695 added a table to 00005 after it had shipped; every
// catalog made before it then failed its cost reports). SHA256SUMS pins
// every migration's bytes. A change goes into a new migration; a new
// migration gets its line here when it is committed, since anyone may
// build and run that commit (`cd migrations && sha256sum *.sql > SHA256SUMS`
// for the new file only, and review the diff: no other line may change).
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
	files, err := fs.Glob(FS, "*.sql")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		b, err := fs.ReadFile(FS, name)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(b)
		switch want, ok := pinned[name]; {
		case !ok:
			t.Errorf("%s has no checksum in SHA256SUMS: add its line when you commit it", name)
		case want != hex.EncodeToString(sum[:]):
			t.Errorf("%s was edited after its release: catalogs that applied it will never see the edit; revert it and put the change in a new migration", name)
		}
		delete(pinned, name)
	}
	for name := range pinned {
		t.Errorf("SHA256SUMS pins %s, which is gone: a released migration is never removed either", name)
	}
}
