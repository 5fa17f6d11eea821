package pidex

import (
	"slices"
	"strconv"
	"time"
)

// Sort orders of a session listing, all newest or largest first.
const (
	SortModified = "modified" // the default: pi's order
	SortCreated  = "created"
	SortCost     = "cost"
	SortSize     = "size"
)

// ListSorts are the orders a listing takes, the default first.
var ListSorts = []string{SortModified, SortCreated, SortCost, SortSize}

// ListOptions select and order the session listing, in the user's words.
// The zero value lists every session, newest first.
type ListOptions struct {
	Where   Where  // the filters' values (Filters(OpList): cwd, project, name, agent, …)
	Since   string // modified at or after (ParseTime)
	Until   string // modified before (a bare date includes that day)
	Sort    string // one of ListSorts ("": SortModified)
	Machine string // only this machine's sessions (a team catalog; "": all)
	Limit   int    // at most this many (0: all)
	Offset  int    // skip this many first (a page of a long listing)
	// Subagents lists subagents' sessions as sessions of their own,
	// filtered, sorted and paged like any; by default each is beneath the
	// session that started it (Session.Subagents), and only that one is
	// filtered, sorted and paged.
	Subagents bool
}

// ListFilter is ListOptions checked, with defaults applied.
type ListFilter struct {
	Where         Where // checked
	Machine       string
	Since, Until  time.Time // zero: no bound
	Sort          string
	Limit, Offset int
	Subagents     bool
}

// Filter checks the options and applies the defaults. Bare dates are in
// the local zone.
func (o ListOptions) Filter() (ListFilter, error) {
	f := ListFilter{Machine: o.Machine, Sort: o.Sort, Limit: o.Limit, Offset: o.Offset, Subagents: o.Subagents}
	var err error
	if f.Where, err = o.Where.check(OpList); err != nil {
		return f, err
	}
	if f.Since, err = ParseTime("since", o.Since, false, time.Local); err != nil {
		return f, err
	}
	if f.Until, err = ParseTime("until", o.Until, true, time.Local); err != nil {
		return f, err
	}
	if f.Sort == "" {
		f.Sort = SortModified
	}
	if !slices.Contains(ListSorts, f.Sort) {
		return f, badOption("sort", f.Sort, oneOf(ListSorts))
	}
	if err := nonNegative("limit", f.Limit); err != nil {
		return f, err
	}
	return f, nonNegative("offset", f.Offset)
}

func nonNegative(option string, n int) error {
	if n < 0 {
		return badOption(option, strconv.Itoa(n), "want a number, 0 or more")
	}
	return nil
}
