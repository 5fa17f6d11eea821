package web

import (
	"testing"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/view"
)

// The SVG chart keeps its labels inside the drawing, at either width:
// the axis amounts set the left margin, the last period's label ends at
// the right edge, labels never overlap.
func TestChartLabelsInside(t *testing.T) {
	var rows []pidex.CostRow
	for _, d := range []string{"2026-01-01", "2026-01-09", "2026-02-14"} {
		rows = append(rows, pidex.CostRow{Keys: []string{d, "m"}, CostSums: pidex.CostSums{Cost: 12500}})
	}
	cs, err := view.ChartSeries(&pidex.CostReport{By: []string{"day", "model"}, Rows: rows}, len(chartColours))
	if err != nil {
		t.Fatal(err)
	}
	if len(cs.Periods) != 45 {
		t.Fatalf("%d days on the axis, want 45", len(cs.Periods))
	}
	for _, w := range []float64{chartW, chartNarrowW} {
		c := chart(cs, w)
		last := -1.0
		for _, l := range c.Labels {
			n := float64(len(l.Text)) * labelCell
			from, to := l.X-n/2, l.X+n/2
			switch l.Anchor {
			case "end":
				from, to = l.X-n, l.X
			case "start":
				from, to = l.X, l.X+n
			}
			if from < 0 || to > w {
				t.Errorf("width %.0f: label %q spans %.0f–%.0f", w, l.Text, from, to)
			}
			if l.Y == chartH-chartBottom+16 { // a period label
				if from < last {
					t.Errorf("width %.0f: label %q overlaps the one before", w, l.Text)
				}
				last = to
			}
		}
	}
}
