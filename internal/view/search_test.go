package view

import (
	"testing"

	"github.com/pidex-dev/pidex"
)

func TestSearchPage(t *testing.T) {
	tests := []struct {
		totals               pidex.SearchTotals
		offset, limit, shown int
		sessionsOnly         bool
		want                 string
		prev, next           int
	}{
		{pidex.SearchTotals{Hits: 1234, Sessions: 56}, 0, 20, 20, false, "hits 1–20 of 1,234 in 56 sessions", -1, 20},
		{pidex.SearchTotals{Hits: 1234, Sessions: 56}, 20, 20, 20, false, "hits 21–40 of 1,234 in 56 sessions", 0, 40},
		{pidex.SearchTotals{Hits: 45, Sessions: 3}, 40, 20, 5, false, "hits 41–45 of 45 in 3 sessions", 20, -1},
		{pidex.SearchTotals{Hits: 1, Sessions: 1}, 0, 20, 1, false, "hit 1 of 1 in 1 session", -1, -1},
		{pidex.SearchTotals{}, 0, 20, 0, false, "no hits", -1, -1},
		{pidex.SearchTotals{Hits: 45, Sessions: 3}, 60, 20, 0, false, "no hits past 45", 40, -1},
		{pidex.SearchTotals{Hits: 10000, Sessions: 900, AtLeast: true}, 9980, 20, 20, false, "hits 9,981–10,000 of 10,000+ in 900+ sessions", 9960, 10000},
		{pidex.SearchTotals{Hits: 1234, Sessions: 56}, 40, 20, 16, true, "sessions 41–56 of 56 (1,234 hits)", 20, -1},
	}
	for _, tt := range tests {
		p := NewSearchPage(tt.totals, tt.offset, tt.limit, tt.shown, tt.sessionsOnly)
		if p.String() != tt.want || p.Prev != tt.prev || p.Next != tt.next {
			t.Errorf("%+v at %d: %q prev %d next %d; want %q prev %d next %d", tt.totals, tt.offset, p.String(), p.Prev, p.Next, tt.want, tt.prev, tt.next)
		}
	}
}

func TestGroupHits(t *testing.T) {
	hits := []pidex.Hit{{Path: "a", EntryID: "1"}, {Path: "b", EntryID: "2"}, {Path: "a", EntryID: "3"}}
	g := GroupHits(hits)
	if len(g) != 2 || g[0].Path != "a" || len(g[0].Hits) != 2 || g[0].Hits[1].EntryID != "3" || g[1].Path != "b" {
		t.Errorf("groups %+v", g)
	}
}
