package mcp

import (
	"context"
	"encoding/json"
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/pidex-dev/pidex/engine"
	"github.com/pidex-dev/pidex/internal/pgtest"
)

// The fixtures' pi-subagents parent and its two child runs
// (<parent>/<run id>/run-0|1/session.jsonl).
const (
	subParent = "01a0c2fc-9cca-724f-a634-c1601f9b6374"
	subRun0   = "01a0c2fe-324a-724f-a634-c162cdc0f4e0"
	subRun1   = "01a0c2fe-32e0-724f-a634-c1641033f541"
	subRunID  = "939ae117-d9f4-4779-b999-1d4d2850e11f"
)

// list_sessions gives a parent's subagents beneath it (in the text and
// the data, in the order they started, with ids the other tools take),
// never a subagent at the top; get_session gives a session's subagents
// and a subagent's parent; cost_report's rollup of the parent is its own
// cost plus its subagents'. On the local catalog and on a team catalog.
func TestSubagentTools(t *testing.T) {
	local := fx(t)
	check := func(t *testing.T, f *fixture) {
		type sub struct {
			Session  sessionRef
			Depth    int
			Run      string
			Messages int64
		}
		var list struct {
			Sessions []struct {
				Session   sessionRef
				SpawnedBy string `json:"spawned_by"`
				Subagents []sub
			}
		}
		r := f.ok(t, "list_sessions", map[string]any{"limit": 200, "max_chars": 200000})
		if err := json.Unmarshal(r.raw, &list); err != nil {
			t.Fatal(err)
		}
		var found bool
		for _, s := range list.Sessions {
			if s.SpawnedBy != "" || s.Session.ID == subRun0 || s.Session.ID == subRun1 {
				t.Errorf("subagent %s listed at the top", s.Session.ID)
			}
			if s.Session.ID != subParent {
				continue
			}
			found = true
			if len(s.Subagents) != 2 || s.Subagents[0].Session.ID != subRun0 || s.Subagents[1].Session.ID != subRun1 ||
				s.Subagents[0].Depth != 1 || s.Subagents[1].Run != subRunID+"/run-1" || s.Subagents[0].Messages != 6 {
				t.Errorf("the parent's subagents: %+v", s.Subagents)
			}
		}
		if !found {
			t.Fatalf("the parent is not listed: %s", r.text)
		}
		at := strings.Index(r.text, `session="`+subParent+`"`)
		first, second := strings.Index(r.text, "└ subagent 939ae117/run-0 · session=\""+subRun0+`"`), strings.Index(r.text, "└ subagent 939ae117/run-1 · session=\""+subRun1+`"`)
		if at < 0 || first < at || second < first || regexp.MustCompile(`\n\d+\. `).MatchString(r.text[at:second]) || strings.Count(r.text, subRun0) != 1 {
			t.Errorf("the text does not give the subagents beneath the parent:\n%s", r.text)
		}

		g := f.ok(t, "get_session", map[string]any{"session": subParent})
		if digLen(g.data, "session", "subagents") != 2 || digStr(g.data, "session", "subagents", 1, "session", "id") != subRun1 ||
			!strings.Contains(g.text, "Subagents (2):\n└ subagent 939ae117/run-0 · session=\""+subRun0) {
			t.Errorf("get_session of the parent: %s", g.text)
		}
		// Within the budget: what does not fit is left out, and said.
		small := f.ok(t, "get_session", map[string]any{"session": subParent, "max_chars": 1000})
		if digLen(small.data, "session", "subagents") != 0 || !strings.Contains(digStr(small.data, "truncated"), "2 of 2 subagents") {
			t.Errorf("get_session within 1,000 characters: %s", small.text)
		}
		c := f.ok(t, "get_session", map[string]any{"session": subRun0})
		if !strings.HasSuffix(digStr(c.data, "session", "spawned_by"), subParent+".jsonl") || digStr(c.data, "session", "run") != subRunID+"/run-0" ||
			!strings.Contains(c.text, "Subagent "+subRunID+"/run-0, started by: ") || digLen(c.data, "session", "subagents") != 0 {
			t.Errorf("get_session of a subagent: %s", c.text)
		}

		cost := func(session string, rollup bool) float64 {
			r := f.ok(t, "cost_report", map[string]any{"session": session, "rollup": rollup, "by": []string{"session"}})
			v, _ := dig(r.data, "totals", "cost").(float64)
			return v
		}
		own, kids := cost(subParent, false), cost(subRun0, false)+cost(subRun1, false)
		if all := cost(subParent, true); own <= 0 || kids <= 0 || math.Abs(all-(own+kids)) > 1e-9 {
			t.Errorf("cost of the parent rolled up %v, want its own %v plus its subagents' %v", all, own, kids)
		}
		// activity_report rolls up by the same rule.
		calls := func(session string, rollup bool) (float64, float64) {
			r := f.ok(t, "activity_report", map[string]any{"session": session, "rollup": rollup})
			c, _ := dig(r.data, "totals", "assistant_calls").(float64)
			s, _ := dig(r.data, "totals", "sessions").(float64)
			return c, s
		}
		ownCalls, _ := calls(subParent, false)
		c0, _ := calls(subRun0, false)
		c1, _ := calls(subRun1, false)
		if all, n := calls(subParent, true); ownCalls <= 0 || c0 <= 0 || all != ownCalls+c0+c1 || n != 3 {
			t.Errorf("activity of the parent rolled up: %v calls in %v sessions, want %v + %v + %v in 3", all, n, ownCalls, c0, c1)
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
		team := &fixture{eng: eng, srv: New(eng, Options{})}
		cs, closeFn, err := connect(team.srv)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(closeFn)
		team.cs = cs
		check(t, team)
	})
}
