package pidex

import (
	"slices"
	"strings"
	"time"
)

// DefaultSearchLimit is how many hits (or sessions) a search returns
// unless told otherwise.
const DefaultSearchLimit = 20

// Search orders and branches.
const (
	SortRelevance = "relevance" // bm25, the more recent first among equals (the default)
	SortNewest    = "newest"
	BranchAll     = "all"    // every branch of every file (the default)
	BranchActive  = "active" // entries on a session's current root-to-leaf path
	// BranchAbandoned (cost only): calls on no current path.
	BranchAbandoned = "abandoned"
)

// SearchOptions are a search in the user's words.
type SearchOptions struct {
	Query   string // the query language (docs/search.md); required
	Where   Where  // the filters' values (Filters(OpSearch): project, cwd, agent, model, …)
	Session string // one session: an id, a unique prefix or name, or a file path
	Machine string // only this machine's sessions (a team catalog; "": all)
	Role    string // one of Vocabulary.RoleGroups ("": any)
	Since   string // entry time at or after (ParseTime)
	Until   string // entry time before (a bare date includes that day)
	Branch  string // BranchAll ("") or BranchActive
	Sort    string // SortRelevance ("") or SortNewest
	Limit   int    // 0: DefaultSearchLimit
	Offset  int    // skip this many first (the next page)
}

// SearchFilter is SearchOptions checked, with defaults applied (the query
// and the session are resolved by the engine).
type SearchFilter struct {
	Where         Where // checked
	Machine       string
	Role          string    // a role group, "" for any
	Since, Until  time.Time // zero: no bound
	Active        bool      // only entries on a current branch
	Newest        bool      // newest first instead of by relevance
	Limit, Offset int
	// FileID is the session of SearchOptions.Session, resolved by the
	// engine (0: every session).
	FileID int64
}

// Filter checks the options against the vocabulary and applies the
// defaults. Bare dates are in the local zone.
func (o SearchOptions) Filter(v Vocabulary) (SearchFilter, error) {
	f := SearchFilter{Machine: o.Machine, Role: o.Role, Limit: o.Limit, Offset: o.Offset}
	if o.Query == "" {
		return f, Usagef("no search query given")
	}
	var err error
	if f.Where, err = o.Where.check(OpSearch); err != nil {
		return f, err
	}
	if f.Since, err = ParseTime("since", o.Since, false, time.Local); err != nil {
		return f, err
	}
	if f.Until, err = ParseTime("until", o.Until, true, time.Local); err != nil {
		return f, err
	}
	switch o.Sort {
	case "", SortRelevance:
	case SortNewest:
		f.Newest = true
	default:
		return f, badOption("sort", o.Sort, oneOf([]string{SortRelevance, SortNewest}))
	}
	switch o.Branch {
	case "", BranchAll:
	case BranchActive:
		f.Active = true
	default:
		return f, badOption("branch", o.Branch, oneOf([]string{BranchAll, BranchActive}))
	}
	if f.Role != "" && !slices.Contains(v.RoleGroups, f.Role) {
		return f, badOption("role", f.Role, oneOf(v.RoleGroups))
	}
	if f.Limit == 0 {
		f.Limit = DefaultSearchLimit
	}
	if err := nonNegative("limit", f.Limit); err != nil {
		return f, err
	}
	return f, nonNegative("offset", f.Offset)
}

// SearchTotals count what a search matches past its page: Hits entries
// in Sessions sessions. Counting stops at CountCap entries (AtLeast: there
// are more, and Sessions counts those of the first CountCap).
type SearchTotals struct {
	Hits     int  `json:"hits"`
	Sessions int  `json:"sessions"`
	AtLeast  bool `json:"atLeast"`
}

// CountCap bounds the entries a search's totals count: a word that every
// entry holds costs a bounded count, and "10,000+" says enough.
const CountCap = 10_000

// Marker splits text into segments with the words a search query matches
// marked (Segment.Hit), the whole text kept: for highlighting a query in
// a conversation.
type Marker func(text string) []Segment

// Segment is a piece of a snippet; Hit marks a matched word.
type Segment struct {
	Text string
	Hit  bool
}

// Flatten joins segments and lists the matched ones as character ranges
// (runes), as a hit's Snippet and Highlights hold them.
func Flatten(segs []Segment) (string, [][2]int) {
	var b strings.Builder
	marks := [][2]int{}
	n := 0
	for _, s := range segs {
		k := len([]rune(s.Text))
		if s.Hit {
			marks = append(marks, [2]int{n, n + k})
		}
		b.WriteString(s.Text)
		n += k
	}
	return b.String(), marks
}

// Hit is one matching entry (`pidex search --json`).
type Hit struct {
	Path      string `json:"path"`
	SessionID string `json:"sessionId"`
	EntryID   string `json:"entryId"`
	Offset    int64  `json:"offset"`
	Line      int64  `json:"line"`
	Role      string `json:"role"` // the message role, or the entry type for other entries
	Timestamp *Time  `json:"timestamp"`
	Snippet   string `json:"snippet"`
	// Highlights are the matched parts of Snippet, as [from, to) character
	// offsets (JavaScript string indexes count UTF-16 units: use Array.from).
	Highlights [][2]int `json:"highlights"`
	Score      float64  `json:"score"`             // bm25: lower is better
	Machine    string   `json:"machine,omitempty"` // a team catalog's machine

	Segments     []Segment `json:"-"` // Snippet in pieces, for highlighting
	Name         string    `json:"-"` // the session's name
	FirstMessage string    `json:"-"` // the session's first message
	Cwd          string    `json:"-"`
}

// SessionHits is one session with how many of its entries match
// (`pidex search --sessions-only --json`).
type SessionHits struct {
	Path         string  `json:"path"`
	SessionID    string  `json:"sessionId"`
	Name         *string `json:"name"`
	FirstMessage string  `json:"firstMessage"`
	Hits         int64   `json:"hits"`
	Machine      string  `json:"machine,omitempty"` // a team catalog's machine
	Cwd          string  `json:"-"`
	Modified     Time    `json:"-"`
}

// Vocabulary is what the registry of entry kinds and roles (package pi)
// lets options name; the engine passes it to the Filter methods.
type Vocabulary struct {
	// RoleGroups are the values of a search's role filter.
	RoleGroups []string
	// Sources are the usage record sources a cost report can filter by.
	Sources []string
	// Classes are the looks of a reading's items (DocItem.Class: user,
	// assistant, tool, …), which a budget can keep (BudgetOptions.Classes).
	Classes []string
}
