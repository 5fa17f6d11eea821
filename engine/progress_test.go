package engine

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/pidex-dev/pidex"
)

// A refresh counts its files in one phase and the text pass in another,
// each from zero to its end: what a face draws two bars from.
func TestProgressPhases(t *testing.T) {
	root := corpus(t, 4)
	p := &pidex.Progress{}
	e, err := Open(context.Background(), Options{DBPath: filepath.Join(t.TempDir(), "c.sqlite"), Roots: []string{root}, Progress: p})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	check := func(phase string) {
		t.Helper()
		if p.Phase() != phase || p.FilesDone.Load() != 4 || p.FilesTotal.Load() != 4 ||
			p.BytesDone.Load() == 0 || p.BytesDone.Load() != p.BytesTotal.Load() {
			t.Errorf("after the %s phase: phase %q, files %d/%d, bytes %d/%d", phase, p.Phase(),
				p.FilesDone.Load(), p.FilesTotal.Load(), p.BytesDone.Load(), p.BytesTotal.Load())
		}
	}
	if _, err := e.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	check(pidex.PhaseFiles)
	if _, err := e.RefreshText(context.Background()); err != nil {
		t.Fatal(err)
	}
	check(pidex.PhaseText)
}
