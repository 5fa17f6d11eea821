package mcp

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/pidex-dev/pidex/engine"
	"github.com/pidex-dev/pidex/internal/pgtest"
)

// pidex --catalog postgres://… mcp: the tools answer from a team catalog,
// every session names its machine, a machine argument filters (and picks
// a session whose id is on several machines), and a local catalog's tools
// have no such argument.
func TestTeamCatalog(t *testing.T) {
	local := fx(t)
	pg := pgtest.URL(t)
	ctx := context.Background()
	for _, m := range []string{"laptop", "desk"} { // one corpus, two machines: every id is on both
		if _, err := local.eng.Push(ctx, pg, engine.PushOptions{Machine: m}); err != nil {
			t.Fatal(err)
		}
	}
	eng, err := engine.Open(ctx, engine.Options{Catalog: pg})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	team := &fixture{eng: eng, srv: New(eng, Options{})}
	cs, closeFn, err := connect(team.srv)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(closeFn)
	team.cs = cs

	machineArg := func(f *fixture, tool string) bool {
		for _, tl := range f.tools(t) {
			if tl.Name == tool {
				b, _ := json.Marshal(tl.InputSchema)
				var s struct{ Properties map[string]any }
				_ = json.Unmarshal(b, &s)
				_, ok := s.Properties["machine"]
				return ok
			}
		}
		t.Fatalf("no tool %s", tool)
		return false
	}
	checkUnknownArgument(t, team) // machine among the arguments it lists (issue 39, item 10)
	for _, tool := range []string{"search_sessions", "list_sessions", "get_session", "read_session", "get_context", "cost_report", "activity_report"} {
		if machineArg(local, tool) {
			t.Errorf("%s on a local catalog has a machine argument", tool)
		}
		if !machineArg(team, tool) {
			t.Errorf("%s on a team catalog has no machine argument", tool)
		}
	}

	all := team.ok(t, "list_sessions", map[string]any{"limit": 200})
	mine := team.ok(t, "list_sessions", map[string]any{"limit": 200, "machine": "desk"})
	want := local.ok(t, "list_sessions", map[string]any{"limit": 200})
	if n, w := dig(all.data, "total"), dig(want.data, "total").(float64); n != 2*w || dig(mine.data, "total") != w {
		t.Errorf("total: team %v, desk %v, local %v", n, dig(mine.data, "total"), w)
	}
	for i := range digLen(mine.data, "sessions") {
		if m := digStr(mine.data, "sessions", i, "session", "machine"); m != "desk" {
			t.Fatalf("machine=desk lists a session of %q", m)
		}
	}
	if digStr(want.data, "sessions", 0, "session", "machine") != "" {
		t.Errorf("a local session names a machine: %s", want.raw)
	}

	hits := team.ok(t, "search_sessions", map[string]any{"query": "the", "machine": "laptop", "limit": 5})
	if digLen(hits.data, "hits") == 0 {
		t.Fatalf("no hits: %s", hits.text)
	}
	open := dig(hits.data, "hits", 0, "open").(map[string]any)
	if open["machine"] != "laptop" || digStr(hits.data, "hits", 0, "session", "machine") != "laptop" {
		t.Errorf("a hit's session and open: %s", hits.raw)
	}
	// A hit's open arguments read it, machine included; the session is on
	// two machines, and its handle (id@N) names the one file even without
	// the machine, where the id alone is ambiguous.
	team.ok(t, "read_session", open)
	team.ok(t, "get_session", map[string]any{"session": open["session"], "machine": "laptop"})
	delete(open, "machine")
	if r := team.ok(t, "read_session", open); digStr(r.data, "session", "machine") != "laptop" {
		t.Errorf("the handle %v alone read another machine's file: %s", open["session"], r.raw)
	}
	id, _, _ := strings.Cut(open["session"].(string), "@")
	team.fail(t, "read_session", map[string]any{"session": id, "around": open["around"]})

	// A call copied between machines counts once (the fork rule), unless
	// every copy is asked for.
	cost := team.ok(t, "cost_report", map[string]any{"by": []string{"machine"}})
	localCost := local.ok(t, "cost_report", map[string]any{"by": []string{"model"}})
	if c, w := dig(cost.data, "totals", "calls"), dig(localCost.data, "totals", "calls"); c != w || c == nil {
		t.Errorf("team calls %v, local %v", c, w)
	}
	raw := team.ok(t, "cost_report", map[string]any{"by": []string{"machine"}, "no_dedup": true})
	if n := digLen(raw.data, "rows"); n != 2 {
		t.Errorf("cost by machine, every copy: %d rows: %s", n, raw.text)
	}
	if msg := local.fail(t, "cost_report", map[string]any{"by": []string{"machine"}}); msg == "" {
		t.Error("cost by machine on a local catalog: no message")
	}
}
