package query_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/indexer"
	"github.com/pidex-dev/pidex/internal/catalogtest"
	"github.com/pidex-dev/pidex/internal/render"
	"github.com/pidex-dev/pidex/pi"
	"github.com/pidex-dev/pidex/sqlite"
)

// costCorpus copies the pi-written sessions (with a createBranchedSession
// fork, A3, and a forkFrom fork, B2) and adds a file of calls around day
// boundaries in three zones, fractional tokens, every source, a fork copy
// and an abandoned branch.
func costCorpus(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	for _, d := range []string{"--home-ann-proj-alpha--", "--home-ann-proj-beta--", "--home-ann-work-gamma-api--"} {
		src := filepath.Join("..", "testdata", "sessions", d)
		files, err := os.ReadDir(src)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			b, err := os.ReadFile(filepath.Join(src, f.Name()))
			if err != nil {
				t.Fatal(err)
			}
			catalogtest.WriteFile(t, filepath.Join(root, d, f.Name()), string(b))
		}
	}
	// Calls pi recorded at $0 (issue 36): unpriced, free and aborted.
	catalogtest.WriteFile(t, filepath.Join(root, "--home-ann-honest--", "2026-05-01T09-59-00-000Z_"+catalogtest.UnpricedID+".jsonl"),
		catalogtest.UnpricedSession())
	orig := edgeSession("e1")
	catalogtest.WriteFile(t, filepath.Join(root, "--home-ann-edges--", "2026-03-07T00-00-00-000Z_e1.jsonl"), orig)
	// A fork: the same entries (ids, times, usage) in a later file, then
	// a call of its own.
	fork := strings.Replace(orig, `"id":"e1","timestamp":"2026-03-07T00:00:00.000Z"`, `"id":"e2","timestamp":"2026-03-10T00:00:00.000Z"`, 1) +
		call("f1", "x4", "assistant", "2026-03-10T12:00:00.000Z", `"provider":"openai","model":"gpt-5.1-codex"`, 100, 7)
	catalogtest.WriteFile(t, filepath.Join(root, "--home-ann-edges--", "2026-03-10T00-00-00-000Z_e2.jsonl"), fork)
	return root
}

// edgeSession: calls at the edges of days in UTC, America/Los_Angeles
// (DST starts 2026-03-08 10:00 UTC) and Asia/Kathmandu (+05:45); an
// abandoned branch (x2b, x5); every source; fractional tokens.
func edgeSession(id string) string {
	h := fmt.Sprintf(`{"type":"session","version":3,"id":%q,"timestamp":"2026-03-07T00:00:00.000Z","cwd":"/home/ann/edges"}`, id) + "\n"
	return h +
		`{"type":"model_change","id":"m0","parentId":null,"timestamp":"2026-03-07T07:59:00.000Z","provider":"openai","modelId":"gpt-5.1-codex"}` + "\n" +
		call("x1", "m0", "assistant", "2026-03-08T07:59:59.999Z", `"provider":"anthropic","model":"claude-opus-4-5"`, 1000.5, 0.25) +
		call("x2", "x1", "toolResult", "2026-03-08T08:00:00.000Z", ``, 10, 0.01) +
		call("x2b", "x1", "assistant", "2026-03-09T06:59:59.000Z", `"provider":"google","model":"gemini-2.5-pro"`, 70, 0.5) +
		call("x3", "x2", "compaction", "2026-03-09T07:00:00.000Z", ``, 20, 0.02) +
		call("x3b", "x3", "usage", "2026-03-09T18:14:59.999Z", `"provider":"anthropic","model":"claude-haiku-4-5","kind":"cache_warm"`, 5, 0.001) +
		call("x5", "m0", "toolResult", "2026-03-09T18:20:00.000Z", ``, 3, 0.003) + // a branch from the model change
		call("x4", "x3b", "branch_summary", "2026-03-09T18:15:00.000Z", ``, 30, 0.03)
}

