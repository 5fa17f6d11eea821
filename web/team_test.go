package web

import (
	"context"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/pidex-dev/pidex/engine"
	"github.com/pidex-dev/pidex/internal/htmltest"
	"github.com/pidex-dev/pidex/internal/pgtest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.Stop()
	htmltest.Stop()
	os.Exit(code)
}

// serve --catalog postgres://…: the pages and the API answer from a team
// catalog, the API with the local catalog's bytes plus each object's
// machine, and ?machine= filters and picks.
func TestTeamCatalog(t *testing.T) {
	local := newFixtureWith(t, Options{}, "")
	pg := pgtest.URL(t)
	ctx := context.Background()
	if _, err := local.eng.Push(ctx, pg, engine.PushOptions{Machine: "laptop"}); err != nil {
		t.Fatal(err)
	}
	eng, err := engine.Open(ctx, engine.Options{Catalog: pg})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	ts := httptest.NewUnstartedServer(nil)
	srv, err := New(eng, Options{Addr: ts.Listener.Addr().String()})
	if err != nil {
		t.Fatal(err)
	}
	ts.Config.Handler = srv.Handler()
	ts.Start()
	t.Cleanup(ts.Close)
	team := &fixture{eng: eng, srv: srv, ts: ts}
	machine := regexp.MustCompile(`,"machine":"laptop"`)
	for _, path := range []string{"/api/sessions", "/api/search?q=the&limit=50", "/api/cost?by=day,model&tz=UTC",
		"/api/sessions/release-notes.2026-09/tree", "/api/sessions/release-notes.2026-09/context"} {
		lc, _, lb := local.get(t, path)
		tc, _, tb := team.get(t, path)
		if lc != 200 || tc != 200 || machine.ReplaceAllString(tb, "") != lb {
			t.Errorf("%s: local %d, team %d:\n%.300s\n%.300s", path, lc, tc, lb, tb)
		}
	}
	for path, want := range map[string]int{
		"/api/sessions?machine=laptop":             200,
		"/api/sessions?machine=nowhere":            200,
		"/":                                        200,
		"/search?q=the":                            200,
		"/cost?tz=UTC&by=machine":                  200,
		"/activity?tz=UTC&by=machine":              200,
		"/api/stats?by=machine&tz=UTC":             200,
		"/s/release-notes.2026-09?machine=laptop":  200,
		"/s/release-notes.2026-09?machine=nowhere": 404,
		"/api/cost?by=machine&tz=UTC":              200,
	} {
		if code, _, body := team.get(t, path); code != want {
			t.Errorf("%s: %d, want %d: %.200s", path, code, want, body)
		}
	}
	if _, _, body := team.get(t, "/api/sessions?machine=nowhere"); strings.TrimSpace(body) != "[]" {
		t.Errorf("?machine=nowhere lists %.200s", body)
	}
	if code, _, _ := local.get(t, "/api/sessions?machine="+url.QueryEscape("laptop")); code != 400 {
		t.Errorf("?machine= on a local catalog: %d, want 400", code)
	}
}
