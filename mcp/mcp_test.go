package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/pgtest"
	"github.com/pidex-dev/pidex/pi"
)

// Sessions of the bundled corpus the tests read.
const (
	branchy   = "01a0a561-3aba-724f-a634-c15148c18a5a" // two branch points, two labels, branch summaries
	large     = "5fd1e58c-9635-410e-a644-133a96057c90" // a real session: 461 entries, 950 KB
	compacted = "01a0aecf-3da2-724f-a634-c157c79b5bb3" // two compactions
	sharedID  = "019f5be5-7b1a-7000-8a7c-db42f66cd116" // two files (a snapshot copy) hold this id
	sameName  = "Fix flaky login test (auth.spec)"     // the name of two sessions
)

// shared is the fixture of the tests that only read (a test that changes
// files or options makes its own), built once by TestMain.
var shared *fixture

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "pidex-mcp-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	shared, err = build(dir, Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, "build the test fixture:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	shared.close()
	os.RemoveAll(dir)
	pgtest.Stop() // the team test's throwaway PostgreSQL, if it started one
	os.Exit(code)
}

func fx(*testing.T) *fixture { return shared }

// The tools a model sees: exactly these, each described, read-only, with
// input and output schemas generated from their Go types.
func TestToolsListed(t *testing.T) {
	f := newFixture(t, Options{})
	v := pi.Vocabulary()
	want := []struct {
		name     string
		args     any
		required []string
		enums    map[string][]string
	}{
		{"search_sessions", searchArgs{}, []string{"query"}, map[string][]string{
			"role": v.RoleGroups, "branch": {"all", "active"}, "sort": {"relevance", "newest"}}},
		{"list_sessions", listArgs{}, nil, map[string][]string{"sort": pidex.ListSorts}},
		{"get_session", sessionArgs{}, []string{"session"}, nil},
		{"read_session", readArgs{}, []string{"session"}, map[string][]string{"roles": v.Classes}},
		{"get_context", readArgs{}, []string{"session"}, map[string][]string{"roles": v.Classes}},
		{"cost_report", costArgs{}, nil, map[string][]string{"by": pidex.CostKeys, "source": v.Sources,
			"branch": {"all", "active", "abandoned"}}},
		{"activity_report", activityArgs{}, nil, map[string][]string{"by": {"day", "week", "month", "model", "project", "session", "agent"},
			"branch": {"all", "active", "abandoned"}}},
		{"query_sql", sqlArgs{}, []string{"statement"}, nil},
		{"export_session", exportArgs{}, []string{"session"}, nil},
	}
	tools := map[string]*sdk.Tool{}
	for _, tl := range f.tools(t) {
		tools[tl.Name] = tl
	}
	if len(tools) != len(want) {
		t.Errorf("tools: %v, want %d", slices.Sorted(maps.Keys(tools)), len(want))
	}
	for _, w := range want {
		t.Run(w.name, func(t *testing.T) {
			tl := tools[w.name]
			if tl == nil {
				t.Fatal("not listed")
			}
			if len(tl.Description) < 100 || tl.Title == "" {
				t.Errorf("description %q, title %q: a model chooses by them", tl.Description, tl.Title)
			}
			if tl.Annotations == nil || !tl.Annotations.ReadOnlyHint {
				t.Error("not marked read-only")
			}
			in := schemaMap(t, tl.InputSchema)
			if in["type"] != "object" {
				t.Errorf("input schema type %v", in["type"])
			}
			props, _ := in["properties"].(map[string]any)
			jf := jsonFields(reflect.TypeOf(w.args))
			delete(jf, "machine") // a team catalog's only (TestTeamCatalog)
			fields := slices.Collect(maps.Keys(jf))
			if i, op := filterField(reflect.TypeOf(w.args)); i >= 0 {
				for _, f := range pidex.Filters(op) { // the registry's, each an argument
					fields = append(fields, f.Name)
				}
			}
			slices.Sort(fields)
			if got := slices.Sorted(maps.Keys(props)); !slices.Equal(got, fields) {
				t.Errorf("properties %v, want the Go type's fields and the filters %v", got, fields)
			}
			for name, p := range props {
				if d, _ := p.(map[string]any)["description"].(string); d == "" {
					t.Errorf("argument %s has no description", name)
				}
			}
			var req []string
			for _, r := range asSlice(in["required"]) {
				req = append(req, r.(string))
			}
			if !slices.Equal(req, w.required) {
				t.Errorf("required %v, want %v", req, w.required)
			}
			for prop, values := range w.enums {
				p := props[prop].(map[string]any)
				if items, ok := p["items"].(map[string]any); ok {
					p = items
				}
				var got []string
				for _, e := range asSlice(p["enum"]) {
					got = append(got, e.(string))
				}
				if !slices.Equal(got, values) {
					t.Errorf("%s: enum %v, want %v", prop, got, values)
				}
			}
			if out := schemaMap(t, tl.OutputSchema); out["type"] != "object" {
				t.Errorf("output schema %v", out)
			}
		})
	}
}