// call writes one usage-carrying entry of the given source.
func call(id, parent, source, ts, model string, tokens, cost float64) string {
	u := fmt.Sprintf(`{"input":%v,"output":%v,"cacheRead":%v,"cacheWrite":%v,"cacheWrite1h":%v,"totalTokens":%v,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":%v}}`,
		tokens, tokens/2, tokens*3, tokens/4, tokens/8, tokens*4.75, cost)
	if model != "" {
		model += ","
	}
	switch source {
	case "assistant", "toolResult":
		return fmt.Sprintf(`{"type":"message","id":%q,"parentId":%q,"timestamp":%q,"message":{"role":%q,"content":[],%s"usage":%s}}`,
			id, parent, ts, source, model, u) + "\n"
	case "compaction":
		return fmt.Sprintf(`{"type":"compaction","id":%q,"parentId":%q,"timestamp":%q,"summary":"s","firstKeptEntryId":%q,"tokensBefore":1,"usage":%s}`,
			id, parent, ts, parent, u) + "\n"
	case "branch_summary":
		return fmt.Sprintf(`{"type":"branch_summary","id":%q,"parentId":%q,"timestamp":%q,"fromId":%q,"summary":"s","usage":%s}`,
			id, parent, ts, parent, u) + "\n"
	}
	return fmt.Sprintf(`{"type":"usage","id":%q,"parentId":%q,"timestamp":%q,%s"usage":%s}`, id, parent, ts, model, u) + "\n"
}

func costCatalog(t *testing.T, roots ...string) *sqlite.DB {
	t.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "c.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ix := &indexer.Indexer{DB: db, Roots: roots}
	if _, err := ix.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	return db
}

// Every grouping, branch, dedup and source filter, in three zones, equals
// the oracle's sums from the raw files.
func TestCostMatchesRawFiles(t *testing.T) {
	root := costCorpus(t)
	db := costCatalog(t, root)
	calls := rawCalls(t, root)
	zones := []string{"UTC", "America/Los_Angeles", "Asia/Kathmandu"}
	for _, zone := range zones {
		loc, err := time.LoadLocation(zone)
		if err != nil {
			t.Fatal(err)
		}
		keys := map[string]func(rawCall) string{
			"day":   func(c rawCall) string { return timeKey(c, loc, "2006-01-02") },
			"month": func(c rawCall) string { return timeKey(c, loc, "2006-01") },
			"week": func(c rawCall) string {
				y, w := time.UnixMilli(c.ts).In(loc).ISOWeek()
				return fmt.Sprintf("%04d-W%02d", y, w)
			},
			"model":  func(c rawCall) string { return modelKey(c) },
			"source": func(c rawCall) string { return c.source },
		}
		for by, keyOf := range keys {
			for _, branch := range []string{"all", "active", "abandoned"} {
				for _, noDedup := range []bool{false, true} {
					name := fmt.Sprintf("%s/%s/%s/nodedup=%v", zone, by, branch, noDedup)
					f := pidex.CostFilter{By: []string{by}, Branch: branch, NoDedup: noDedup, TZ: loc}
					want := sumRaw(calls, oracleFilter{branch: branch, noDedup: noDedup}, keyOf)
					checkCost(t, name, db, f, want)
				}
			}
		}
	}
	for _, src := range pi.Vocabulary().Sources {
		f := pidex.CostFilter{By: []string{"model"}, Sources: []string{src}}
		checkCost(t, "source "+src, db, f, sumRaw(calls, oracleFilter{sources: []string{src}}, modelKey))
	}
}

// --since/--until that cut a quarter hour are exact: the edge quarters
// are read call by call.
func TestCostSinceUntilExact(t *testing.T) {
	root := costCorpus(t)
	db := costCatalog(t, root)
	calls := rawCalls(t, root)
	day := func(c rawCall) string { return timeKey(c, time.UTC, "2006-01-02") }
	for _, tc := range [][2]string{
		{"2026-03-08T07:59:59.999Z", ""},
		{"2026-03-08T08:00:00.001Z", "2026-03-09T18:15:00.000Z"},
		{"2026-03-09T18:14:00.000Z", "2026-03-09T18:15:00.001Z"}, // inside one quarter
		{"", "2026-03-09T07:00:00.000Z"},
		{"2026-09-15T00:00:00.000Z", "2026-09-16T00:00:00.000Z"},
	} {
		var f pidex.CostFilter
		var of oracleFilter
		if tc[0] != "" {
			f.Since, of.since = mustTime(t, tc[0]), mustTime(t, tc[0]).UnixMilli()
		}
		if tc[1] != "" {
			f.Until, of.until = mustTime(t, tc[1]), mustTime(t, tc[1]).UnixMilli()
		}
		f.By = []string{"day"}
		checkCost(t, fmt.Sprintf("since %s until %s", tc[0], tc[1]), db, f, sumRaw(calls, of, day))
	}
}

