package pidex

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// CostKeys are the groupings of a cost report; the first three are
// periods (in the report's zone); "machine" groups a team catalog's calls
// by the machine that pushed them.
var CostKeys = []string{"day", "week", "month", "model", "provider", "project", "session", "source", "agent", "machine"}

// DefaultCostBy is a report's grouping unless told otherwise.
const DefaultCostBy = "day"

// IsPeriod reports whether a cost key is a period (day, week, month).
func IsPeriod(key string) bool { return key == "day" || key == "week" || key == "month" }

// PeriodKey is the period of key (day, week or month) holding the day t,
// as a report's rows name it: 2026-11-30, 2026-W48, 2026-11.
func PeriodKey(key string, t time.Time) string {
	switch key {
	case "day":
		return t.Format("2006-01-02")
	case "week":
		y, w := t.ISOWeek()
		return fmt.Sprintf("%04d-W%02d", y, w)
	}
	return t.Format("2006-01")
}

// CostOptions are a cost report in the user's words.
type CostOptions struct {
	By      []string // CostKeys, in the order wanted (nil: DefaultCostBy; given, it names at least one)
	Source  string   // usage sources, comma-separated (Vocabulary.Sources; "": all)
	TZ      string   // IANA zone of days, weeks and months ("": the local zone)
	Since   string   // call time at or after (ParseTime, bare dates in TZ)
	Until   string   // call time before (a bare date includes that day)
	Where   Where    // the filters' values (Filters(OpCost): project, cwd, agent, model, …)
	Session string   // one session: an id, a unique prefix or name, or a file path
	Machine string   // only this machine's calls (a team catalog; "": all)
	Branch  string   // BranchAll (""), BranchActive or BranchAbandoned
	// NoDedup counts every copy of a call that forks hold (the raw sum of
	// the files); by default a call counts once.
	NoDedup bool
	// Rollup counts a subagent's calls as the calls of the session that
	// started it, at the top of the chain: grouped by session, a session's
	// row holds its own calls and its subagents'; Session includes its
	// subagents' calls. Without it a subagent is a session of its own.
	// Either way each call counts once: the totals are the same.
	Rollup bool
	// Prices, if set, reprices every call (see ParsePrices).
	Prices *Prices
	// Estimate prices the unpriced calls (see Unpriced) from Prices when
	// set, else from the shipped table, apart from the recorded cost.
	Estimate bool
}

// CostFilter is CostOptions checked, with defaults applied (the session is
// resolved by the engine).
type CostFilter struct {
	By           []string
	Sources      []string
	TZ           *time.Location
	Since, Until time.Time // zero: open
	Where        Where     // checked
	Machine      string
	Branch       string
	NoDedup      bool
	Rollup       bool
	Prices       *Prices
	Estimate     bool
	// FileID is the session of CostOptions.Session, resolved by the
	// engine (0: every session).
	FileID int64
}

// Filter checks the options against the vocabulary and applies the
// defaults.
func (o CostOptions) Filter(v Vocabulary) (CostFilter, error) {
	f := CostFilter{Machine: o.Machine, Branch: o.Branch, NoDedup: o.NoDedup, Rollup: o.Rollup, Prices: o.Prices, Estimate: o.Estimate, TZ: time.Local}
	by := o.By
	if by == nil {
		by = []string{DefaultCostBy}
	}
	var err error
	if f.By, err = words("by", by, CostKeys); err != nil {
		return f, err
	}
	if o.Source != "" {
		if f.Sources, err = words("source", strings.Split(o.Source, ","), v.Sources); err != nil {
			return f, err
		}
	}
	if f.Where, err = o.Where.check(OpCost); err != nil {
		return f, err
	}
	if o.TZ != "" {
		if f.TZ, err = time.LoadLocation(o.TZ); err != nil {
			return f, badOption("tz", o.TZ, "want an IANA time zone such as Europe/Paris, America/New_York or UTC")
		}
	}
	if f.Since, err = ParseTime("since", o.Since, false, f.TZ); err != nil {
		return f, err
	}
	if f.Until, err = ParseTime("until", o.Until, true, f.TZ); err != nil {
		return f, err
	}
	switch f.Branch {
	case "":
		f.Branch = BranchAll
	case BranchAll, BranchActive, BranchAbandoned:
	default:
		return f, badOption("branch", f.Branch, oneOf([]string{BranchAll, BranchActive, BranchAbandoned}))
	}
	return f, nil
}

