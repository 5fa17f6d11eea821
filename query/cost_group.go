package query

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/pidex-dev/pidex"
)

// groupCost folds the SQL's parts into the report's rows: time keys in the
// report's zone, repricing per model.
func groupCost(f pidex.CostFilter, parts []costPart) *pidex.CostReport {
	r := &pidex.CostReport{By: f.By, Rows: []pidex.CostRow{}, Repriced: f.Prices != nil}
	index := map[string]int{}
	for i := range parts {
		p := &parts[i]
		keys := make([]string, len(f.By))
		for j, k := range f.By {
			keys[j] = costKey(k, p)
		}
		id := strings.Join(keys, "\x00")
		n, ok := index[id]
		if !ok {
			n = len(r.Rows)
			index[id] = n
			r.Rows = append(r.Rows, pidex.CostRow{Keys: keys})
		}
		s := sumsOf(p, f.Prices)
		addSums(&r.Rows[n].CostSums, s)
		addSums(&r.Totals, s)
	}
	slices.SortStableFunc(r.Rows, func(a, b pidex.CostRow) int { return compareRows(f.By, a, b) })
	return r
}

// costKey is part p's value of key k (its day is already local: see cost_zone.go).
func costKey(k string, p *costPart) string {
	switch k {
	case "day", "week", "month":
		if p.Day < 0 {
			return "unknown"
		}
		t := localDay(p.Day)
		switch k {
		case "day":
			return t.Format("2006-01-02")
		case "month":
			return t.Format("2006-01")
		}
		y, w := t.ISOWeek()
		return isoWeek(y, w)
	case "model":
		if p.Model == "" {
			return "unknown"
		}
		return pidex.ModelName(p.Provider, p.Model)
	case "provider":
		if p.Provider == "" {
			return "unknown"
		}
		return p.Provider
	case "project":
		return p.Cwd
	case "session":
		return p.SessionID
	case "source":
		return p.Source
	case "agent":
		return p.Agent
	}
	return ""
}

func isoWeek(y, w int) string { return fmt.Sprintf("%04d-W%02d", y, w) }

func sumsOf(p *costPart, prices *pidex.Prices) pidex.CostSums {
	s := pidex.CostSums{Input: p.Input, Output: p.Output, CacheRead: p.CacheRead, CacheWrite: p.CacheWrite,
		CacheWrite1h: p.CacheWrite1h, TotalTokens: p.TotalTokens, Cost: p.Cost, Calls: p.Calls}
	if prices != nil {
		if price, ok := prices.Lookup(p.Provider, p.Model); ok {
			s.Repriced, s.PricedCalls = price.Cost(s), s.Calls
		} else {
			s.Unpriced = []string{pidex.ModelName(p.Provider, p.Model)}
		}
	}
	return s
}

func addSums(s *pidex.CostSums, o pidex.CostSums) {
	s.Input += o.Input
	s.Output += o.Output
	s.CacheRead += o.CacheRead
	s.CacheWrite += o.CacheWrite
	s.CacheWrite1h += o.CacheWrite1h
	s.TotalTokens += o.TotalTokens
	s.Cost += o.Cost
	s.Calls += o.Calls
	s.Repriced += o.Repriced
	s.PricedCalls += o.PricedCalls
	for _, m := range o.Unpriced {
		if !slices.Contains(s.Unpriced, m) {
			s.Unpriced = append(s.Unpriced, m)
		}
	}
	slices.Sort(s.Unpriced)
}

// compareRows orders time keys oldest first, then the most expensive
// groups first, then by key text.
func compareRows(by []string, a, b pidex.CostRow) int {
	for i, k := range by {
		if k == "day" || k == "week" || k == "month" {
			if c := strings.Compare(a.Keys[i], b.Keys[i]); c != 0 {
				return c
			}
		}
	}
	if c := cmp.Compare(b.Cost, a.Cost); c != 0 {
		return c
	}
	return slices.Compare(a.Keys, b.Keys)
}