func schemaMap(t *testing.T, s any) map[string]any {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func asSlice(v any) []any { a, _ := v.([]any); return a }

// Every tool answers with structured content matching its output schema
// and text saying the same.
func TestToolCalls(t *testing.T) {
	f := fx(t)
	tests := []struct {
		name  string
		tool  string
		args  map[string]any
		texts []string // in the text
		check func(t *testing.T, r result)
	}{
		{"search", "search_sessions", map[string]any{"query": "flaky login"}, []string{"**flaky** **login**", "open: read_session session="}, func(t *testing.T, r result) {
			if digLen(r.data, "hits") == 0 || digStr(r.data, "hits", 0, "open", "around") != digStr(r.data, "hits", 0, "entry_id") {
				t.Errorf("hits %s", r.raw)
			}
		}},
		{"search filters", "search_sessions", map[string]any{"query": "retry", "project": "legacy", "role": "assistant", "sort": "newest", "branch": "active"}, []string{"newest first"}, func(t *testing.T, r result) {
			for _, h := range asSlice(r.data["hits"]) {
				if digStr(h, "project") != "legacy" || digStr(h, "role") != "assistant" {
					t.Errorf("hit outside the filters: %v", h)
				}
			}
		}},
		{"search one session", "search_sessions", map[string]any{"query": "json", "session": branchy}, nil, func(t *testing.T, r result) {
			for _, h := range asSlice(r.data["hits"]) {
				if digStr(h, "session", "id") != branchy {
					t.Errorf("hit of another session: %v", h)
				}
			}
		}},
		{"search sessions only", "search_sessions", map[string]any{"query": "flaky", "sessions_only": true}, []string{"hits", "read_session session="}, func(t *testing.T, r result) {
			if digLen(r.data, "sessions") < 2 || digLen(r.data, "hits") != 0 {
				t.Errorf("sessions %s", r.raw)
			}
		}},
		{"search nothing", "search_sessions", map[string]any{"query": "zzyzxquux"}, []string{"No hits"}, nil},
		{"list", "list_sessions", nil, []string{"sessions,", "most recently active first", "session="}, func(t *testing.T, r result) {
			if digLen(r.data, "sessions") != pidex.DefaultPageLimit || dig(r.data, "total").(float64) <= pidex.DefaultPageLimit {
				t.Errorf("a default page of %d and the total: %s", pidex.DefaultPageLimit, r.raw)
			}
		}},
		{"list filtered", "list_sessions", map[string]any{"project": "proj-alpha", "sort": "cost", "limit": 2}, []string{"most expensive first"}, func(t *testing.T, r result) {
			ss := asSlice(r.data["sessions"])
			if len(ss) != 2 || digStr(ss[0], "project") != "proj-alpha" || dig(ss[0], "cost").(float64) < dig(ss[1], "cost").(float64) {
				t.Errorf("sessions %s", r.raw)
			}
		}},
		{"overview", "get_session", map[string]any{"session": branchy}, []string{"Branch points (2)", "Labels (2)", "abandoned branches", "2 roots", "read_session session="}, func(t *testing.T, r result) {
			if digLen(r.data, "branch_points") != 2 || digLen(r.data, "labels") != 2 || dig(r.data, "roots") != 2.0 {
				t.Errorf("overview %s", r.raw)
			}
			if dig(r.data, "abandoned_cost").(float64) <= 0 {
				t.Errorf("abandoned cost %v", r.data["abandoned_cost"])
			}
		}},
		{"overview current branch", "get_session", map[string]any{"session": "4c0ffee0"}, []string{"Branch points (1)", ", current,"}, func(t *testing.T, r result) {
			cur := 0
			for _, bp := range asSlice(r.data["branch_points"]) {
				if len(asSlice(dig(bp, "branches"))) < 2 {
					t.Errorf("a branch point with fewer than two branches: %v", bp)
				}
				for _, b := range asSlice(dig(bp, "branches")) {
					if dig(b, "current") == true {
						cur++
					}
					if digStr(b, "leaf") == "" {
						t.Errorf("a branch without its leaf: %v", b)
					}
				}
			}
			if cur != 1 {
				t.Errorf("%d current branches, want one per branch point", cur)
			}
		}},
		{"overview compactions", "get_session", map[string]any{"session": compacted}, []string{"Compactions (2)", "tokens"}, func(t *testing.T, r result) {
			c := dig(r.data, "compactions", 0)
			if dig(c, "tokens_before").(float64) <= 0 || digStr(c, "first_kept") == "" || digStr(c, "entry", "preview") == "" {
				t.Errorf("compaction %v", c)
			}
		}},
		{"read", "read_session", map[string]any{"session": branchy}, []string{"Branch ending at", "(the current leaf)", "Window: positions"}, func(t *testing.T, r result) {
			if dig(r.data, "current_leaf") != true || digLen(r.data, "items") == 0 {
				t.Errorf("read %s", r.raw)
			}
		}},
		{"read around a hit", "read_session", map[string]any{"session": branchy, "around": "c2844159", "limit": 5}, []string{"c2844159"}, func(t *testing.T, r result) {
			found := false
			for _, it := range asSlice(r.data["items"]) {
				found = found || digStr(it, "id") == "c2844159"
			}
			if !found || digLen(r.data, "items") > 5 {
				t.Errorf("window %s", r.raw)
			}
		}},
		{"read roles", "read_session", map[string]any{"session": large, "roles": []string{"user"}, "offset": 0, "limit": 100}, []string{"of other roles left out"}, func(t *testing.T, r result) {
			for _, it := range asSlice(r.data["items"]) {
				if digStr(it, "role") != "user" {
					t.Errorf("item of another role: %v", it)
				}
			}
		}},
		{"read a branch by leaf", "read_session", map[string]any{"session": branchy, "leaf": "aeb87ffe"}, []string{"Branch ending at aeb87ffe"}, func(t *testing.T, r result) {
			if dig(r.data, "current_leaf") != false || digStr(r.data, "leaf") != "aeb87ffe" {
				t.Errorf("read %s", r.raw)
			}
		}},
		{"context", "get_context", map[string]any{"session": compacted}, []string{"Model context at leaf", "compaction summary", "31877 tokens before"}, func(t *testing.T, r result) {
			if dig(r.data, "total").(float64) == 0 {
				t.Errorf("context %s", r.raw)
			}
		}},
		{"overview resume", "get_session", map[string]any{"session": branchy}, []string{"Resume: cd ", " && pi --session "}, func(t *testing.T, r result) {
			if cmd := digStr(r.data, "resume", "command"); !strings.Contains(cmd, "pi --session ") || !strings.HasSuffix(cmd, ".jsonl") {
				t.Errorf("resume %s", r.raw)
			}
		}},
		{"read resume from a leaf", "read_session", map[string]any{"session": branchy, "leaf": "aeb87ffe"}, []string{"Resume: ", "type /tree and choose entry aeb87ffe"}, nil},
		{"export", "export_session", map[string]any{"session": branchy}, []string{"# ", "- **Resume:** `cd ", "## User", "## Assistant"}, func(t *testing.T, r result) {
			if !strings.Contains(r.text, fenced(digStr(r.data, "markdown"))) || dig(r.data, "chars").(float64) < 100 || digStr(r.data, "resume", "command") == "" {
				t.Errorf("export %.2000s", r.raw)
			}
		}},
		{"export a branch's context", "export_session", map[string]any{"session": compacted, "context": true}, []string{"**Model context** at entry", "Compaction summary"}, nil},
		{"cost", "cost_report", map[string]any{"by": []string{"month", "model"}, "tz": "UTC"}, []string{"Cost by month, model", "total"}, func(t *testing.T, r result) {
			if digLen(r.data, "rows") == 0 || digStr(r.data, "rows", 0, "keys", "month") == "" || dig(r.data, "totals", "cost").(float64) <= 0 {
				t.Errorf("cost %s", r.raw)
			}
		}},
		{"cost abandoned of one session", "cost_report", map[string]any{"by": "session", "session": branchy, "branch": "abandoned", "no_dedup": true}, []string{"branch abandoned"}, func(t *testing.T, r result) {
			if digLen(r.data, "rows") != 1 {
				t.Errorf("cost %s", r.raw)
			}
		}},
		{"activity", "activity_report", nil, []string{"Activity (", "Sessions  ", "Tools     ", "Hours     busiest ", "Tools (", `- "bash": calls `,
			"Assistant errors, most frequent (", " — open: read_session session=", "Slowest tool calls (", "Shell commands, by first word ("}, func(t *testing.T, r result) {
			if dig(r.data, "totals", "tool_calls").(float64) < 100 || digLen(r.data, "tools") == 0 || digLen(r.data, "errors") == 0 ||
				digLen(r.data, "slowest") == 0 || digStr(r.data, "heatmap", "peak", "weekday") == "" || digLen(r.data, "rows") != 0 {
				t.Errorf("activity %.2000s", r.raw)
			}
		}},
		{"activity by week of one project", "activity_report", map[string]any{"by": []string{"week"}, "tz": "UTC", "project": "alpha", "branch": "active"},
			[]string{"Activity by week (UTC; branch active;", "Rows by week (", "WEEK"}, func(t *testing.T, r result) {
				if digLen(r.data, "rows") == 0 || digStr(r.data, "rows", 0, "keys", "week") == "" || dig(r.data, "groups").(float64) != float64(digLen(r.data, "rows")) {
					t.Errorf("activity %.2000s", r.raw)
				}
			}},
		{"activity of one session", "activity_report", map[string]any{"session": branchy}, []string{"1 session."}, func(t *testing.T, r result) {
			if dig(r.data, "totals", "sessions").(float64) != 1 {
				t.Errorf("activity %.2000s", r.raw)
			}
		}},
		{"sql", "query_sql", map[string]any{"statement": "SELECT session_id, cost FROM sessions_v WHERE cost > :c ORDER BY cost DESC", "params": map[string]any{"c": 0.1}}, []string{"session_id\tcost"}, func(t *testing.T, r result) {
			if digLen(r.data, "rows") == 0 || digStr(r.data, "columns", 0) != "session_id" {
				t.Errorf("sql %s", r.raw)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := f.ok(t, tc.tool, tc.args)
			for _, s := range tc.texts {
				if !strings.Contains(r.text, s) {
					t.Errorf("text lacks %q:\n%.3000s", s, r.text)
				}
			}
			if tc.check != nil {
				tc.check(t, r)
			}
		})
	}
}

// Every result stays within its budget (the default, or max_chars) in
// both its forms, and says when it cut something and how to get it.
func TestBudgets(t *testing.T) {
	f := fx(t)
	tests := []struct {
		tool   string
		args   map[string]any
		budget int
		note   string // in the text: what was left out
	}{
		{"read_session", map[string]any{"session": large, "offset": 0, "limit": 1000}, pidex.DefaultBudget, "to stay within 20,000 characters"},
		{"read_session", map[string]any{"session": large, "offset": 0, "limit": 1000, "max_chars": 3000}, 3000, "to stay within 3,000"},
		{"read_session", map[string]any{"session": large, "offset": 0, "limit": 1000, "thinking": true, "tool_output": true, "max_chars": 50000, "max_message_chars": 20000}, 50000, "max_chars"},
		{"read_session", map[string]any{"session": large, "limit": 20, "max_message_chars": 100}, pidex.DefaultBudget, "cut at 100 characters"},
		{"get_context", map[string]any{"session": large, "offset": 0, "limit": 1000}, pidex.DefaultBudget, "to stay within"},
		{"search_sessions", map[string]any{"query": "the", "limit": 200}, pidex.DefaultBudget, "to stay within"},
		{"search_sessions", map[string]any{"query": "the", "limit": 200, "max_chars": 1000}, 1000, "to stay within"},
		{"list_sessions", map[string]any{"limit": 200, "max_chars": 2000}, 2000, "to stay within"},
		{"cost_report", map[string]any{"by": []string{"day", "session", "source"}, "no_dedup": true, "max_chars": 1500}, 1500, "to stay within"},
		{"activity_report", map[string]any{"by": []string{"session"}, "max_chars": 4000}, 4000, "more rows left out"},
		{"activity_report", map[string]any{"by": []string{"day", "model"}, "max_chars": pidex.MinBudget}, pidex.MinBudget, "to stay within"},
		{"activity_report", map[string]any{"by": []string{"session"}, "limit": 3}, pidex.DefaultBudget, "a larger max_chars (or limit, for rows)"},
		{"query_sql", map[string]any{"statement": "SELECT path, offset, text FROM entries_v WHERE path NOT LIKE '%crlf%'", "max_rows": 5000}, pidex.DefaultBudget, "to stay within"},
		{"get_session", map[string]any{"session": branchy, "max_chars": 1000}, 1000, "a larger max_chars shows them"},
		{"export_session", map[string]any{"session": large}, pidex.DefaultBudget, "raise max_chars"},
		{"export_session", map[string]any{"session": large, "max_chars": 3000, "max_output": 0}, 3000, "raise max_chars"},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprint(tc.tool, tc.args), func(t *testing.T) {
			r := f.ok(t, tc.tool, tc.args)
			if n := utf8.RuneCountInString(r.text); n > tc.budget {
				t.Errorf("text: %d characters, budget %d", n, tc.budget)
			}
			if n := utf8.RuneCount(r.raw); n > tc.budget+tc.budget/10 {
				t.Errorf("structured content: %d characters, budget %d", n, tc.budget)
			}
			if !strings.Contains(r.text, tc.note) {
				t.Errorf("text does not say what was left out (%q):\n…%s", tc.note, tail(r.text, 1500))
			}
			if digStr(r.data, "truncated") == "" {
				t.Errorf("no truncated note in the structured content")
			}
		})
	}
}

// Folding: thinking and tool output are one line with their size unless
// asked for; asked for, they are shown.
func TestFolding(t *testing.T) {
	f := fx(t)
	base := map[string]any{"session": large, "offset": 60, "limit": 40, "max_chars": 200000}
	folded := f.ok(t, "read_session", base)
	for _, s := range []string{"[thinking: ", "characters, folded]", "[tool output: ", "thinking=true shows them", "tool_output=true shows them"} {
		if !strings.Contains(folded.text, s) {
			t.Errorf("folded reading lacks %q", s)
		}
	}
	open := maps.Clone(base)
	open["thinking"], open["tool_output"] = true, true
	shown := f.ok(t, "read_session", open)
	if strings.Contains(shown.text, "characters, folded]") || !strings.Contains(shown.text, "[thinking]") {
		t.Errorf("thinking=true tool_output=true still folds:\n%.2000s", shown.text)
	}
	if len(shown.text) <= len(folded.text) {
		t.Errorf("unfolded reading (%d) is not longer than the folded one (%d)", len(shown.text), len(folded.text))
	}
}

func tail(s string, n int) string {
	r := []rune(s)
	return string(r[max(0, len(r)-n):])
}

// Cursors page through a whole result: the pages, joined, are the
// result asked for at once, with no gap and no repeat.
func TestCursorsPage(t *testing.T) {
	f := fx(t)
	tests := []struct {
		tool  string
		args  map[string]any
		items string // the array of items
		key   func(any) string
	}{
		{"search_sessions", map[string]any{"query": "test"}, "hits", func(h any) string { return digStr(h, "session", "path") + "#" + digStr(h, "entry_id") }},
		{"search_sessions", map[string]any{"query": "test", "sessions_only": true}, "sessions", func(h any) string { return digStr(h, "session", "path") }},
		{"list_sessions", map[string]any{}, "sessions", func(s any) string { return digStr(s, "session", "path") }},
		{"read_session", map[string]any{"session": large, "offset": 0}, "items", func(it any) string { return digStr(it, "id") }},
		{"get_context", map[string]any{"session": large, "offset": 0}, "items", func(it any) string { return fmt.Sprint(dig(it, "position")) }},
		{"cost_report", map[string]any{"by": []string{"day", "session"}}, "rows", func(r any) string { return fmt.Sprint(dig(r, "keys")) }},
		{"query_sql", map[string]any{"statement": "SELECT id, path FROM entries_v ORDER BY path, offset"}, "rows", func(r any) string { return fmt.Sprint(r) }},
	}
	for _, tc := range tests {
		t.Run(tc.tool+" "+tc.items, func(t *testing.T) {
			whole := maps.Clone(tc.args)
			switch tc.tool {
			case "read_session", "get_context":
				whole["limit"], whole["max_chars"], whole["max_message_chars"] = 1000, 200000, 100
			case "query_sql":
				whole["max_rows"], whole["max_chars"] = 5000, 200000
			default:
				whole["limit"], whole["max_chars"] = 200, 200000
			}
			all := f.ok(t, tc.tool, whole)
			if digStr(all.data, "next_cursor") != "" {
				t.Fatalf("the whole result does not fit one page: %s", digStr(all.data, "truncated"))
			}
			var want []string
			for _, it := range asSlice(all.data[tc.items]) {
				want = append(want, tc.key(it))
			}
			small := maps.Clone(tc.args)
			small["limit"] = 7
			if tc.tool == "query_sql" {
				delete(small, "limit")
				small["max_rows"] = 7
			}
			if tc.tool == "read_session" || tc.tool == "get_context" {
				small["max_message_chars"] = 100
			}
			var got []string
			args := small
			for pages := 0; ; pages++ {
				if pages > 1000 {
					t.Fatal("endless pages")
				}
				r := f.ok(t, tc.tool, args)
				for _, it := range asSlice(r.data[tc.items]) {
					got = append(got, tc.key(it))
				}
				next := digStr(r.data, "next_cursor")
				if next == "" {
					break
				}
				args = map[string]any{"cursor": next}
				for _, k := range []string{"session", "query", "statement", "by", "sessions_only", "max_message_chars"} { // the same arguments, as the text asks
					if v, ok := small[k]; ok {
						args[k] = v
					}
				}
			}
			if !slices.Equal(got, want) {
				t.Errorf("pages joined: %d items, want %d\n got %.20v\nwant %.20v", len(got), len(want), got, want)
			}
		})
	}
}

// A cursor alone is enough (it holds the arguments), prev_cursor goes
// back, and a session that grows does not move a reading's pages.
func TestCursorResume(t *testing.T) {
	f := newFixture(t, Options{})
	first := f.ok(t, "read_session", map[string]any{"session": "4c0ffee0", "offset": 0, "limit": 5})
	next := digStr(first.data, "next_cursor")
	second := f.ok(t, "read_session", map[string]any{"cursor": next})
	if dig(second.data, "from").(float64) != 5 {
		t.Errorf("second page from %v, want 5", second.data["from"])
	}
	back := f.ok(t, "read_session", map[string]any{"cursor": digStr(second.data, "prev_cursor")})
	if !reflect.DeepEqual(back.data["items"], first.data["items"]) {
		t.Errorf("prev_cursor did not come back to the first page")
	}
	// The session grows (pi appends a turn): the next page is the same.
	path := digStr(first.data, "session", "path")
	leaf := digStr(first.data, "leaf")
	appendLine(t, path, fmt.Sprintf(`{"type":"message","id":"zz000001","parentId":%q,"timestamp":"2026-09-15T15:00:00.000Z","message":{"role":"user","content":"one more thing","timestamp":1789484400000}}`, leaf))
	if _, err := f.eng.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	again := f.ok(t, "read_session", map[string]any{"cursor": next})
	if !reflect.DeepEqual(again.data["items"], second.data["items"]) || digStr(again.data, "leaf") != leaf {
		t.Errorf("the session grew and the cursor's page moved: leaf %s, want %s", digStr(again.data, "leaf"), leaf)
	}
	if latest := f.ok(t, "read_session", map[string]any{"session": "4c0ffee0"}); digStr(latest.data, "leaf") != "zz000001" {
		t.Errorf("a reading without cursor does not see the new leaf: %s", digStr(latest.data, "leaf"))
	}
}

// Bad cursors are refused with what to do, never read as page one.
func TestCursorErrors(t *testing.T) {
	f := fx(t)
	good := digStr(f.ok(t, "search_sessions", map[string]any{"query": "test", "limit": 2}).data, "next_cursor")
	listCursor := digStr(f.ok(t, "list_sessions", map[string]any{"limit": 2}).data, "next_cursor")
	readCursor := digStr(f.ok(t, "read_session", map[string]any{"session": branchy, "offset": 0, "limit": 2}).data, "next_cursor")
	flip := []byte(good)
	flip[10] ^= 1
	tests := []struct {
		name string
		tool string
		args map[string]any
		want string
	}{
		{"garbage", "search_sessions", map[string]any{"query": "test", "cursor": "abc"}, "not one this server gave"},
		{"tampered", "search_sessions", map[string]any{"query": "test", "cursor": string(flip)}, "not one this server gave"},
		{"cut short", "search_sessions", map[string]any{"query": "test", "cursor": good[:len(good)-3]}, "not one this server gave"},
		{"another tool's", "search_sessions", map[string]any{"query": "test", "cursor": listCursor}, "it is a cursor of list_sessions"},
		{"other arguments", "search_sessions", map[string]any{"query": "other words", "cursor": good}, `it continues a call with query "test"`},
		{"a position with it", "read_session", map[string]any{"cursor": readCursor, "offset": 3}, "leave out offset"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if msg := f.fail(t, tc.tool, tc.args); !strings.Contains(msg, tc.want) {
				t.Errorf("message %q, want %q", msg, tc.want)
			}
		})
	}
}

