package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/pidex-dev/pidex"
)

// A first index of 100 sessions or more writes its text beside the catalog
// only for a caller that runs the text pass next (RefreshBeforeText: index,
// search), which takes it in; Refresh alone (list) leaves the text to a
// later pass and answers as soon as the metadata is in.
func TestTextBesideTheCatalogOnlyBeforeText(t *testing.T) {
	root := corpus(t, 120)
	ctx := context.Background()
	for _, c := range []struct {
		name       string
		beforeText bool
	}{{"list", false}, {"index", true}} {
		t.Run(c.name, func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "c.sqlite")
			p := &pidex.Progress{}
			e, err := Open(ctx, Options{DBPath: db, Roots: []string{root}, Progress: p})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			refresh := e.Refresh
			if c.beforeText {
				refresh = e.RefreshBeforeText
			}
			if _, err := refresh(ctx); err != nil {
				t.Fatal(err)
			}
			_, err = os.Stat(db + "-textbuild")
			if built := err == nil; built != c.beforeText {
				t.Fatalf("text written beside the catalog: %v, want %v (%v)", built, c.beforeText, err)
			}
			st, err := e.RefreshText(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if st.Files != 120 {
				t.Fatalf("text pass: %+v, want 120 files", st)
			}
			// The text phase's bar ends full, adopted or not.
			if p.Phase() != pidex.PhaseText || p.FilesDone.Load() != 120 || p.FilesTotal.Load() != 120 ||
				p.BytesDone.Load() == 0 || p.BytesDone.Load() != p.BytesTotal.Load() {
				t.Errorf("text phase: %q, files %d/%d, bytes %d/%d", p.Phase(), p.FilesDone.Load(), p.FilesTotal.Load(),
					p.BytesDone.Load(), p.BytesTotal.Load())
			}
			if _, err := os.Stat(db + "-textbuild"); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("the scratch file outlived the text pass: %v", err)
			}
			var n int
			if err := e.db.Get(&n, `SELECT count(*) FROM text_index WHERE text_index MATCH 'step'`); err != nil || n == 0 {
				t.Fatalf("search finds %d entries (%v)", n, err)
			}
		})
	}
}
