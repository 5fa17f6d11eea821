package render

import (
	"io"
	"math"
	"strings"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/text"
	"github.com/pidex-dev/pidex/internal/view"
)

// chartGlyphs fill the stacked segments, one per series (the last one is
// "other"): distinct without colour, so the chart reads piped or printed.
var chartGlyphs = []string{"█", "▓", "▒", "░", "#", "=", "+", ":"}

// CostChart draws cost per period as horizontal bars fitted to width: one
// bar per period of a continuous time axis (view.ChartSeries: a period
// without calls is an empty bar), stacked by model when the report is
// grouped by model too (else by its other key, if any), with a legend.
// Every line fits width cells: the period labels and the amounts are
// measured, the bars take what is left.
func CostChart(w io.Writer, r *pidex.CostReport, width int) error {
	cs, err := view.ChartSeries(r, len(chartGlyphs))
	if err != nil {
		return err
	}
	labelW, amountW := 0, 0
	for i, p := range cs.Periods {
		labelW = max(labelW, text.Width(Safe(p)))
		amountW = max(amountW, text.Width(text.Money(cs.Totals[i])))
	}
	barW := max(10, width-labelW-amountW-2)
	ew := &errWriter{w: w}
	for pi, p := range cs.Periods {
		var bar strings.Builder
		cellsUsed := 0
		for si := range cs.Series {
			n := min(cells(cs.Cost[pi][si], cs.Max, barW), barW-cellsUsed)
			bar.WriteString(strings.Repeat(chartGlyphs[si], n))
			cellsUsed += n
		}
		ew.str(text.PadRight(Safe(p), labelW) + " " + bar.String() + strings.Repeat(" ", barW-cellsUsed) + " " +
			text.PadLeft(text.Money(cs.Totals[pi]), amountW) + "\n")
	}
	if cs.Stacked {
		ew.str("\n")
		for si, name := range cs.Series {
			amount := text.Money(cs.SeriesTotals[si])
			ew.str(chartGlyphs[si] + " " + text.CutWidth(Safe(name), max(8, width-3-text.Width(amount))) + " " + amount + "\n")
		}
	}
	return ew.err
}

// cells is the length of a segment worth c when maxTotal fills width.
func cells(c, maxTotal float64, width int) int {
	if maxTotal <= 0 || c <= 0 {
		return 0
	}
	return int(math.Round(c / maxTotal * float64(width)))
}
