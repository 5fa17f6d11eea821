package view

import (
	"slices"
	"testing"

	"github.com/pidex-dev/pidex"
)

func TestPeriodAxis(t *testing.T) {
	tests := []struct {
		key     string
		present []string
		want    []string
	}{
		{"day", []string{"2026-02-27", "2026-03-02"}, []string{"2026-02-27", "2026-02-28", "2026-03-01", "2026-03-02"}},
		{"day", []string{"2026-03-02", "unknown", "2026-03-01"}, []string{"2026-03-01", "2026-03-02", "unknown"}},
		{"week", []string{"2026-W01", "2026-W04"}, []string{"2026-W01", "2026-W02", "2026-W03", "2026-W04"}},
		// across a year of 53 ISO weeks (2026) into the next
		{"week", []string{"2026-W52", "2027-W02"}, []string{"2026-W52", "2026-W53", "2027-W01", "2027-W02"}},
		{"month", []string{"2025-11", "2026-02"}, []string{"2025-11", "2025-12", "2026-01", "2026-02"}},
		{"month", []string{"2025-09", "2025-12"}, []string{"2025-09", "2025-10", "2025-11", "2025-12"}},
		{"day", nil, nil},
		{"day", []string{"unknown"}, []string{"unknown"}},
		// a stray time decades away: only the periods with calls
		{"day", []string{"1970-01-01", "2026-01-01"}, []string{"1970-01-01", "2026-01-01"}},
	}
	for _, tt := range tests {
		if got := PeriodAxis(tt.key, tt.present); !slices.Equal(got, tt.want) {
			t.Errorf("PeriodAxis(%s, %v) = %v, want %v", tt.key, tt.present, got, tt.want)
		}
	}
}

// A chart's time axis is continuous: a week without calls is a bar of
// zero between its neighbours, not skipped.
func TestChartSeriesContinuous(t *testing.T) {
	r := &pidex.CostReport{By: []string{"week", "model"}, Rows: []pidex.CostRow{
		{Keys: []string{"2026-W01", "a"}, CostSums: pidex.CostSums{Cost: 1}},
		{Keys: []string{"2026-W01", "b"}, CostSums: pidex.CostSums{Cost: 2}},
		{Keys: []string{"2026-W03", "a"}, CostSums: pidex.CostSums{Cost: 4}},
	}}
	cs, err := ChartSeries(r, 8)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"2026-W01", "2026-W02", "2026-W03"}; !slices.Equal(cs.Periods, want) {
		t.Errorf("periods %v, want %v", cs.Periods, want)
	}
	if want := []float64{3, 0, 4}; !slices.Equal(cs.Totals, want) {
		t.Errorf("totals %v, want %v", cs.Totals, want)
	}
	if want := []string{"a", "b"}; !slices.Equal(cs.Series, want) || cs.Max != 4 || !cs.Stacked {
		t.Errorf("series %v, max %v, stacked %v", cs.Series, cs.Max, cs.Stacked)
	}
}
