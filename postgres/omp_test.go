package postgres_test

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/engine"
	"github.com/pidex-dev/pidex/internal/catalogtest"
	"github.com/pidex-dev/pidex/internal/pgtest"
	"github.com/pidex-dev/pidex/postgres"
)

// oh-my-pi sessions' model contexts from the team catalog are rebuilt by
// oh-my-pi's rules, as the local catalog rebuilds them: the reader tells
// the rebuild each session's source.
func TestOmpContextFromTeamCatalog(t *testing.T) {
	url := pgtest.URL(t)
	m := newMachine(t, "a")
	src := "../testdata/sessions-omp/agent/sessions"
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".jsonl") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		catalogtest.WriteFile(t, filepath.Join(m.root, rel), string(b))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	m.push(t, url, postgres.PushOptions{})
	ctx := context.Background()
	team, err := engine.Open(ctx, engine.Options{Catalog: url})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { team.Close() })
	ss, err := team.List(ctx, pidex.ListOptions{Where: pidex.Where{"agent": pidex.SourceOmp}})
	if err != nil || len(ss) < 4 {
		t.Fatalf("%d omp sessions in the team catalog (%v)", len(ss), err)
	}
	contextJSON := func(e *engine.Engine, path string) string {
		t.Helper()
		ref, err := e.Resolve(ctx, path, "")
		if err != nil {
			t.Fatal(err)
		}
		c, err := e.Context(ctx, ref, "")
		if err != nil {
			t.Fatal(err)
		}
		j, _ := json.Marshal(c)
		return string(j)
	}
	for _, s := range ss {
		if local, remote := contextJSON(m.eng, s.Path), contextJSON(team, s.Path); local != remote {
			t.Errorf("%s: the team catalog's context differs:\nlocal %.400s\nteam  %.400s", filepath.Base(s.Path), local, remote)
		}
	}
}
