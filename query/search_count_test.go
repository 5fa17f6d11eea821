package query_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/fts"
)

// A search's totals count the whole answer, whatever the page, with the
// filters and branches it has; sessions are counted once.
func TestSearchTotals(t *testing.T) {
	e := newSearchEnv(t)
	for i := range 7 {
		e.file(fmt.Sprintf("--w-app--/s%d.jsonl", i), hdr(fmt.Sprintf("s%d", i), "/w/app"),
			userMsg("a1", "", fmt.Sprintf("pangolin number %d", i), fmt.Sprintf("2026-05-0%dT10:00:01.000Z", i+1)),
			userMsg("a2", "a1", "and another pangolin", fmt.Sprintf("2026-05-0%dT10:00:02.000Z", i+1)))
	}
	e.file("--w-other--/o.jsonl", hdr("o", "/w/other"), userMsg("b1", "", "one pangolin elsewhere", "2026-05-09T10:00:01.000Z"))
	e.refresh()
	r := newReader(e.ix.DB, nil)
	q, _ := fts.Parse("pangolin")
	tests := []struct {
		f    pidex.SearchFilter
		want pidex.SearchTotals
	}{
		{pidex.SearchFilter{Limit: 4}, pidex.SearchTotals{Hits: 15, Sessions: 8}},
		{pidex.SearchFilter{Limit: 4, Offset: 12}, pidex.SearchTotals{Hits: 15, Sessions: 8}},
		{pidex.SearchFilter{Where: pidex.Where{"project": "other"}, Limit: 4}, pidex.SearchTotals{Hits: 1, Sessions: 1}},
		{pidex.SearchFilter{Limit: 4, Active: true}, pidex.SearchTotals{Hits: 15, Sessions: 8}},
	}
	for _, tt := range tests {
		got, err := r.SearchTotalsF(context.Background(), q, tt.f)
		if err != nil || got != tt.want {
			t.Errorf("SearchTotals(%+v) = %+v, %v; want %+v", tt.f, got, err, tt.want)
		}
	}
	none, _ := fts.Parse("aardvark")
	if got, err := r.SearchTotalsF(context.Background(), none, pidex.SearchFilter{Limit: 4}); err != nil || got != (pidex.SearchTotals{}) {
		t.Errorf("no match: %+v, %v", got, err)
	}
}
