package view

import (
	"maps"
	"testing"
	"time"

	"github.com/pidex-dev/pidex"
)

// A row's selection: a period's days in the report's zone within its
// window, a project's directory, a model's name unless another model of
// the report contains it, none for what nothing selects.
func TestSelectRow(t *testing.T) {
	ktm, err := time.LoadLocation("Asia/Kathmandu")
	if err != nil {
		t.Fatal(err)
	}
	rows := func(keys ...[]string) []pidex.StatsRow {
		var out []pidex.StatsRow
		for _, k := range keys {
			out = append(out, pidex.StatsRow{Keys: k})
		}
		return out
	}
	since := time.Date(2026, 1, 2, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		r    pidex.StatsReport
		f    pidex.StatsFilter
		i    int
		want RowSelection // nil: none
	}{
		{"week in its zone", pidex.StatsReport{By: []string{"week"}, TZ: ktm, Rows: rows([]string{"2026-W01"})}, pidex.StatsFilter{}, 0,
			RowSelection{"since": "2025-12-29T00:00:00+05:45", "until": "2026-01-05T00:00:00+05:45"}},
		{"month within since", pidex.StatsReport{By: []string{"month"}, TZ: time.UTC, Rows: rows([]string{"2026-01"})},
			pidex.StatsFilter{CostFilter: pidex.CostFilter{Since: since}}, 0, RowSelection{"since": "2026-01-02T12:00:00Z", "until": "2026-02-01T00:00:00Z"}},
		{"day and project", pidex.StatsReport{By: []string{"day", "project"}, TZ: time.UTC, Rows: rows([]string{"2026-02-28", "/w/a"})}, pidex.StatsFilter{}, 0,
			RowSelection{"since": "2026-02-28T00:00:00Z", "until": "2026-03-01T00:00:00Z", "cwd": "/w/a"}},
		{"a model", pidex.StatsReport{By: []string{"model"}, Rows: rows([]string{"a/claude-sonnet-4-5"}, []string{"a/claude-sonnet-4"})}, pidex.StatsFilter{}, 0,
			RowSelection{"model": "a/claude-sonnet-4-5"}},
		{"a model another contains", pidex.StatsReport{By: []string{"model"}, Rows: rows([]string{"a/claude-sonnet-4-5"}, []string{"a/Claude-Sonnet-4"})}, pidex.StatsFilter{}, 1, nil},
		{"agent and session", pidex.StatsReport{By: []string{"agent", "session"}, Rows: rows([]string{"omp", "s1"})}, pidex.StatsFilter{}, 0,
			RowSelection{"agent": "omp", "session": "s1"}},
		{"unknown day", pidex.StatsReport{By: []string{"day"}, Rows: rows([]string{"unknown"})}, pidex.StatsFilter{}, 0, nil},
		{"no project", pidex.StatsReport{By: []string{"project"}, Rows: rows([]string{""})}, pidex.StatsFilter{}, 0, nil},
		{"week 53 of a year with 52", pidex.StatsReport{By: []string{"week"}, Rows: rows([]string{"2025-W53"})}, pidex.StatsFilter{}, 0, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := SelectRow(&tc.r, tc.f, tc.i)
			if ok != (tc.want != nil) || !maps.Equal(got, tc.want) {
				t.Errorf("got %v (%v), want %v", got, ok, tc.want)
			}
		})
	}
}
