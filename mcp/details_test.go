package mcp

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// Issue 39, item 8: a cursor holds the call's arguments, the page's size
// and budget included: the second page of a call with limit=3 has 3
// items (it had the default 20), and one with max_chars stays within it.
func TestCursorKeepsThePageSize(t *testing.T) {
	f := fx(t)
	tests := []struct {
		tool  string
		args  map[string]any
		items string
		n     int // items in each page (0: any)
	}{
		{"search_sessions", map[string]any{"query": "test", "limit": 3}, "hits", 3},
		{"search_sessions", map[string]any{"query": "test", "limit": 3, "sessions_only": true}, "sessions", 3},
		{"list_sessions", map[string]any{"limit": 3}, "sessions", 3},
		{"cost_report", map[string]any{"by": []string{"day", "session"}, "limit": 3}, "rows", 3},
		{"query_sql", map[string]any{"statement": "SELECT id FROM entries_v", "max_rows": 3}, "rows", 3},
		{"read_session", map[string]any{"session": large, "offset": 0, "limit": 3}, "items", 3},
		{"get_context", map[string]any{"session": large, "offset": 0, "limit": 3}, "items", 3},
		{"search_sessions", map[string]any{"query": "test", "limit": 200, "max_chars": 2000}, "hits", 0},
		{"list_sessions", map[string]any{"limit": 200, "max_chars": 2000}, "sessions", 0},
	}
	for _, tc := range tests {
		t.Run(tc.tool+" "+fmtArgs(tc.args), func(t *testing.T) {
			first := f.ok(t, tc.tool, tc.args)
			next := digStr(first.data, "next_cursor")
			if next == "" {
				t.Fatalf("one page: %s", first.text)
			}
			second := f.ok(t, tc.tool, map[string]any{"cursor": next})
			for i, r := range []result{first, second} {
				if n := digLen(r.data, tc.items); (tc.n > 0 && n != tc.n) || n == 0 {
					t.Errorf("page %d: %d %s, want %d", i+1, n, tc.items, tc.n)
				}
				if budget, ok := tc.args["max_chars"].(int); ok && utf8.RuneCountInString(r.text) > budget {
					t.Errorf("page %d: %d characters, max_chars %d", i+1, utf8.RuneCountInString(r.text), budget)
				}
			}
		})
	}
}

func fmtArgs(args map[string]any) string {
	for _, k := range []string{"max_chars", "sessions_only"} {
		if _, ok := args[k]; ok {
			return k
		}
	}
	return "limit"
}

// Issue 39, item 9: the search's text says the total as the CLI does
// ("Hits 1–3 of 60 in 21 sessions"), and its structured content carries
// it; the total is every hit, as a page holding all of them counts.
func TestSearchSaysTheTotal(t *testing.T) {
	f := fx(t)
	all := f.ok(t, "search_sessions", map[string]any{"query": "test", "limit": 200, "max_chars": 200000})
	if digStr(all.data, "next_cursor") != "" {
		t.Fatal("the whole search does not fit a page")
	}
	hits := digLen(all.data, "hits")
	sessions := map[string]bool{}
	for _, h := range asSlice(all.data["hits"]) {
		sessions[digStr(h, "session", "path")] = true
	}
	tests := []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"query": "test", "limit": 3}, fmt.Sprintf("Hits 1–3 of %d in %d sessions for \"test\", best first.", hits, len(sessions))},
		{map[string]any{"query": "test", "limit": 3, "sort": "newest"}, fmt.Sprintf("Hits 1–3 of %d in %d sessions for \"test\", newest first.", hits, len(sessions))},
		{map[string]any{"query": "test", "limit": 2, "sessions_only": true}, fmt.Sprintf("Sessions 1–2 of %d (%d hits) for \"test\", best first.", len(sessions), hits)},
	}
	for _, tc := range tests {
		r := f.ok(t, "search_sessions", tc.args)
		if !strings.HasPrefix(unnoted(r.text), tc.want) {
			t.Errorf("%v: text begins %.120q, want %q", tc.args, r.text, tc.want)
		}
		if dig(r.data, "totals", "hits") != float64(hits) || dig(r.data, "totals", "sessions") != float64(len(sessions)) || dig(r.data, "totals", "at_least") != false {
			t.Errorf("%v: totals %v, want %d hits in %d sessions", tc.args, r.data["totals"], hits, len(sessions))
		}
		// The cursor's page counts from where it starts.
		next := f.ok(t, "search_sessions", map[string]any{"cursor": digStr(r.data, "next_cursor")})
		from := tc.args["limit"].(int) + 1
		if want := fmt.Sprintf(" %d–%d of ", from, 2*from-2); !strings.Contains(strings.SplitN(unnoted(next.text), "\n", 2)[0], want) {
			t.Errorf("%v: the next page begins %.120q, want %q", tc.args, next.text, want)
		}
	}
}

