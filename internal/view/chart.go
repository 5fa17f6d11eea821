package view

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pidex-dev/pidex"
)

// CostSeries is a cost report arranged for a chart (the terminal's bars,
// the web page's SVG): periods in time order, series most expensive first.
// A time axis is continuous: a day, week or month without calls between
// the first and the last is a period of zero cost, so that bars next to
// each other are next to each other in time.
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
		return nil, pidex.Usagef("a cost chart needs a grouping (--by day, week or month)")
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
	if pidex.IsPeriod(r.By[pk]) {
		periods = PeriodAxis(r.By[pk], periods)
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

// MaxAxis is the longest time axis PeriodAxis fills in: a stray timestamp
// decades away (a clock at 1970) would otherwise make a chart of ten
// thousand empty days. Past it, only the periods with calls are shown.
const MaxAxis = 1000

// PeriodAxis is the continuous axis through the periods present (keys of
// a cost report grouped by key: day 2026-11-27, week 2026-W48, month
// 2026-11): every period from the first to the last, in order, and
// "unknown" (calls without a time) last when present. Keys it cannot read
// are kept, after the others.
func PeriodAxis(key string, present []string) []string {
	var times []time.Time
	var other []string
	for _, p := range present {
		if t, ok := parsePeriod(key, p); ok {
			times = append(times, t)
		} else {
			other = append(other, p)
		}
	}
	if len(times) == 0 {
		return present
	}
	first, last := slices.MinFunc(times, time.Time.Compare), slices.MaxFunc(times, time.Time.Compare)
	var axis []string
	for t := first; !t.After(last); t = nextPeriod(key, t) {
		if len(axis) == MaxAxis {
			axis = nil // too long to be worth filling
			break
		}
		axis = append(axis, pidex.PeriodKey(key, t))
	}
	if axis == nil {
		slices.SortFunc(times, time.Time.Compare)
		for _, t := range times {
			axis = append(axis, pidex.PeriodKey(key, t))
		}
	}
	slices.SortStableFunc(other, func(a, b string) int { // unknown last
		return cmp.Compare(boolInt(a == "unknown"), boolInt(b == "unknown"))
	})
	return append(axis, other...)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// parsePeriod reads a period key as the time it starts (UTC: only the
// calendar matters).
func parsePeriod(key, p string) (time.Time, bool) {
	switch key {
	case "day":
		t, err := time.Parse("2006-01-02", p)
		return t, err == nil
	case "month":
		t, err := time.Parse("2006-01", p)
		return t, err == nil
	case "week":
		y, w, ok := strings.Cut(p, "-W")
		year, err1 := strconv.Atoi(y)
		week, err2 := strconv.Atoi(w)
		if !ok || err1 != nil || err2 != nil || week < 1 || week > 53 {
			return time.Time{}, false
		}
		// ISO week 1 is the week with January 4th; weeks start on Monday.
		jan4 := time.Date(year, 1, 4, 0, 0, 0, 0, time.UTC)
		monday := jan4.AddDate(0, 0, -((int(jan4.Weekday())+6)%7)+7*(week-1))
		if gy, gw := monday.ISOWeek(); gy != year || gw != week {
			return time.Time{}, false // week 53 of a year with 52
		}
		return monday, true
	}
	return time.Time{}, false
}

func nextPeriod(key string, t time.Time) time.Time {
	switch key {
	case "day":
		return t.AddDate(0, 0, 1)
	case "week":
		return t.AddDate(0, 0, 7)
	}
	return t.AddDate(0, 1, 0)
}

// chartAxes picks the period key and the stacking key (-1: none).
func chartAxes(by []string) (period, stack int) {
	period, stack = 0, -1
	for i, k := range by {
		if pidex.IsPeriod(k) {
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