// Active and abandoned split every report exactly; the fork copies are
// left out once and kept with --no-dedup.
func TestCostBranchesAndForks(t *testing.T) {
	root := costCorpus(t)
	db := costCatalog(t, root)
	ctx := context.Background()
	total := func(f pidex.CostFilter) pidex.CostSums {
		r, err := newReader(db, nil).CostF(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		return r.Totals
	}
	for _, nd := range []bool{false, true} {
		all := total(pidex.CostFilter{NoDedup: nd})
		act := total(pidex.CostFilter{NoDedup: nd, Branch: "active"})
		ab := total(pidex.CostFilter{NoDedup: nd, Branch: "abandoned"})
		if act.Calls+ab.Calls != all.Calls || math.Abs(act.Cost+ab.Cost-all.Cost) > 1e-9 || ab.Calls == 0 {
			t.Errorf("nodedup=%v: active %d + abandoned %d calls != all %d (or no abandoned call)", nd, act.Calls, ab.Calls, all.Calls)
		}
	}
	dedup, raw := total(pidex.CostFilter{}), total(pidex.CostFilter{NoDedup: true})
	// e2 copies e1's 7 calls; A3 and B2 copy calls of A2 and A1.
	if raw.Calls-dedup.Calls < 7 {
		t.Errorf("dedup left out %d calls, want at least the 7 copies of e1", raw.Calls-dedup.Calls)
	}
	// The fork's own report holds only its own call unless --no-dedup.
	var e2 int64
	if err := db.Get(&e2, `SELECT file_id FROM sessions WHERE session_id = 'e2'`); err != nil {
		t.Fatal(err)
	}
	if got := total(pidex.CostFilter{FileID: e2}); got.Calls != 1 {
		t.Errorf("fork e2 deduplicated: %d calls, want its own 1", got.Calls)
	}
	if got := total(pidex.CostFilter{FileID: e2, NoDedup: true}); got.Calls != 8 {
		t.Errorf("fork e2 raw: %d calls, want 8", got.Calls)
	}
}

// Calls without a model take the model in effect on their path.
func TestCostAttribution(t *testing.T) {
	root := costCorpus(t)
	db := costCatalog(t, root)
	r, err := newReader(db, nil).CostF(context.Background(), pidex.CostFilter{By: []string{"source", "model"},
		Sources: []string{"toolResult", "compaction", "branch_summary"}, Where: pidex.Where{"project": "/home/ann/edges"}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, row := range r.Rows {
		got = append(got, row.Keys[0]+" "+row.Keys[1])
	}
	slices.Sort(got)
	want := []string{
		"branch_summary anthropic/claude-opus-4-5", // x4: the usage entry x3b above it does not count
		"compaction anthropic/claude-opus-4-5",     // x3: x2 has no model, x1 has
		"toolResult anthropic/claude-opus-4-5",     // x2: its parent x1
		"toolResult openai/gpt-5.1-codex",          // x5: its parent, the model change (not x1, the last before it in the file)
	}
	if !slices.Equal(got, want) {
		t.Errorf("attribution:\n got %q\nwant %q", got, want)
	}
}

// Repricing uses LiteLLM's names and prices and lists the missing model.
func TestCostReprice(t *testing.T) {
	root := costCorpus(t)
	db := costCatalog(t, root)
	prices, err := pidex.LoadPrices(filepath.Join("..", "testdata", "prices", "litellm-small.json"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := newReader(db, nil).CostF(context.Background(), pidex.CostFilter{By: []string{"model"}, Prices: prices, Where: pidex.Where{"project": "/home/ann/edges"}})
	if err != nil {
		t.Fatal(err)
	}
	calls := rawCalls(t, filepath.Join(root, "--home-ann-edges--"))
	want := map[string]float64{}
	seen := map[string]bool{}
	for _, c := range calls {
		if seen[c.key()] {
			continue
		}
		seen[c.key()] = true
		p, ok := testPrices[modelKey(c)]
		if !ok {
			continue
		}
		want[modelKey(c)] += c.in*p[0] + c.out*p[1] + c.cr*p[2] + (c.cw-c.cw1h)*p[3] + c.cw1h*p[4]
	}
	for _, row := range r.Rows {
		m := row.Keys[0]
		if _, priced := testPrices[m]; !priced {
			if len(row.NotRepriced) != 1 || row.NotRepriced[0] != m || row.Repriced != 0 || row.PricedCalls != 0 {
				t.Errorf("%s: unpriced %v repriced %v; want it named, not priced", m, row.NotRepriced, row.Repriced)
			}
			continue
		}
		if math.Abs(row.Repriced-want[m]) > 1e-12 || len(row.NotRepriced) != 0 {
			t.Errorf("%s: repriced %v, want %v", m, row.Repriced, want[m])
		}
	}
	if strings.Join(r.Totals.NotRepriced, ",") != "google/gemini-2.5-pro" {
		t.Errorf("unpriced models %v, want google/gemini-2.5-pro", r.Totals.NotRepriced)
	}
}

// testPrices are testdata/prices/litellm-small.json's prices per token:
// input, output, cache read, cache write, 1h cache write.
var testPrices = map[string][5]float64{
	"anthropic/claude-opus-4-5":  {5e-6, 25e-6, 0.5e-6, 6.25e-6, 10e-6},
	"anthropic/claude-haiku-4-5": {1e-6, 5e-6, 0.1e-6, 1.25e-6, 1.25e-6}, // no 1h price: the 5m one
	"openai/gpt-5.1-codex":       {1.25e-6, 10e-6, 0.125e-6, 0, 0},
}

func checkCost(t *testing.T, name string, db *sqlite.DB, f pidex.CostFilter, want map[string]rawSums) {
	t.Helper()
	r, err := newReader(db, nil).CostF(context.Background(), f)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	got := map[string]rawSums{}
	for _, row := range r.Rows {
		got[row.Keys[0]] = rawSums{row.Calls, row.Input, row.Output, row.CacheRead, row.CacheWrite, row.TotalTokens, row.Cost,
			row.UnpricedCalls, row.UnpricedTokens}
	}
	for k := range want {
		if !near(got[k], want[k]) {
			t.Errorf("%s: %s = %+v, want %+v", name, k, got[k], want[k])
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: unexpected row %s = %+v", name, k, got[k])
		}
	}
}

func near(a, b rawSums) bool {
	eq := func(x, y float64) bool { return math.Abs(x-y) <= 1e-9*math.Max(1, math.Abs(y)) }
	return a.calls == b.calls && eq(a.in, b.in) && eq(a.out, b.out) && eq(a.cr, b.cr) && eq(a.cw, b.cw) &&
		eq(a.total, b.total) && eq(a.cost, b.cost) && a.unpriced == b.unpriced && eq(a.unpricedTokens, b.unpricedTokens)
}

func timeKey(c rawCall, loc *time.Location, layout string) string {
	if c.ts == 0 {
		return "unknown"
	}
	return time.UnixMilli(c.ts).In(loc).Format(layout)
}

func modelKey(c rawCall) string {
	if c.model == "" {
		return "unknown"
	}
	return pidex.ModelName(c.provider, c.model)
}

func mustTime(t *testing.T, s string) time.Time {
	tm, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatal(err)
	}
	return tm
}

// The copies pi's createBranchedSession (A3, from A2) and forkFrom (B2,
// from A1) wrote count once, under the original: a fork's own report
// holds only the calls whose key its original lacks.
func TestCostForkCopiesCountOnce(t *testing.T) {
	root := costCorpus(t)
	db := costCatalog(t, root)
	calls := rawCalls(t, root)
	for _, fk := range []struct{ name, fork, orig string }{
		{"createBranchedSession", "01a0a5a4-bfab-724f-a634-c152f85adaef", "01a0a561-3aba-724f-a634-c15148c18a5a"},
		{"forkFrom", "01a0b36c-1844-724f-a634-c158a6e908a8", "01a09f30-132d-724f-a634-c14fac694f8c"},
	} {
		inOrig := map[string]bool{}
		var own, all int64
		for _, c := range calls {
			if strings.Contains(c.file, fk.orig) {
				inOrig[c.key()] = true
			}
		}
		for _, c := range calls {
			if strings.Contains(c.file, fk.fork) {
				all++
				if !inOrig[c.key()] {
					own++
				}
			}
		}
		if own == all {
			t.Fatalf("%s: the fork holds no copy (%d calls): the fixture changed", fk.name, all)
		}
		var id int64
		if err := db.Get(&id, `SELECT file_id FROM sessions WHERE session_id = ?`, fk.fork); err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			noDedup bool
			want    int64
		}{{false, own}, {true, all}} {
			r, err := newReader(db, nil).CostF(context.Background(), pidex.CostFilter{FileID: id, NoDedup: tc.noDedup})
			if err != nil {
				t.Fatal(err)
			}
			if r.Totals.Calls != tc.want {
				t.Errorf("%s: %d calls (no-dedup %v), want %d", fk.name, r.Totals.Calls, tc.noDedup, tc.want)
			}
		}
	}
}

// A report without keys is one row of totals, and no row (zero totals)
// when nothing matches.
func TestCostWithoutKeys(t *testing.T) {
	db := costCatalog(t, costCorpus(t))
	for _, tc := range []struct {
		f    pidex.CostFilter
		rows int
	}{
		{pidex.CostFilter{}, 1},
		{pidex.CostFilter{Where: pidex.Where{"model": "no-such-model"}}, 0},
	} {
		r, err := newReader(db, nil).CostF(context.Background(), tc.f)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Rows) != tc.rows || (tc.rows == 0 && r.Totals.Calls != 0) || (tc.rows == 1 && r.Totals.Calls == 0) {
			t.Errorf("%+v: %d rows, totals %+v", tc.f, len(r.Rows), r.Totals)
		}
	}
}

// A catalog that also holds another root's sessions: a report under one
// root sums only its files.
func TestCostUnderRoots(t *testing.T) {
	a, b := costCorpus(t), t.TempDir()
	catalogtest.WriteFile(t, filepath.Join(b, "--x--", "x.jsonl"), edgeSession("other"))
	db := costCatalog(t, a, b)
	total := func(roots ...string) int64 {
		r, err := newReader(db, roots).CostF(context.Background(), pidex.CostFilter{NoDedup: true})
		if err != nil {
			t.Fatal(err)
		}
		return r.Totals.Calls
	}
	want := int64(len(rawCalls(t, a)))
	if got := total(a); got != want {
		t.Errorf("under %s: %d calls, want %d", a, got, want)
	}
	if got := total(b); got != 7 {
		t.Errorf("under %s: %d calls, want the 7 of its one session", b, got)
	}
	if got := total(a, b); got != want+7 {
		t.Errorf("under both: %d calls, want %d", got, want+7)
	}
}

// Costs and counts past the largest double (files are anyone's input)
// saturate in every figure of a report, repriced ones too, so that its
// JSON is a valid document and its table shows no +Inf: SQLite's sums
// of a rollup bucket reach +Inf, and an infinity minus another NaN.
func TestCostReportSaturates(t *testing.T) {
	root := t.TempDir()
	huge := func(id, parent, ts string, cost float64) string {
		return fmt.Sprintf(`{"type":"usage","id":%q,"parentId":%s,"timestamp":%q,"kind":"x","provider":"p","model":"m",`+
			`"usage":{"input":1e308,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":1e308,"cost":{"total":%g}}}`+"\n", id, parent, ts, cost)
	}
	for i, f := range []string{"a", "b"} {
		h := fmt.Sprintf(`{"type":"session","version":3,"id":"s%d","timestamp":"2026-05-01T10:00:00.000Z","cwd":"/w"}`, i) + "\n"
		catalogtest.WriteFile(t, filepath.Join(root, "--w--", f+".jsonl"), h+
			huge("u1", "null", "2026-05-01T10:00:01.000Z", 1e308)+huge("u2", `"u1"`, "2026-05-01T10:00:02.000Z", 1e308)+
			huge("u3", `"u2"`, "2026-05-02T10:00:01.000Z", 1e308)+huge("u4", `"u3"`, "2026-05-02T10:00:02.000Z", -1e308)+
			huge("u5", `"u4"`, "2026-05-02T10:00:03.000Z", -1e308)+huge("u6", `"u5"`, "2026-05-02T10:00:04.000Z", 1e308))
	}
	db := costCatalog(t, root)
	pricesFile := filepath.Join(t.TempDir(), "prices.json")
	catalogtest.WriteFile(t, pricesFile, `{"p/m":{"input_cost_per_token":1e300,"output_cost_per_token":1e300}}`)
	prices, err := pidex.LoadPrices(pricesFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, by := range [][]string{{"day"}, {"model"}, {"day", "session"}, {}} {
		r, err := newReader(db, nil).CostF(context.Background(), pidex.CostFilter{By: by, TZ: time.UTC, Prices: prices, NoDedup: true})
		if err != nil {
			t.Fatalf("by %v: %v", by, err)
		}
		all := append([]pidex.CostSums{r.Totals}, func() (s []pidex.CostSums) {
			for _, row := range r.Rows {
				s = append(s, row.CostSums)
			}
			return s
		}()...)
		for _, s := range all {
			for _, v := range []float64{s.Input, s.Output, s.TotalTokens, s.Cost, s.Repriced} {
				if math.IsInf(v, 0) || math.IsNaN(v) {
					t.Errorf("by %v: a figure is %v: %+v", by, v, s)
				}
			}
		}
		if r.Totals.Input != math.MaxFloat64 {
			t.Errorf("by %v: total input %v, want the largest finite value", by, r.Totals.Input)
		}
		var js, table bytes.Buffer
		if err := render.CostJSON(&js, r); err != nil || !json.Valid(js.Bytes()) {
			t.Errorf("by %v: cost JSON (%v) is not valid:\n%s", by, err, js.String())
		}
		if err := render.CostTable(&table, r, false, 0); err != nil || strings.Contains(table.String(), "Inf") || strings.Contains(table.String(), "NaN") {
			t.Errorf("by %v: table (%v):\n%s", by, err, table.String())
		}
	}
}
