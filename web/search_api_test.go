package web

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/render"
)

// /api/search pages like pidex search --offset: the body is exactly the
// CLI's --json for that page; the totals and the pages around it are
// headers.
func TestAPISearchPages(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := context.Background()
	hits, err := f.eng.Search(ctx, pidex.SearchOptions{Query: "test", Limit: 5, Offset: 5})
	if err != nil {
		t.Fatal(err)
	}
	totals, _ := f.eng.SearchTotals(ctx, pidex.SearchOptions{Query: "test"})
	var want bytes.Buffer
	_ = render.WriteJSONLines(&want, hits)
	res, err := f.ts.Client().Get(f.ts.URL + "/api/search?q=test&limit=5&offset=5")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if string(body) != want.String() {
		t.Errorf("page 2 differs from pidex search --json --limit 5 --offset 5:\n%.300s", body)
	}
	h := res.Header
	if h.Get("Pidex-Total-Hits") != itoa(totals.Hits) || h.Get("Pidex-Total-Sessions") != itoa(totals.Sessions) || totals.Hits <= 10 {
		t.Errorf("totals %q hits, %q sessions; want %+v", h.Get("Pidex-Total-Hits"), h.Get("Pidex-Total-Sessions"), totals)
	}
	link := h.Get("Link")
	if !strings.Contains(link, `/api/search?limit=5&offset=10&q=test>; rel="next"`) || !strings.Contains(link, `/api/search?limit=5&q=test>; rel="prev"`) {
		t.Errorf("Link: %s", link)
	}
	if code, _, _ := f.get(t, "/api/search?q=test&offset=-5"); code != 400 {
		t.Errorf("a negative offset: %d", code)
	}
}

// The API's errors are the CLI's words, the option named as the API names
// it, never a sentinel's word glued on.
func TestAPIErrorWords(t *testing.T) {
	f := newFixture(t, Options{})
	for _, tt := range []struct {
		path string
		code int
		want string
	}{
		{"/api/sessions?limit=-1", 400, `{ "error": "limit \"-1\": want a number, 0 or more" }`},
		{"/api/search?q=test&sort=best", 400, `{ "error": "sort \"best\": want relevance or newest" }`},
		{"/api/sessions/nosuch", 404, `{ "error": "no session matches \"nosuch\"" }`},
		{"/api/sessions/" + branchy + "/path?leaf=nope", 404, `{ "error": "session ` + branchy + ` has no entry \"nope\"" }`},
	} {
		code, _, body := f.get(t, tt.path)
		if code != tt.code || strings.Join(strings.Fields(body), " ") != tt.want {
			t.Errorf("%s: %d %s, want %d %s", tt.path, code, body, tt.code, tt.want)
		}
	}
}

func itoa(n int) string { return render.Itoa(int64(n)) }
