package render

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/pidex-dev/pidex/query"
	"github.com/pidex-dev/pidex/schema"
)

// chartGlyphs fill the stacked segments, one per series (the last one is
// "other"): distinct without colour, so the chart reads piped or printed.
var chartGlyphs = []string{"█", "▓", "▒", "░", "#", "=", "+", ":"}

// CostChart draws cost per period as horizontal bars fitted to width: one
// bar per period (the report's day, week or month key, else its first
// key), stacked by model when the report is grouped by model too (else by
// its other key, if any), with a legend.
func CostChart(w io.Writer, r *query.CostReport, width int) error {
	if len(r.By) == 0 {
		return fmt.Errorf("draw cost chart: group by a period (--by day, week or month): %w", schema.ErrUsage)
	}
	pi, si := chartAxes(r.By)
	var periods []string
	cost := map[string]map[string]float64{}
	series := map[string]float64{}
	for _, row := range r.Rows {
		p, s := row.Keys[pi], ""
		if si >= 0 {
			s = row.Keys[si]
		}
		if cost[p] == nil {
			cost[p] = map[string]float64{}
			periods = append(periods, p)
		}
		cost[p][s] += row.Cost
		series[s] += row.Cost
	}
	order := seriesOrder(series)
	labelW := 0
	for _, p := range periods {
		labelW = max(labelW, utf8.RuneCountInString(p))
	}
	maxTotal := 0.0
	for _, p := range periods {
		t := 0.0
		for _, c := range cost[p] {
			t += c
		}
		maxTotal = max(maxTotal, t)
	}
	barW := max(10, width-labelW-14)
	ew := &errWriter{w: w}
	for _, p := range periods {
		ew.str(Safe(p) + strings.Repeat(" ", labelW-utf8.RuneCountInString(p)) + " ")
		total := 0.0
		for i, s := range order {
			c := cost[p][s]
			if i == len(chartGlyphs)-1 { // the rest fold into "other"
				for _, rest := range order[i+1:] {
					c += cost[p][rest]
				}
			}
			total += c
			ew.str(strings.Repeat(chartGlyphs[min(i, len(chartGlyphs)-1)], cells(c, maxTotal, barW)))
			if i == len(chartGlyphs)-1 {
				break
			}
		}
		ew.str(" " + costFmt(total) + "\n")
	}
	if si >= 0 {
		ew.str("\n")
		for i, s := range order {
			name := s
			if i == len(chartGlyphs)-1 && len(order) > len(chartGlyphs) {
				name = fmt.Sprintf("other (%d more)", len(order)-i)
			}
			ew.str(chartGlyphs[i] + " " + Safe(name) + " " + costFmt(series[s]) + "\n")
			if i == len(chartGlyphs)-1 {
				break
			}
		}
	}
	return ew.err
}

// chartAxes picks the period key and the stacking key (-1: none).
func chartAxes(by []string) (period, stack int) {
	period, stack = 0, -1
	for i, k := range by {
		if k == "day" || k == "week" || k == "month" {
			period = i
			break
		}
	}
	for i, k := range by {
		if i != period && (stack < 0 || k == "model") {
			stack = i
		}
	}
	return period, stack
}

// seriesOrder lists the series most expensive first.
func seriesOrder(series map[string]float64) []string {
	order := make([]string, 0, len(series))
	for s := range series {
		order = append(order, s)
	}
	slices.SortFunc(order, func(a, b string) int {
		if c := cmp.Compare(series[b], series[a]); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	return order
}

// cells is the length of a segment worth c when maxTotal fills width.
func cells(c, maxTotal float64, width int) int {
	if maxTotal <= 0 || c <= 0 {
		return 0
	}
	return int(math.Round(c / maxTotal * float64(width)))
}
