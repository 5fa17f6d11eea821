package redact_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/engine"
	"github.com/pidex-dev/pidex/internal/catalogtest"
	"github.com/pidex-dev/pidex/internal/redact"
	"github.com/pidex-dev/pidex/web"
)

// A wrapped catalog answers every read with no planted secret in it, and
// the references it gives (a path that held a secret) open the session.
// Unwrapped, the same answers hold them: the test sees what it looks for.
func TestCatalogShowsNoSecret(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	for i, p := range catalogtest.Planted {
		rel, lines := catalogtest.PlantedSession(i, p)
		catalogtest.WriteFile(t, filepath.Join(root, rel), strings.Join(lines, "\n")+"\n")
	}
	eng, err := engine.Open(ctx, engine.Options{DBPath: filepath.Join(t.TempDir(), "db.sqlite"), Roots: []string{root}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	if _, err := eng.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := eng.RefreshText(ctx); err != nil {
		t.Fatal(err)
	}
	answers := func(cat pidex.Catalog) string {
		var all []any
		add := func(v any, err error) {
			if err != nil {
				t.Fatal(err)
			}
			all = append(all, v)
		}
		ss, err := cat.List(ctx, pidex.ListOptions{})
		add(ss, err)
		if len(ss) != len(catalogtest.Planted) {
			t.Fatalf("%d sessions, want %d", len(ss), len(catalogtest.Planted))
		}
		for _, s := range ss {
			ref, err := cat.Resolve(ctx, s.Path, "")
			add(ref, err)
			add(cat.Info(ctx, ref))
			add(cat.Overview(ctx, ref))
			add(cat.Tree(ctx, ref, pidex.TreeOptions{}))
			add(cat.Previews(ctx, ref))
			add(cat.Path(ctx, ref, ""))
			add(cat.Context(ctx, ref, ""))
			var es []json.RawMessage
			err = cat.EntryObjects(ctx, ref, "", func(e json.RawMessage) error { es = append(es, e); return nil })
			add(es, err)
			add(cat.Read(ctx, ref, pidex.ReadOptions{}))
			add(cat.Resume(ctx, ref, pidex.ResumeOptions{}))
		}
		for _, q := range []string{"please", "AKIA*", "output", "key"} {
			hits, err := cat.Search(ctx, pidex.SearchOptions{Query: q, Limit: 100})
			add(hits, err)
			for _, h := range hits {
				all = append(all, h.Segments, h.Name, h.FirstMessage, h.Cwd)
			}
			add(cat.SearchSessions(ctx, pidex.SearchOptions{Query: q, Limit: 100}))
		}
		add(cat.Cost(ctx, pidex.CostOptions{By: []string{"model", "project"}}))
		add(cat.Stats(ctx, pidex.StatsOptions{}))
		add(cat.SQL(ctx, pidex.SQLOptions{Statement: "SELECT * FROM entries_v", MaxRows: 100000}))
		add(cat.Warnings(ctx))
		b, err := json.Marshal(all)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if plain := answers(eng); countLeft(plain) < len(catalogtest.Planted) {
		t.Fatalf("unredacted, the answers hold %d kinds of secrets: the test sees nothing", countLeft(plain))
	}
	left(t, "catalog", answers(redact.Wrap(eng)))

	// pidex serve --redact: its pages and API.
	srv, err := web.New(redact.Wrap(eng), web.Options{Addr: "127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	ss, _ := eng.List(ctx, pidex.ListOptions{})
	urls := []string{"/", "/search?q=please", "/cost", "/activity", "/api/sessions", "/api/search?q=key"}
	for _, s := range ss {
		urls = append(urls, "/s/"+s.ID, "/api/sessions/"+s.ID, "/api/sessions/"+s.ID+"/tree", "/api/sessions/"+s.ID+"/path",
			"/api/sessions/"+s.ID+"/context", "/s/"+s.ID+"/export?format=html", "/s/"+s.ID+"/export?format=json")
	}
	h := srv.Handler()
	for _, u := range urls {
		req := httptest.NewRequest("GET", "http://127.0.0.1:1"+u, nil)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		body, _ := io.ReadAll(rec.Result().Body)
		if rec.Code != http.StatusOK {
			t.Errorf("GET %s: %d %.300s", u, rec.Code, body)
		}
		left(t, "serve "+u, string(body))
	}
}

func left(t *testing.T, where, s string) {
	t.Helper()
	s = strings.ToLower(s)
	for _, p := range catalogtest.Planted {
		for _, probe := range p.Probes() {
			if i := strings.Index(s, probe); i >= 0 {
				t.Errorf("%s: %s secret %q shown: …%q…", where, p.Kind, probe, s[max(0, i-100):min(len(s), i+len(probe)+30)])
				break
			}
		}
	}
}

func countLeft(s string) int {
	s, n := strings.ToLower(s), 0
	for _, p := range catalogtest.Planted {
		for _, probe := range p.Probes() {
			if strings.Contains(s, probe) {
				n++
				break
			}
		}
	}
	return n
}