// Every mistake a model can make is a tool error saying what to do: bad
// arguments, unknown or ambiguous sessions and entries, refused SQL.
func TestErrors(t *testing.T) {
	f := fx(t)
	tests := []struct {
		name string
		tool string
		args any
		want []string
	}{
		{"unknown argument", "search_sessions", map[string]any{"query": "x", "qeury": "y"}, []string{`has no argument "qeury"`, "it takes", "query"}},
		{"wrong type", "list_sessions", map[string]any{"limit": "ten"}, []string{"limit: want a whole number", `"ten"`}},
		{"wrong type object", "search_sessions", map[string]any{"query": map[string]any{"a": 1}}, []string{"query: want a string"}},
		{"missing", "search_sessions", map[string]any{}, []string{`needs the argument "query"`, "what to find"}},
		{"not an object", "search_sessions", []int{1}, []string{"must be a JSON object"}},
		{"bad enum", "search_sessions", map[string]any{"query": "x", "sort": "oldest"}, []string{`sort "oldest": want relevance or newest`}},
		{"bad role", "search_sessions", map[string]any{"query": "x", "role": "robot"}, []string{`role "robot": want user, assistant, tool or summary`}},
		{"bad date", "list_sessions", map[string]any{"since": "last tuesday"}, []string{`since "last tuesday": want a date`}},
		{"bad zone", "cost_report", map[string]any{"tz": "Mars/Olympus"}, []string{`tz "Mars/Olympus": want an IANA time zone`}},
		{"bad grouping", "cost_report", map[string]any{"by": []string{"day", "planet"}}, []string{`by "planet": want day, week`}},
		{"bad source", "cost_report", map[string]any{"source": "robot"}, []string{`source "robot"`}},
		{"limit too large", "search_sessions", map[string]any{"query": "x", "limit": 100000}, []string{`limit "100000": want a number from 1 to 200`}},
		{"budget too small", "read_session", map[string]any{"session": branchy, "max_chars": 10}, []string{`max_chars "10": want a number from 1000`}},
		{"message budget", "read_session", map[string]any{"session": branchy, "max_message_chars": 5}, []string{`max_message_chars "5"`}},
		{"bad roles", "read_session", map[string]any{"session": branchy, "roles": []string{"user", "robot"}}, []string{`roles "robot": want user, assistant`}},
		{"negative offset", "read_session", map[string]any{"session": branchy, "offset": -1}, []string{`offset "-1"`}},
		{"offset and around", "read_session", map[string]any{"session": branchy, "offset": 1, "around": "c2844159"}, []string{"offset or around, not both"}},
		{"bad query", "search_sessions", map[string]any{"query": `"unclosed`}, []string{"unclosed quote"}},
		{"only exclusions", "search_sessions", map[string]any{"query": "-draft"}, []string{"search query"}},
		{"query too deep", "search_sessions", map[string]any{"query": strings.Repeat("(x ", 25) + "a" + strings.Repeat(")", 25)}, []string{"parentheses nested too deep (at most 10 levels)"}},
		{"query too wide", "search_sessions", map[string]any{"query": "a" + strings.Repeat(" -x", 257)}, []string{"too many exclusions (at most 64)"}},
		{"unknown session", "get_session", map[string]any{"session": "nosuchsession"}, []string{`no session matches "nosuchsession"`, "most recent sessions", "search_sessions"}},
		{"unknown session by name", "read_session", map[string]any{"session": "flaky"}, []string{`no session matches "flaky"`, "name contains it", sameName}},
		{"ambiguous prefix", "get_session", map[string]any{"session": "01a0"}, []string{`session "01a0" matches`, "pass one of these ids", "01a0a561-3aba-724f-a634-c15148c18a5a"}},
		{"ambiguous name", "read_session", map[string]any{"session": sameName}, []string{"matches 2 sessions", "01a09f30", "01a0b36c"}},
		{"shared id", "get_context", map[string]any{"session": sharedID}, []string{"matches 2 sessions", "the path", "earlier-snapshot.jsonl"}},
		{"unknown session filter", "search_sessions", map[string]any{"query": "x", "session": "nosuch"}, []string{`no session matches "nosuch"`}},
		{"unknown session in cost", "cost_report", map[string]any{"session": "nosuch"}, []string{`no session matches "nosuch"`}},
		{"unknown session in activity", "activity_report", map[string]any{"session": "nosuch"}, []string{`no session matches "nosuch"`}},
		{"bad activity grouping", "activity_report", map[string]any{"by": []string{"source"}}, []string{`by "source": want day, week`}},
		{"activity by machine on one machine", "activity_report", map[string]any{"by": "machine"}, []string{"a local catalog has no machines"}},
		{"bad activity zone", "activity_report", map[string]any{"tz": "Mars/Olympus"}, []string{`tz "Mars/Olympus"`}},
		{"unknown leaf", "read_session", map[string]any{"session": branchy, "leaf": "nosuchentry"}, []string{`leaf: session ` + branchy + ` has no entry "nosuchentry"`}},
		{"unknown around", "read_session", map[string]any{"session": branchy, "around": "nosuchentry"}, []string{`around: session ` + branchy + ` has no entry "nosuchentry"`}},
		{"around off the leaf's branch", "read_session", map[string]any{"session": branchy, "leaf": "aeb87ffe", "around": "a90e25e6"}, []string{"is not on the branch ending at aeb87ffe"}},
		{"around without a message", "get_context", map[string]any{"session": branchy, "around": "26479024"}, []string{"puts no message in the model context"}},
		{"sql write", "query_sql", map[string]any{"statement": "DELETE FROM sessions"}, []string{"read-only: DELETE statements are refused"}},
		{"sql hidden write", "query_sql", map[string]any{"statement": "WITH x AS (SELECT 1) INSERT INTO meta SELECT 1, 2 FROM x"}, []string{"read-only"}},
		{"sql attach", "query_sql", map[string]any{"statement": "ATTACH DATABASE '/tmp/x.db' AS x"}, []string{"refused"}},
		{"sql two statements", "query_sql", map[string]any{"statement": "SELECT 1; SELECT 2"}, []string{"one statement at a time"}},
		{"sql error", "query_sql", map[string]any{"statement": "SELECT nosuchcolumn FROM sessions_v"}, []string{"the statement failed: no such column: nosuchcolumn"}},
		{"sql syntax", "query_sql", map[string]any{"statement": "SELECT FROM WHERE"}, []string{"the statement failed: ", "syntax error"}},
		{"sql timeout", "query_sql", map[string]any{"statement": "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT max(x) FROM c", "timeout_ms": 50}, []string{"ran past its time limit", "timeout_ms"}},
		{"sql bad timeout", "query_sql", map[string]any{"statement": "SELECT 1", "timeout_ms": 3600000}, []string{`timeout_ms "3600000"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			msg := f.fail(t, tc.tool, tc.args)
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("message lacks %q:\n%s", w, msg)
				}
			}
			for _, goish := range []string{"json: ", "reflect", "goroutine", "sql: ", "panic", "%!"} {
				if strings.Contains(msg, goish) {
					t.Errorf("message reads like a Go error (%q): %s", goish, msg)
				}
			}
		})
	}
	if logs := f.logged(); len(logs) > 0 {
		t.Errorf("a model's mistake reached the server's log: %q", logs)
	}
}

// A session file that disappears after it was indexed (pi deleted it, the
// user moved it) is said so, not an internal error.
func TestFileGone(t *testing.T) {
	f := newFixture(t, Options{})
	path := digStr(f.ok(t, "get_session", map[string]any{"session": branchy}).data, "session", "session", "path")
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if msg := f.fail(t, "read_session", map[string]any{"session": branchy}); !strings.Contains(msg, "no longer there") {
		t.Errorf("message %q", msg)
	}
	if logs := f.logged(); len(logs) > 0 {
		t.Errorf("logged %q", logs)
	}
}

// A model's small slips are forgiven: numbers and booleans as strings,
// one string for a list, null for "not given".
func TestLenientArguments(t *testing.T) {
	f := fx(t)
	r := f.ok(t, "list_sessions", map[string]any{"limit": "3", "sort": nil})
	if digLen(r.data, "sessions") != 3 {
		t.Errorf("limit \"3\": %d sessions", digLen(r.data, "sessions"))
	}
	r = f.ok(t, "search_sessions", map[string]any{"query": "flaky", "sessions_only": "true"})
	if digLen(r.data, "sessions") == 0 {
		t.Errorf("sessions_only \"true\": %s", r.raw)
	}
	r = f.ok(t, "cost_report", map[string]any{"by": "month, model", "tz": "UTC"})
	if by := asSlice(r.data["by"]); len(by) != 2 || by[1] != "model" {
		t.Errorf("by \"month, model\": %v", by)
	}
	r = f.ok(t, "query_sql", map[string]any{"statement": "SELECT :n + 1 AS m, :b AS b", "params": map[string]any{"n": 41, "b": true}})
	if v := dig(r.data, "rows", 0, 0); v != 42.0 {
		t.Errorf("params as numbers: %v", v)
	}
}

// A panic in a tool is a tool error; the server's log has the cause and
// the stack, the model only that it happened; the server goes on.
func TestPanicIsToolError(t *testing.T) {
	f := newFixture(t, Options{})
	addTool(f.srv, toolSpec[sessionArgs, overviewOut]{name: "boom", title: "Boom", desc: "panics",
		run: func(context.Context, *sessionArgs) (reply[overviewOut], error) { panic("kaboom") }})
	msg := f.fail(t, "boom", map[string]any{"session": "x"})
	if !strings.Contains(msg, "internal error") || strings.Contains(msg, "kaboom") {
		t.Errorf("message %q", msg)
	}
	if logs := f.logged(); len(logs) != 1 || !strings.Contains(logs[0], "kaboom") || !strings.Contains(logs[0], "goroutine") {
		t.Errorf("log %q", logs)
	}
	f.ok(t, "list_sessions", nil)
}

// Tool calls wait for the catalog to be ready, and a search for the text
// index too; listing the tools waits for nothing.
func TestReady(t *testing.T) {
	ready, textReady := make(chan struct{}), make(chan struct{})
	f := newFixture(t, Options{Ready: ready, TextReady: textReady})
	if len(f.tools(t)) == 0 {
		t.Fatal("no tools before ready")
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan *sdk.CallToolResult)
	go func() {
		res, _ := f.cs.CallTool(ctx, &sdk.CallToolParams{Name: "list_sessions"})
		done <- res
	}()
	cancel() // a call still waiting is cancelled by its client
	<-done
	close(ready)
	f.ok(t, "list_sessions", nil)
	searched := make(chan result, 1)
	go func() { searched <- f.call(t, "search_sessions", map[string]any{"query": "flaky"}) }()
	f.ok(t, "read_session", map[string]any{"session": branchy}) // the server answers meanwhile
	select {
	case r := <-searched:
		t.Fatalf("search answered before the text index was ready: %s", r.text)
	default:
	}
	close(textReady)
	if r := <-searched; r.isError || !strings.Contains(r.text, "**flaky**") {
		t.Errorf("search after the text index: %s", r.text)
	}
}

// The server only reads: after every tool, every file of the corpus is as
// it was.
func TestNeverWritesSessions(t *testing.T) {
	f := newFixture(t, Options{})
	before := digest(t, f.root)
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"search_sessions", map[string]any{"query": "test"}},
		{"list_sessions", nil},
		{"get_session", map[string]any{"session": branchy}},
		{"read_session", map[string]any{"session": large, "thinking": true, "tool_output": true}},
		{"get_context", map[string]any{"session": compacted}},
		{"cost_report", map[string]any{"by": "session"}},
		{"activity_report", map[string]any{"by": "session"}},
		{"query_sql", map[string]any{"statement": "SELECT entry_json(path, offset) FROM entries_v LIMIT 50"}},
	} {
		f.ok(t, c.tool, c.args)
	}
	if after := digest(t, f.root); !maps.Equal(before, after) {
		t.Error("a session file changed")
	}
}

// The SQL views' reference is a resource, with every view.
func TestViewsResource(t *testing.T) {
	f := fx(t)
	res, err := f.cs.ListResources(context.Background(), nil)
	if err != nil || len(res.Resources) != 1 || res.Resources[0].URI != viewsURI {
		t.Fatalf("resources %v, %v", res, err)
	}
	rr, err := f.cs.ReadResource(context.Background(), &sdk.ReadResourceParams{URI: viewsURI})
	if err != nil {
		t.Fatal(err)
	}
	doc := rr.Contents[0].Text
	for _, v := range pidex.Views {
		if !strings.Contains(doc, "### "+v.Name) {
			t.Errorf("reference lacks %s", v.Name)
		}
	}
	// Its examples run.
	for _, ex := range strings.Split(doc, "\n\n    ")[1:] {
		stmt := strings.Join(strings.Fields(strings.SplitN(ex, "\n\n", 2)[0]), " ")
		f.ok(t, "query_sql", map[string]any{"statement": stmt})
	}
}

func appendLine(t *testing.T, path, line string) {
	t.Helper()
	fh, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	if _, err := fh.WriteString(line + "\n"); err != nil {
		t.Fatal(err)
	}
}
