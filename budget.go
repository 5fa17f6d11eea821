package pidex

import (
	"slices"
	"strconv"
	"time"
)

// Results meant for a model's context window (the MCP server's tools, or
// any face that hands answers to an agent) are bounded in characters, not
// rows: a page stops when its budget is spent and says where the rest is.
// These are the defaults and bounds every such face applies.
const (
	// DefaultBudget is how many characters a result holds unless told
	// otherwise: about 5,000 tokens, a fair share of a context window.
	DefaultBudget = 20_000
	// MinBudget and MaxBudget bound a budget a caller asks for.
	MinBudget = 1_000
	MaxBudget = 200_000
	// DefaultItemBudget is how many characters one item (a message of a
	// session, a value of a SQL row) keeps before it is cut.
	DefaultItemBudget = 2_000
	// MinItemBudget is the smallest item budget a caller may ask for.
	MinItemBudget = 100

	// DefaultPageLimit is how many rows (sessions, hits, report rows) a
	// page holds unless told otherwise; MaxPageLimit bounds what a caller
	// may ask for (each hit reads its entry back from its file).
	DefaultPageLimit = DefaultSearchLimit
	MaxPageLimit     = 200
	// DefaultReportRows is how many rows of a cost report a page holds
	// unless told otherwise (a year of days fits in four).
	DefaultReportRows = 100
	// DefaultReadWindow is how many entries of a branch (or messages of a
	// context) a reading covers unless told otherwise.
	DefaultReadWindow = 50
	// MaxReadWindow bounds the window a caller may ask for.
	MaxReadWindow = 1_000

	// DefaultSQLRows and MaxSQLRows bound the rows one statement returns
	// to a model; DefaultSQLTimeout and MaxSQLTimeout its running time.
	DefaultSQLRows    = 100
	MaxSQLRows        = 5_000
	DefaultSQLTimeout = 5 * time.Second
	MaxSQLTimeout     = 60 * time.Second
)

// BudgetOptions bound a reading (a Document) for a model, in the user's
// words. The zero value is the defaults: DefaultBudget in all,
// DefaultItemBudget per item, thinking and tool output folded.
type BudgetOptions struct {
	Chars     int // the whole result, in characters (0: DefaultBudget)
	ItemChars int // each item: a message's text is cut past this (0: DefaultItemBudget)
	// Thinking shows a model's reasoning (within ItemChars); folded, it is
	// one line with its size.
	Thinking bool
	// ToolOutput shows tool results, bash output and tool calls' whole
	// arguments (within ItemChars); folded, output is one line with its
	// size and a call's arguments are cut short.
	ToolOutput bool
	// Classes keeps only items of these looks (Vocabulary.Classes: user,
	// assistant, tool, …); nil keeps every item.
	Classes []string
}

// Budget is BudgetOptions checked, with defaults applied.
type Budget struct {
	Chars, ItemChars     int
	Thinking, ToolOutput bool
	Classes              []string // nil: every class
}

// Filter checks the options against the vocabulary and applies the
// defaults. Option names: "maxChars", "maxItemChars", "classes".
func (o BudgetOptions) Filter(v Vocabulary) (Budget, error) {
	b := Budget{Chars: o.Chars, ItemChars: o.ItemChars, Thinking: o.Thinking, ToolOutput: o.ToolOutput}
	var err error
	if b.Chars, err = Bounded("maxChars", b.Chars, DefaultBudget, MinBudget, MaxBudget); err != nil {
		return b, err
	}
	if b.ItemChars, err = Bounded("maxItemChars", b.ItemChars, DefaultItemBudget, MinItemBudget, b.Chars); err != nil {
		return b, err
	}
	if len(o.Classes) > 0 {
		if b.Classes, err = words("classes", o.Classes, v.Classes); err != nil {
			return b, err
		}
	}
	return b, nil
}

// Keeps reports whether an item of this class is kept.
func (b Budget) Keeps(class string) bool {
	return b.Classes == nil || slices.Contains(b.Classes, class)
}

// Bounded applies a default to a count given as 0 and checks that it lies
// in [lo, hi]; otherwise it is an *OptionError for option.
func Bounded(option string, n, def, lo, hi int) (int, error) {
	if n == 0 {
		return def, nil
	}
	if n < lo || n > hi {
		return n, badOption(option, strconv.Itoa(n), "want a number from "+strconv.Itoa(lo)+" to "+strconv.Itoa(hi))
	}
	return n, nil
}

// Cuts say what a budget left out of a reading and where the rest is, so
// that a face can tell its reader how to get it.
type Cuts struct {
	// Filtered is how many items of the window the class filter left out.
	Filtered int
	// Cut lists the items (entry ids) whose text was cut to the item
	// budget.
	Cut []string
	// Thinking and ToolOutput count the blocks folded.
	Thinking, ToolOutput int
	// Stopped: the total budget ran out before the end of the window;
	// Next is then the index (among the branch's entries, or the context's
	// messages) of the first item left out.
	Stopped bool
	Next    int
}
