package mcp

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/pidex-dev/pidex"
)

// activity_report's structured content is Catalog.Stats for the same
// options, every list whole when the budget allows, each entry named by
// the handle read_session opens.
func TestActivityIsStats(t *testing.T) {
	f := fx(t)
	ctx := context.Background()
	rep, err := f.eng.Stats(ctx, pidex.StatsOptions{By: []string{"week", "agent"}, TZ: "UTC", Where: pidex.Where{"project": "a"}, Branch: "active"})
	if err != nil {
		t.Fatal(err)
	}
	r := f.ok(t, "activity_report", map[string]any{"by": []string{"week", "agent"}, "tz": "UTC", "project": "a", "branch": "active", "max_chars": pidex.MaxBudget})
	var got activityResult
	if err := json.Unmarshal(r.raw, &got); err != nil {
		t.Fatal(err)
	}
	if got.Truncated != "" || got.LeftOut != nil {
		t.Fatalf("left out %v: %s", got.LeftOut, got.Truncated)
	}
	if got.Totals != figures(rep.Totals) || got.Groups != len(rep.Rows) || len(got.Rows) != len(rep.Rows) {
		t.Errorf("totals %+v in %d rows, want %+v in %d", got.Totals, len(got.Rows), figures(rep.Totals), len(rep.Rows))
	}
	for i, row := range rep.Rows {
		if i < len(got.Rows) && (got.Rows[i].activityFigures != figures(row.StatsFigures) || got.Rows[i].Keys["week"] != row.Keys[0] || got.Rows[i].Keys["agent"] != row.Keys[1]) {
			t.Errorf("row %d: %+v, want %v %+v", i, got.Rows[i], row.Keys, row.StatsFigures)
		}
	}
	if len(got.Tools) != len(rep.Tools) || len(got.Commands) != len(rep.Commands) || len(got.Errors) != len(rep.Errors) || len(got.Slowest) != len(rep.Slowest) {
		t.Fatalf("lists: %d tools, %d commands, %d errors, %d slowest; want %d, %d, %d, %d", len(got.Tools), len(got.Commands), len(got.Errors), len(got.Slowest),
			len(rep.Tools), len(rep.Commands), len(rep.Errors), len(rep.Slowest))
	}
	for i, x := range rep.Tools {
		if g := got.Tools[i]; g.Tool != x.Tool || g.Calls != x.Calls || g.Errors != x.Errors || g.ErrorRate != x.ErrorRate() || g.MeanMs != x.MeanMs() || g.MaxMs != x.MaxDuration {
			t.Errorf("tool %d: %+v, want %+v", i, g, x)
		}
	}
	for i, x := range rep.Commands {
		if g := got.Commands[i]; !reflect.DeepEqual(g, activityCmd{x.Command, x.Calls, x.Errors, x.User}) {
			t.Errorf("command %d: %+v, want %+v", i, g, x)
		}
	}
	entry := func(e pidex.EntryRef, g activityRef) {
		t.Helper()
		hs, err := f.eng.Handles(ctx, []pidex.SessionRef{e.Session}, false)
		if err != nil {
			t.Fatal(err)
		}
		if g.Session != hs[0] || g.EntryID != e.EntryID {
			t.Errorf("entry %+v, want %s %s", g, hs[0], e.EntryID)
		}
		// It opens there.
		if rd := f.ok(t, "read_session", map[string]any{"session": g.Session, "around": g.EntryID, "limit": 3}); rd.isError {
			t.Errorf("read_session session=%s around=%s: %s", g.Session, g.EntryID, rd.text)
		}
	}
	for i, x := range rep.Errors {
		g := got.Errors[i]
		if g.StopReason != x.Kind || g.Message != x.Message || g.Count != x.Count {
			t.Errorf("error %d: %+v, want %+v", i, g, x)
		}
		entry(x.Last, g.Latest)
	}
	for i, x := range rep.Slowest {
		g := got.Slowest[i]
		if g.Tool != x.Tool || g.DurationMs != x.DurationMs {
			t.Errorf("slowest %d: %+v, want %+v", i, g, x)
		}
		entry(x.At, g.At)
	}
	if len(rep.Errors) == 0 || len(rep.Slowest) == 0 || len(rep.Rows) < 2 {
		t.Errorf("the case exercises too little: %d errors, %d slowest, %d rows", len(rep.Errors), len(rep.Slowest), len(rep.Rows))
	}
	// The heatmap's peak (the first of the busiest hours) and sums.
	var peak pidex.HeatCell
	var peakDay, peakHour int
	var all, day0 int64
	for d := range rep.Heatmap {
		for h, c := range rep.Heatmap[d] {
			all += c.ActiveMs
			if d == 0 {
				day0 += c.ActiveMs
			}
			if c.ActiveMs > peak.ActiveMs {
				peak, peakDay, peakHour = c, d, h
			}
		}
	}
	sum := int64(0)
	for _, ms := range got.Heatmap.ByHour {
		sum += ms
	}
	p := got.Heatmap.Peak
	if p == nil || p.ActiveMs != peak.ActiveMs || p.UserTurns != peak.UserTurns || p.Hour != peakHour ||
		p.Weekday != []string{"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"}[peakDay] || sum != all || got.Heatmap.ByWeekday[0] != day0 || all == 0 {
		t.Errorf("heatmap %+v (peak %+v): %d ms in all, want %d, the peak %+v on day %d at %d", got.Heatmap, p, sum, all, peak, peakDay, peakHour)
	}
}
