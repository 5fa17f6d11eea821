package web

import (
	"bytes"
	"math"
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/render"
	"github.com/pidex-dev/pidex/internal/text"
	"github.com/pidex-dev/pidex/internal/view"
)

// GET /api/cost = pidex cost --json.
func (s *Server) apiCost(w http.ResponseWriter, r *http.Request) {
	o, err := s.costOptions(r)
	if err != nil {
		s.httpError(w, r, err)
		return
	}
	rep, err := s.cat.Cost(r.Context(), o)
	if err != nil {
		s.httpError(w, r, err)
		return
	}
	s.writeJSON(w, r, func(b *bytes.Buffer) error { return render.CostJSON(b, rep) })
}

// costView is the cost page: a chart of cost per period stacked by a
// key, the report's table, and active against abandoned branches.
type costView struct {
	Form    url.Values
	Error   string
	Period  string
	Stack   string
	Periods []string
	Stacks  []string
	TZ      string
	Chart   *chartView
	// Narrow is the same chart drawn for a phone's width: fewer labels,
	// larger in proportion (the page shows one or the other).
	Narrow    *chartView
	Rows      []pidex.CostRow
	By        []string
	Totals    pidex.CostSums
	Active    pidex.CostSums
	Abandoned pidex.CostSums
	// Unpriced: the report holds unpriced calls (a column of their count,
	// an asterisk on the cost, Note under the table); Estimated: it
	// prices them apart (a column).
	Unpriced, Estimated bool
	Note                string
}

func (s *Server) costPage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	v := costView{Form: q, Period: pick(q.Get("period"), "day", "week", "month"), Stack: pick(q.Get("stack"), "model", "project", "provider", "source"),
		Periods: []string{"day", "week", "month"}, Stacks: []string{"model", "project", "provider", "source"}}
	code := http.StatusOK
	if err := s.costReport(r, &v); err != nil && !s.formError(w, r, err, &v.Error, &code) {
		return
	}
	s.renderPage(w, r, code, "cost", page{Title: "Cost", Nav: "cost", Data: v})
}

func (s *Server) costReport(r *http.Request, v *costView) error {
	o, err := s.costOptions(r)
	if err != nil {
		return err
	}
	v.TZ = o.TZ
	if v.TZ == "" {
		v.TZ = time.Local.String()
	}
	o.By = []string{v.Period, v.Stack}
	rep, err := s.cat.Cost(r.Context(), o)
	if err != nil {
		return err
	}
	v.Rows, v.By, v.Totals = rep.Rows, rep.By, rep.Totals
	v.Unpriced, v.Estimated = rep.Totals.UnpricedCalls > 0, rep.EstimatedWith != ""
	v.Note = render.UnpricedNote(rep, "tick Estimate to price them")
	cs, err := view.ChartSeries(rep, len(chartColours))
	if err != nil {
		return err
	}
	v.Chart, v.Narrow = chart(cs, chartW), chart(cs, chartNarrowW)
	o.By = nil
	for _, b := range []struct {
		branch string
		sums   *pidex.CostSums
	}{{pidex.BranchActive, &v.Active}, {pidex.BranchAbandoned, &v.Abandoned}} {
		o.Branch = b.branch
		rep, err := s.cat.Cost(r.Context(), o)
		if err != nil {
			return err
		}
		*b.sums = rep.Totals
	}
	return nil
}

// costSumsArgs carry a row's figures and the page into the "sums"
// template, which writes the figure cells of a row and of the totals.
type costSumsArgs struct {
	S    pidex.CostSums
	View costView
}

// pick is v when it is one of allowed, else the first allowed.
func pick(v string, allowed ...string) string {
	if slices.Contains(allowed, v) {
		return v
	}
	return allowed[0]
}

// The chart is SVG drawn here, not by a library: stacked bars, a few grid
// lines, labels. Colours are CSS classes c0…c9 (the page's style sheet),
// so no style attribute is needed.
var chartColours = []string{"c0", "c1", "c2", "c3", "c4", "c5", "c6", "c7", "c8", "c9"}

const (
	chartW, chartH        = 960.0, 300.0
	chartNarrowW          = 420.0
	chartRight            = 8.0
	chartTop, chartBottom = 10.0, 40.0
	// labelCell is the most a character of an 11 px label takes, to keep
	// labels inside the drawing (the viewBox cuts what passes its edge).
	labelCell = 7.0
)

