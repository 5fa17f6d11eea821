package render

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/pidex-dev/pidex"
)

// chartGlyphs fill the stacked segments, one per series (the last one is
// "other"): distinct without colour, so the chart reads piped or printed.
var chartGlyphs = []string{"█", "▓", "▒", "░", "#", "=", "+", ":"}

// CostChart draws cost per period as horizontal bars fitted to width: one
// bar per period (the report's day, week or month key, else its first
// key), stacked by model when the report is grouped by model too (else by
// its other key, if any), with a legend.
func CostChart(w io.Writer, r *pidex.CostReport, width int) error {
	cs, err := ChartSeries(r, len(chartGlyphs))
	if err != nil {
		return err
	}
	labelW := 0
	for _, p := range cs.Periods {
		labelW = max(labelW, utf8.RuneCountInString(p))
	}
	barW := max(10, width-labelW-14)
	ew := &errWriter{w: w}
	for pi, p := range cs.Periods {
		ew.str(Safe(p) + strings.Repeat(" ", labelW-utf8.RuneCountInString(p)) + " ")
		for si := range cs.Series {
			ew.str(strings.Repeat(chartGlyphs[si], cells(cs.Cost[pi][si], cs.Max, barW)))
		}
		ew.str(" " + costFmt(cs.Totals[pi]) + "\n")
	}
	if cs.Stacked {
		ew.str("\n")
		for si, name := range cs.Series {
			ew.str(chartGlyphs[si] + " " + Safe(name) + " " + costFmt(cs.SeriesTotals[si]) + "\n")
		}
	}
	return ew.err
}

// CostSeries is a cost report arranged for a chart (the terminal's bars,
// the web page's SVG): periods in the report's order, series most
// expensive first.
type CostSeries struct {
	Periods []string
	// Series names the stacked series; when there are more than the chart
	// can tell apart, the last is "other (N more)", their sum.
	Series       []string
	Stacked      bool        // the report has a key to stack by
	Cost         [][]float64 // [period][series]
	Totals       []float64   // per period
	SeriesTotals []float64   // per series
	Max          float64     // the largest period total
}

// ChartSeries arranges r for a chart of at most maxSeries series. It needs
// a report grouped by at least one key (a period, to make sense).
func ChartSeries(r *pidex.CostReport, maxSeries int) (*CostSeries, error) {
	if len(r.By) == 0 {
		return nil, pidex.Usagef("draw cost chart: the report has no grouping (a period, to make sense)")
	}
	pk, sk := chartAxes(r.By)
	var periods []string
	cost := map[string]map[string]float64{}
	series := map[string]float64{}
	for _, row := range r.Rows {
		p, s := row.Keys[pk], ""
		if sk >= 0 {
			s = row.Keys[sk]
		}
		if cost[p] == nil {
			cost[p] = map[string]float64{}
			periods = append(periods, p)
		}
		cost[p][s] = pidex.SaturatingAdd(cost[p][s], row.Cost)
		series[s] = pidex.SaturatingAdd(series[s], row.Cost)
	}
	order := seriesOrder(series)
	cs := &CostSeries{Periods: periods, Stacked: sk >= 0, Series: order}
	if len(order) > maxSeries {
		cs.Series = append(order[:maxSeries-1:maxSeries-1], fmt.Sprintf("other (%d more)", len(order)-maxSeries+1))
	}
	last := len(cs.Series) - 1
	cs.SeriesTotals = make([]float64, len(cs.Series))
	for _, p := range periods {
		row := make([]float64, len(cs.Series))
		total := 0.0
		for i, s := range order {
			c := cost[p][s]
			row[min(i, last)] = pidex.SaturatingAdd(row[min(i, last)], c)
			cs.SeriesTotals[min(i, last)] = pidex.SaturatingAdd(cs.SeriesTotals[min(i, last)], c)
			total = pidex.SaturatingAdd(total, c)
		}
		cs.Cost = append(cs.Cost, row)
		cs.Totals = append(cs.Totals, total)
		cs.Max = max(cs.Max, total)
	}
	return cs, nil
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
