package web

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/pidex-dev/pidex/engine"
	"github.com/pidex-dev/pidex/internal/pgtest"
)

// The fixtures' pi-subagents parent (testdata/sessions/--home-ann-proj-delta--)
// and its two child runs, <parent>/<run id>/run-0|1/session.jsonl.
const (
	subParent = "01a0c2fc-9cca-724f-a634-c1601f9b6374"
	subRun0   = "01a0c2fe-324a-724f-a634-c162cdc0f4e0"
	subRun1   = "01a0c2fe-32e0-724f-a634-c1641033f541"
)

// The sessions page shows a parent's subagents in rows beneath its own,
// in the order they started, and nowhere else; the parent's page lists
// them, each linked; a subagent's page names its run and links the
// session that started it; /api/sessions nests them, ?subagents=1 lists
// them flat. On the local catalog and on a team catalog.
func TestSubagentsBeneathTheirParents(t *testing.T) {
	local := newFixtureWith(t, Options{}, "")
	check := func(t *testing.T, f *fixture) {
		_, _, page := f.get(t, "/")
		rows := regexp.MustCompile(`(?s)<tr( class="[^"]*")?>.*?</tr>`).FindAllStringSubmatch(page, -1)
		at := -1
		for i, r := range rows {
			if strings.Contains(r[0], `href="/s/`+subParent+`"`) {
				at = i
			}
		}
		if at < 0 || at+2 >= len(rows) {
			t.Fatalf("no row of the parent with two after it:\n%s", page)
		}
		for i, want := range []struct{ id, run string }{{subRun0, "939ae117/run-0"}, {subRun1, "939ae117/run-1"}} {
			r := rows[at+1+i]
			if r[1] != ` class="subagent depth-1"` || !strings.Contains(r[0], `href="/s/`+want.id+`"`) || !strings.Contains(r[0], `<span class="run">└ `+want.run+`</span>`) {
				t.Errorf("row %d after the parent's: %s", i+1, r[0])
			}
		}
		for _, id := range []string{subRun0, subRun1} {
			if n := strings.Count(page, `href="/s/`+id+`"`); n != 1 {
				t.Errorf("%s is linked %d times on the sessions page", id, n)
			}
		}

		_, _, parent := f.get(t, "/s/"+subParent)
		list := regexp.MustCompile(`(?s)<ul class="subagents" id="subagents">(.*?)</ul>`).FindStringSubmatch(parent)
		if list == nil || strings.Count(list[1], "<li") != 2 || strings.Index(list[1], subRun0) > strings.Index(list[1], subRun1) ||
			!strings.Contains(list[1], `href="/s/`+subRun0+`"`) || !strings.Contains(list[1], "6 messages") {
			t.Errorf("the parent's page lists its subagents as %q", list)
		}
		_, _, child := f.get(t, "/s/"+subRun1)
		by := regexp.MustCompile(`<dd id="spawned-by">(.*?)</dd>`).FindStringSubmatch(child)
		if by == nil || !strings.Contains(by[1], `<span class="run">939ae117/run-1</span>`) || !strings.Contains(by[1], `href="/s/`+subParent+`"`) ||
			!strings.Contains(by[1], "The upload client retries forever") {
			t.Errorf("a subagent's page says of its parent %q", by)
		}
		if strings.Contains(parent, `id="spawned-by"`) || strings.Contains(child, `id="subagents"`) {
			t.Error("the parent is said to be a subagent, or the child to have some")
		}

		// /api/stats and /api/cost roll a parent's subagents in with ?rollup=1.
		calls := func(query string) int64 {
			var d struct {
				Totals struct{ AssistantCalls, Calls int64 }
			}
			code, _, body := f.get(t, query)
			if err := json.Unmarshal([]byte(body), &d); code != 200 || err != nil {
				t.Fatalf("%s: %d %v", query, code, err)
			}
			return d.Totals.AssistantCalls + d.Totals.Calls
		}
		for _, api := range []string{"/api/stats", "/api/cost"} {
			own, kids := calls(api+"?session="+subParent), calls(api+"?session="+subRun0)+calls(api+"?session="+subRun1)
			if all := calls(api + "?rollup=1&session=" + subParent); own <= 0 || kids <= 0 || all != own+kids {
				t.Errorf("%s of the parent rolled up: %d, want its own %d plus its subagents' %d", api, all, own, kids)
			}
		}

		var nested, flat []struct {
			ID, SpawnedBy string
			Subagents     []struct{ ID, Run string }
		}
		_, _, body := f.get(t, "/api/sessions")
		if err := json.Unmarshal([]byte(body), &nested); err != nil {
			t.Fatal(err)
		}
		_, _, body = f.get(t, "/api/sessions?subagents=1")
		if err := json.Unmarshal([]byte(body), &flat); err != nil {
			t.Fatal(err)
		}
		if len(flat) != len(nested)+2 {
			t.Errorf("?subagents=1 lists %d sessions, without %d", len(flat), len(nested))
		}
		for _, s := range nested {
			if s.SpawnedBy != "" {
				t.Errorf("/api/sessions lists subagent %s at the top", s.ID)
			}
			if s.ID == subParent && (len(s.Subagents) != 2 || s.Subagents[0].ID != subRun0 || s.Subagents[1].Run != "939ae117-d9f4-4779-b999-1d4d2850e11f/run-1") {
				t.Errorf("/api/sessions: the parent's subagents are %+v", s.Subagents)
			}
		}
	}
	t.Run("sqlite", func(t *testing.T) { check(t, local) })
	t.Run("postgres", func(t *testing.T) {
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
		check(t, &fixture{eng: eng, srv: srv, ts: ts})
	})
}
