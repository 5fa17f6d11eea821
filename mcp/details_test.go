package mcp

import (
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