// words checks a list of words from allowed: at least one, each once.
func words(option string, list []string, allowed []string) ([]string, error) {
	given := strings.Join(list, ",")
	var out []string
	for _, p := range list {
		w := strings.TrimSpace(p)
		switch {
		case w == "":
			return nil, badOption(option, given, "want "+alternatives(allowed)+", separated by commas")
		case !slices.Contains(allowed, w):
			return nil, badOption(option, w, oneOf(allowed))
		case slices.Contains(out, w):
			return nil, badOption(option, given, "names "+w+" twice")
		}
		out = append(out, w)
	}
	if len(out) == 0 {
		return nil, badOption(option, given, "want "+alternatives(allowed)+", separated by commas")
	}
	return out, nil
}

// CostReport is the answer to a cost report: one row per group, ordered by
// period (oldest first), then by cost (most expensive first).
type CostReport struct {
	By       []string
	Rows     []CostRow
	Totals   CostSums
	Repriced bool // the report had prices
	Rollup   bool // subagents' calls are their top session's (CostOptions.Rollup)
	// EstimatedWith names the prices the unpriced calls were estimated
	// with ("": the report estimated nothing): the shipped table's label,
	// or "the prices file".
	EstimatedWith string
}

// EstimatedByPricesFile is EstimatedWith when --reprice's file priced the
// estimate.
const EstimatedByPricesFile = "the prices file"

// CostRow is one group: Keys holds its value of each of the report's By
// keys ("unknown" for a call without a time or a model).
type CostRow struct {
	Keys []string
	CostSums
}

// CostSums are the figures of one row of a cost report. Sums saturate at
// the largest finite value.
type CostSums struct {
	Input, Output, CacheRead, CacheWrite, CacheWrite1h, TotalTokens float64
	Cost                                                            float64
	Calls                                                           int64
	// Repriced is the cost from the prices of the calls whose model they
	// price; NotRepriced names the models they lack (their calls are not
	// in Repriced: never a silent $0).
	Repriced    float64
	NotRepriced []string
	PricedCalls int64 // calls in Repriced: 0 with NotRepriced set means "no price", not $0
	// The unpriced calls (see Unpriced): in Calls and the token sums, and
	// at $0 in Cost, which therefore says nothing of them; their count,
	// total tokens and models.
	UnpricedCalls  int64
	UnpricedTokens float64
	UnpricedModels []string
	// Estimated is the cost of the unpriced calls whose model the
	// estimate's prices have (EstimatedCalls of them), apart from Cost;
	// NoEstimate names the unpriced models they lack.
	Estimated      float64
	EstimatedCalls int64
	NoEstimate     []string
}

// Add adds o's figures to s, saturating (see Saturate), and merges their
// unpriced models.
func (s *CostSums) Add(o CostSums) {
	s.Input = SaturatingAdd(s.Input, o.Input)
	s.Output = SaturatingAdd(s.Output, o.Output)
	s.CacheRead = SaturatingAdd(s.CacheRead, o.CacheRead)
	s.CacheWrite = SaturatingAdd(s.CacheWrite, o.CacheWrite)
	s.CacheWrite1h = SaturatingAdd(s.CacheWrite1h, o.CacheWrite1h)
	s.TotalTokens = SaturatingAdd(s.TotalTokens, o.TotalTokens)
	s.Cost = SaturatingAdd(s.Cost, o.Cost)
	s.Repriced = SaturatingAdd(s.Repriced, o.Repriced)
	s.Calls += o.Calls
	s.PricedCalls += o.PricedCalls
	s.NotRepriced = mergeNames(s.NotRepriced, o.NotRepriced)
	s.UnpricedCalls += o.UnpricedCalls
	s.UnpricedTokens = SaturatingAdd(s.UnpricedTokens, o.UnpricedTokens)
	s.UnpricedModels = mergeNames(s.UnpricedModels, o.UnpricedModels)
	s.Estimated = SaturatingAdd(s.Estimated, o.Estimated)
	s.EstimatedCalls += o.EstimatedCalls
	s.NoEstimate = mergeNames(s.NoEstimate, o.NoEstimate)
}

// mergeNames adds the names of add missing from to, sorted.
func mergeNames(to, add []string) []string {
	if len(add) == 0 {
		return to
	}
	for _, m := range add {
		if !slices.Contains(to, m) {
			to = append(to, m)
		}
	}
	slices.Sort(to)
	return to
}

// Saturate is f within the finite range: ±Inf become the largest finite
// values, NaN (an infinity minus another) becomes 0. Session files are
// anyone's input: two costs of 1e308 must not sum to +Inf, which JSON
// cannot carry and tables would show as "+Inf".
func Saturate(f float64) float64 {
	switch {
	case math.IsNaN(f):
		return 0
	case math.IsInf(f, 1):
		return math.MaxFloat64
	case math.IsInf(f, -1):
		return -math.MaxFloat64
	}
	return f
}

// SaturatingAdd is a+b within the finite range (see Saturate).
func SaturatingAdd(a, b float64) float64 { return Saturate(Saturate(a) + Saturate(b)) }