// Issue 39, item 10: the unknown-argument error of every tool names the
// arguments its schema lists, no more: not machine on a local catalog
// (TestTeamCatalog checks a team catalog's), and a call that passes one
// the schema does not list is refused alike.
func TestUnknownArgumentNamesTheSchema(t *testing.T) {
	f := fx(t)
	checkUnknownArgument(t, f)
	if msg := f.fail(t, "list_sessions", map[string]any{"machine": "laptop"}); !strings.Contains(msg, `has no argument "machine"`) {
		t.Errorf("machine on a local catalog: %s", msg)
	}
}

// checkUnknownArgument calls each tool of f with an argument it lacks:
// the error lists the properties of the tool's input schema.
func checkUnknownArgument(t *testing.T, f *fixture) {
	t.Helper()
	for _, tl := range f.tools(t) {
		b, _ := json.Marshal(tl.InputSchema)
		var s struct{ Properties map[string]any }
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
		want := slices.Sorted(maps.Keys(s.Properties))
		msg := f.fail(t, tl.Name, map[string]any{"no_such_argument": 1})
		_, list, ok := strings.Cut(msg, "; it takes ")
		if got := strings.Split(list, ", "); !ok || !slices.Equal(got, want) {
			t.Errorf("%s: %q\nwant it to list %v", tl.Name, msg, want)
		}
	}
}

// Issue 39, item 11: query_sql counts the values it cut among the rows it
// returns, not among every row it read (it said "2157 values were cut"
// with 27 rows × 14 columns shown).
func TestSQLCountsTheValuesItShowsCut(t *testing.T) {
	f := fx(t)
	tests := []struct {
		name string
		args map[string]any
		per  int // values cut per row
	}{
		{"the budget stops the page", map[string]any{"statement": "SELECT hex(zeroblob(300)) AS a, id, hex(zeroblob(200)) AS b FROM entries_v", "max_value_chars": 100, "max_rows": 500, "max_chars": 5000}, 2},
		{"max_rows stops the page", map[string]any{"statement": "SELECT hex(zeroblob(300)) AS a, id FROM entries_v", "max_value_chars": 100, "max_rows": 7}, 1},
		{"a cursor's page", map[string]any{"statement": "SELECT id, hex(zeroblob(300)) AS a FROM entries_v", "max_value_chars": 100, "max_rows": 500, "max_chars": 3000}, 1},
	}
	cutRE := regexp.MustCompile(`(\d+) values? (?:was|were) cut at`)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := f.ok(t, "query_sql", tc.args)
			if tc.name == "a cursor's page" {
				r = f.ok(t, "query_sql", map[string]any{"cursor": digStr(r.data, "next_cursor")})
			}
			rows := digLen(r.data, "rows")
			if rows == 0 || digStr(r.data, "next_cursor") == "" {
				t.Fatalf("%d rows, next_cursor %q: the case needs a page that stops", rows, digStr(r.data, "next_cursor"))
			}
			m := cutRE.FindStringSubmatch(r.text)
			if m == nil || m[1] != fmt.Sprint(rows*tc.per) {
				t.Errorf("%d rows returned, %d values cut in each; the text says %q", rows, tc.per, m)
			}
		})
	}
}

// Issue 39, item 12: read_session and get_context around a hit centre
// the window on it, so that a tool result comes with the tool call that
// produced it (limit=4 put the hit first).
func TestAroundCentresTheWindow(t *testing.T) {
	f := fx(t)
	for _, tool := range []string{"read_session", "get_context"} {
		t.Run(tool, func(t *testing.T) {
			whole := f.ok(t, tool, map[string]any{"session": large, "offset": 0, "limit": 1000, "max_chars": 200000, "max_message_chars": 100})
			items := asSlice(whole.data["items"])
			hit := -1 // a tool result in the middle, after the call that produced it
			for i := len(items) / 2; i < len(items) && hit < 0; i++ {
				if digStr(items[i], "role") == "tool" && digStr(items[i-1], "role") == "assistant" {
					hit = i
				}
			}
			if hit < 0 {
				t.Fatal("no tool result after an assistant message")
			}
			id := digStr(items[hit], "id")
			for _, limit := range []int{1, 2, 4, 5, 20} {
				r := f.ok(t, tool, map[string]any{"session": large, "around": id, "limit": limit, "max_message_chars": 100})
				got := asSlice(r.data["items"])
				at := -1
				for i, it := range got {
					if digStr(it, "id") == id && dig(it, "position") == dig(items[hit], "position") {
						at = i
					}
				}
				if len(got) != limit || at != limit/2 {
					t.Errorf("limit %d: the hit is item %d of %d, want item %d of %d", limit, at, len(got), limit/2, limit)
				}
				if limit >= 2 && at >= 1 && digStr(got[at-1], "id") != digStr(items[hit-1], "id") {
					t.Errorf("limit %d: the item before the hit is %s, want the call %s", limit, digStr(got[at-1], "id"), digStr(items[hit-1], "id"))
				}
			}
		})
	}
}

// unnoted is a tool's text without the note that opens it (quotedNote).
func unnoted(text string) string { return strings.TrimPrefix(text, quotedNote+"\n\n") }
