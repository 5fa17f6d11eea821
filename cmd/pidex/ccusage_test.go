package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// ccusage's daily report against pidex's, without Node: testdata/ccusage
// holds ccusage 20.0.24's answers for two corpora (its README says how
// they were made): a pi corpus without forks, and OpenClaw's (whose runs
// write several assistant messages with one time and one usage). The
// relation docs/cost.md states is checked as it is: pidex's per-call
// records, with ccusage's rules applied — one record per (project folder,
// session id of the file name, time, model, token counts, cost), none
// without tokens — give ccusage's daily rows (tokens to the unit, cost to
// the cent); and `pidex cost --source assistant --no-dedup` is those rows
// plus exactly the records the two rules leave out.
func TestCostEqualsCcusage(t *testing.T) {
	for _, c := range []struct {
		name, sessions, daily string
		minRepeats, minZero   int // the cases must occur
	}{
		{"pi corpus", "../../testdata/ccusage/sessions", "../../testdata/ccusage/daily.json", 0, 1},
		{"OpenClaw", "../../testdata/sessions-openclaw/agents", "../../testdata/ccusage/openclaw-daily.json", 1, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newSQLEnv(t, c.sessions)
			type sums struct {
				Input, Output, CacheRead, CacheWrite, Cost float64
				Calls                                      int64
			}
			add := func(s *sums, in, out, cr, cw, cost float64) {
				s.Input, s.Output, s.CacheRead, s.CacheWrite, s.Cost, s.Calls = s.Input+in, s.Output+out, s.CacheRead+cr, s.CacheWrite+cw, s.Cost+cost, s.Calls+1
			}
			// pidex's records, and ccusage's rules applied to them.
			out, err := e.run("sql", "--json", `SELECT path, ts_ms, strftime('%Y-%m-%d', ts_ms / 1000, 'unixepoch') AS day, model,
				input, output, cache_read, cache_write, cost FROM usage_v WHERE source = 'assistant' ORDER BY path, offset`)
			if err != nil {
				t.Fatal(err)
			}
			var recs []struct {
				Path, Day, Model    string
				TsMs                int64 `json:"ts_ms"`
				Input, Output, Cost float64
				CacheRead           float64 `json:"cache_read"`
				CacheWrite          float64 `json:"cache_write"`
			}
			if err := json.Unmarshal([]byte(out), &recs); err != nil {
				t.Fatal(err)
			}
			ccu, raw := map[string]*sums{}, map[string]*sums{}
			seen := map[string]bool{}
			repeats, zero := 0, 0
			for _, r := range recs {
				if raw[r.Day] == nil {
					raw[r.Day] = &sums{}
				}
				add(raw[r.Day], r.Input, r.Output, r.CacheRead, r.CacheWrite, r.Cost)
				if r.Input+r.Output+r.CacheRead+r.CacheWrite == 0 {
					zero++
					continue
				}
				// The session id is the file name after the timestamp pi
				// puts before it (OpenClaw's names have none).
				base := strings.TrimSuffix(filepath.Base(r.Path), ".jsonl")
				id := base[strings.LastIndex(base, "_")+1:]
				key, _ := json.Marshal([]any{filepath.Dir(r.Path), id, r.TsMs, r.Model, r.Input, r.Output, r.CacheRead, r.CacheWrite, r.Cost})
				if seen[string(key)] {
					repeats++
					continue
				}
				seen[string(key)] = true
				if ccu[r.Day] == nil {
					ccu[r.Day] = &sums{}
				}
				add(ccu[r.Day], r.Input, r.Output, r.CacheRead, r.CacheWrite, r.Cost)
			}
			if repeats < c.minRepeats || zero < c.minZero {
				t.Errorf("%d records repeat ccusage's key and %d have no tokens; the corpus should show at least %d and %d", repeats, zero, c.minRepeats, c.minZero)
			}
			data, err := os.ReadFile(c.daily)
			if err != nil {
				t.Fatal(err)
			}
			var want struct {
				Daily []struct {
					Date                                 string
					InputTokens, OutputTokens            float64
					CacheReadTokens, CacheCreationTokens float64
					TotalCost                            float64
				}
			}
			if err := json.Unmarshal(data, &want); err != nil {
				t.Fatal(err)
			}
			var days []string
			for d := range ccu {
				days = append(days, d)
			}
			sort.Strings(days)
			if len(days) != len(want.Daily) || len(want.Daily) == 0 {
				t.Fatalf("ccusage's rules give %d days, ccusage %d", len(days), len(want.Daily))
			}
			for i, w := range want.Daily {
				g := ccu[days[i]]
				if days[i] != w.Date || g.Input != w.InputTokens || g.Output != w.OutputTokens || g.CacheRead != w.CacheReadTokens ||
					g.CacheWrite != w.CacheCreationTokens || math.Abs(g.Cost-w.TotalCost) >= 0.005 {
					t.Errorf("%s with ccusage's rules: %+v\nccusage %+v", days[i], *g, w)
				}
			}
			// pidex's own report: every record, the ones ccusage leaves out
			// included (a zero-token call counts as a call).
			out, err = e.run("cost", "--source", "assistant", "--tz", "UTC", "--no-dedup", "--json")
			if err != nil {
				t.Fatal(err)
			}
			var got struct {
				Rows []struct {
					Day                                  string
					Input, Output, CacheRead, CacheWrite float64
					Cost                                 float64
					Calls                                int64
				}
			}
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Fatal(err)
			}
			if len(got.Rows) != len(raw) {
				t.Fatalf("pidex cost has %d days, its records %d", len(got.Rows), len(raw))
			}
			var diffCalls int64
			for _, g := range got.Rows {
				r := raw[g.Day]
				if r == nil || g.Input != r.Input || g.Output != r.Output || g.CacheRead != r.CacheRead || g.CacheWrite != r.CacheWrite ||
					g.Calls != r.Calls || math.Abs(g.Cost-r.Cost) > 1e-9 {
					t.Errorf("pidex cost %+v, its records %+v", g, r)
				}
				if w := ccu[g.Day]; w != nil {
					diffCalls += g.Calls - w.Calls
				} else {
					diffCalls += g.Calls
				}
			}
			if diffCalls != int64(repeats+zero) {
				t.Errorf("pidex counts %d calls more than ccusage, the two rules name %d", diffCalls, repeats+zero)
			}
		})
	}
}
