package web

import (
	"math"
	"regexp"
	"strconv"
	"strings"
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

// Sums at the largest double (absurd usage saturates there, issue 16) drew
// y="-Inf" height="+Inf" and an axis label "$+Inf" (issue 39, item 7):
// plotH*cost and top*4 overflowed. Every number of the chart is finite and
// inside the drawing, a stack stays inside the plot, and the axis's
// amounts are short and finite, at either width.
func TestChartNumbersFinite(t *testing.T) {
	const huge = math.MaxFloat64
	for _, tc := range []struct {
		name string
		rows [][3]any // period, series, cost
	}{
		{"saturated total", [][3]any{{"2026-01-01", "a", huge}, {"2026-01-01", "b", 1e308}, {"2026-01-02", "a", 1e308}}},
		{"largest double alone", [][3]any{{"2026-01-01", "a", huge}}},
		{"tiny beside huge", [][3]any{{"2026-01-01", "a", 1e-300}, {"2026-01-02", "b", 1.7e308}}},
		{"all zero", [][3]any{{"2026-01-01", "a", 0.0}}},
		{"ordinary", [][3]any{{"2026-01-01", "a", 12.5}, {"2026-01-01", "b", 3.0}}},
	} {
		var rows []pidex.CostRow
		for _, r := range tc.rows {
			rows = append(rows, pidex.CostRow{Keys: []string{r[0].(string), r[1].(string)}, CostSums: pidex.CostSums{Cost: r[2].(float64)}})
		}
		cs, err := view.ChartSeries(&pidex.CostReport{By: []string{"day", "model"}, Rows: rows}, len(chartColours))
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range []float64{chartW, chartNarrowW} {
			c := chart(cs, w)
			in := func(what string, v, lo, hi float64) {
				if math.IsNaN(v) || math.IsInf(v, 0) || v < lo || v > hi {
					t.Errorf("%s, width %.0f: %s = %v, want within %v–%v", tc.name, w, what, v, lo, hi)
				}
			}
			for _, b := range c.Bars {
				in("bar x", b.X, 0, w)
				in("bar width", b.W, 0, w-b.X)
				in("bar y", b.Y, chartTop, chartH-chartBottom)
				in("bar height", b.H, 0, chartH-chartBottom-b.Y)
			}
			for _, g := range c.Grid {
				for _, v := range []float64{g.X1, g.X2} {
					in("grid x", v, 0, w)
				}
				for _, v := range []float64{g.Y1, g.Y2} {
					in("grid y", v, 0, chartH)
				}
			}
			for _, l := range c.Labels {
				in("label x", l.X, 0, w)
				in("label y", l.Y, 0, chartH)
				if strings.Contains(l.Text, "Inf") || strings.Contains(l.Text, "NaN") || len(l.Text) > 12 {
					t.Errorf("%s, width %.0f: label %q", tc.name, w, l.Text)
				}
			}
		}
	}
	if got := chart(mustSeries(t, "2026-01-01", math.MaxFloat64), chartW).Labels[4].Text; got != "$1.8e+308" {
		t.Errorf("the axis's top at the largest double reads %q, want $1.8e+308", got)
	}
}

func mustSeries(t *testing.T, day string, cost float64) *view.CostSeries {
	t.Helper()
	cs, err := view.ChartSeries(&pidex.CostReport{By: []string{"day"}, Rows: []pidex.CostRow{{Keys: []string{day}, CostSums: pidex.CostSums{Cost: cost}}}}, len(chartColours))
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// The /cost page of sessions whose costs saturate: every number its SVG
// charts write is finite, and no "Inf" or "NaN" is in them.
func TestCostPageChartFinite(t *testing.T) {
	usage := func(id, parent, ts string) string {
		return `{"type":"usage","id":"` + id + `","parentId":` + parent + `,"timestamp":"` + ts + `","kind":"x","provider":"p","model":"m",` +
			`"usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"total":1e308}}}`
	}
	f := newFixtureWith(t, Options{}, strings.Join([]string{
		`{"type":"session","version":3,"id":"40000000-0000-4000-8000-000000000039","timestamp":"2026-05-01T10:00:00.000Z","cwd":"/w"}`,
		usage("u1", "null", "2026-05-01T10:00:01.000Z"), usage("u2", `"u1"`, "2026-05-01T10:00:02.000Z"),
		usage("u3", `"u2"`, "2026-05-02T10:00:01.000Z"),
	}, "\n")+"\n")
	code, _, body := f.get(t, "/cost?since=2026-04-30&until=2026-05-03&tz=UTC")
	if code != 200 {
		t.Fatalf("/cost: %d\n%.2000s", code, body)
	}
	svgs := regexp.MustCompile(`(?s)<svg class="cost-chart.*?</svg>`).FindAllString(body, -1)
	if len(svgs) != 2 {
		t.Fatalf("%d charts on the page, want 2", len(svgs))
	}
	num := regexp.MustCompile(` (?:x|y|x1|y1|x2|y2|width|height)="([^"]*)"`)
	for _, svg := range svgs {
		if strings.Contains(svg, "Inf") || strings.Contains(svg, "NaN") {
			t.Errorf("a chart writes an infinity:\n%s", svg)
		}
		n := 0
		for _, m := range num.FindAllStringSubmatch(svg, -1) {
			v, err := strconv.ParseFloat(m[1], 64)
			if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
				t.Errorf("%s: not a finite number", m[0])
			}
			n++
		}
		if !strings.Contains(svg, "<rect") || n < 20 {
			t.Errorf("a chart without bars (%d numbers):\n%s", n, svg)
		}
	}
}
