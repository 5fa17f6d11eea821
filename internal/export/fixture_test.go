package export_test

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/engine"
	"github.com/pidex-dev/pidex/internal/catalogtest"
	"github.com/pidex-dev/pidex/internal/export"
	"github.com/pidex-dev/pidex/internal/htmltest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	htmltest.Stop()
	os.Exit(code)
}

// catalog indexes the repository's test sessions, and the sessions of
// extra (file name → content) in a folder of their own.
func catalog(t testing.TB, extra map[string]string) *engine.Engine {
	t.Helper()
	root := t.TempDir()
	for name, content := range extra {
		catalogtest.WriteFile(t, filepath.Join(root, "--extra--", name), content)
	}
	ctx := context.Background()
	eng, err := engine.Open(ctx, engine.Options{DBPath: filepath.Join(t.TempDir(), "db.sqlite"),
		Roots: []string{"../../testdata/sessions", root}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	if _, err := eng.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	return eng
}

// write exports the session ref names.
func write(t testing.TB, cat pidex.Catalog, ref string, o pidex.ExportOptions) string {
	t.Helper()
	r, err := cat.Resolve(context.Background(), ref, "")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := export.Write(context.Background(), cat, r, o, &b); err != nil {
		t.Fatalf("export %s: %v", ref, err)
	}
	return b.String()
}

func exportWrite(cat pidex.Catalog, r pidex.SessionRef, o pidex.ExportOptions, w io.Writer) error {
	return export.Write(context.Background(), cat, r, o, w)
}