type chartView struct {
	W, H   float64
	Bars   []chartRect
	Grid   []chartLine
	Labels []chartText
	Legend []chartLegend
}

// chartArgs carry a chart and its element's id and class into the
// "chart" template.
type chartArgs struct {
	C         *chartView
	ID, Class string
}

type chartRect struct {
	X, Y, W, H float64
	Class      string
	Title      string
}

type chartLine struct{ X1, Y1, X2, Y2 float64 }

type chartText struct {
	X, Y   float64
	Text   string
	Anchor string
}

type chartLegend struct {
	Class, Name, Cost string
}

// chart draws cs at width chartW. Every number it writes is finite and
// inside the drawing, whatever the amounts: sums saturate at the largest
// double (1.8e308), where plotH*cost or top*4 would overflow to +Inf and
// the SVG would read y="-Inf" height="+Inf". So the axis is divided
// before it is multiplied, a bar's share is a ratio first, a stack never
// rises above the plot (saturated parts can add up past their saturated
// total), and the axis's amounts are written short (text.MoneyShort).
func chart(cs *view.CostSeries, chartW float64) *chartView {
	c := &chartView{W: chartW, H: chartH}
	top := niceCeil(cs.Max)
	axis := func(i int) float64 { return top / 4 * float64(i) }
	// The axis's amounts set the left margin: $12,500.00 needs more than $1.00.
	left := 0.0
	for i := 0; i <= 4; i++ {
		left = max(left, float64(len(text.MoneyShort(axis(i)))))
	}
	left = left*labelCell + 10
	plotW, plotH := chartW-left-chartRight, chartH-chartTop-chartBottom
	for i := 0; i <= 4; i++ {
		y := chartTop + plotH - plotH*float64(i)/4
		c.Grid = append(c.Grid, chartLine{left, y, chartW - chartRight, y})
		c.Labels = append(c.Labels, chartText{left - 6, y + 4, text.MoneyShort(axis(i)), "end"})
	}
	n := len(cs.Periods)
	if n == 0 {
		return c
	}
	slot := plotW / float64(n)
	barW := max(1, slot*0.8)
	// As many period labels as fit side by side, each a whole number of
	// periods apart.
	labelW := float64(len(cs.Periods[0])+2) * labelCell
	every := max(1, int(math.Ceil(labelW/slot)))
	lastLabel := math.Inf(-1) // where the last period label drawn ends
	for pi, p := range cs.Periods {
		x := left + slot*float64(pi) + (slot-barW)/2
		y := chartTop + plotH
		for si, cost := range cs.Cost[pi] {
			if !(cost > 0) || y <= chartTop { // NaN too; a full stack
				continue
			}
			h := min(plotH*min(cost/top, 1), y-chartTop)
			y -= h
			c.Bars = append(c.Bars, chartRect{x, y, barW, h, chartColours[si], p + " · " + seriesName(cs.Series[si]) + " · " + text.Money(cost)})
		}
		if pi%every == 0 {
			// A label centred on its bar, unless that would pass an edge of
			// the drawing: then it ends (or starts) at the edge; one that
			// would touch the label before it is left out.
			lx, anchor := x+barW/2, "middle"
			half := float64(len(p)) * labelCell / 2
			from, to := lx-half, lx+half
			switch {
			case to > chartW:
				lx, anchor, from, to = chartW-2, "end", chartW-2-2*half, chartW-2
			case from < 0:
				lx, anchor, from, to = 2, "start", 2, 2+2*half
			}
			if from >= lastLabel+labelCell {
				c.Labels = append(c.Labels, chartText{lx, chartH - chartBottom + 16, p, anchor})
				lastLabel = to
			}
		}
	}
	for si, name := range cs.Series {
		c.Legend = append(c.Legend, chartLegend{chartColours[si], seriesName(name), text.Money(cs.SeriesTotals[si])})
	}
	return c
}

// seriesName names a series of the chart; a call without the key is "(none)".
func seriesName(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// niceCeil rounds up to 1, 2 or 5 times a power of ten, for the axis.
func niceCeil(v float64) float64 {
	if !(v > 0) { // NaN too
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= v {
			return min(m*p, math.MaxFloat64) // a saturated total's axis stays finite
		}
	}
	return min(10*p, math.MaxFloat64)
}
