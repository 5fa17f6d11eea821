package main

import (
	"encoding/json"
	"math"
	"os"
	"testing"
)

// pidex's daily cost of assistant calls equals ccusage's on a corpus that
// neither wrote, without Node: testdata/ccusage holds the sessions and
// ccusage's answer for them (its README says how both were made). Tokens
// must match to the unit, cost to the cent.
func TestCostEqualsCcusage(t *testing.T) {
	e := newSQLEnv(t, "../../testdata/ccusage/sessions")
	out, err := e.run("cost", "--source", "assistant", "--tz", "UTC", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Rows []struct {
			Day                                  string
			Input, Output, CacheRead, CacheWrite float64
			TotalTokens, Cost                    float64
		}
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile("../../testdata/ccusage/daily.json")
	if err != nil {
		t.Fatal(err)
	}
	var want struct {
		Daily []struct {
			Date                                 string
			InputTokens, OutputTokens            float64
			CacheReadTokens, CacheCreationTokens float64
			TotalTokens, TotalCost               float64
		}
	}
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}
	// ccusage leaves out calls with no tokens (aborted or failed requests),
	// so a day holding only such calls is a row of zeros in pidex alone.
	rows := got.Rows[:0]
	zeros := 0
	for _, r := range got.Rows {
		if r.TotalTokens == 0 && r.Cost == 0 {
			zeros++
			continue
		}
		rows = append(rows, r)
	}
	got.Rows = rows
	if len(want.Daily) < 30 || len(got.Rows) != len(want.Daily) || zeros > 1 {
		t.Fatalf("pidex has %d days with tokens and %d without, ccusage %d days", len(got.Rows), zeros, len(want.Daily))
	}
	for i, w := range want.Daily {
		g := got.Rows[i]
		if g.Day != w.Date || g.Input != w.InputTokens || g.Output != w.OutputTokens || g.CacheRead != w.CacheReadTokens ||
			g.CacheWrite != w.CacheCreationTokens || g.TotalTokens != w.TotalTokens || math.Abs(g.Cost-w.TotalCost) >= 0.005 {
			t.Errorf("pidex %+v\nccusage %+v", g, w)
		}
	}
}
