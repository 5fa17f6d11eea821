package pidex

import (
	"slices"
	"strings"
	"sync"
)

// A Filter narrows a listing, a search or a cost report by one field of a
// session, an entry or an LLM call. It is defined once, here, as data:
// every face takes it by its name (--NAME on the command line, ?NAME= in
// the web API, NAME in an MCP tool's arguments) from this registry, and
// package query turns it into each catalog's SQL and into a test on the
// rows its read caches hold. Adding a filter is one RegisterFilter call.
type Filter struct {
	Name  string   // the option's name, the same in every face
	Arg   string   // what its value is, in help: DIR, SUBSTRING, AGENTS
	Match Match    // how the value is compared with the field
	Words []string // OneOf: the words the value may name
	// Path: the value is a path; a face makes a relative one absolute
	// (pi compares resolved working directories).
	Path bool
	// List, Search and Cost say what the filter tests in each operation;
	// the zero On: the operation does not take it.
	List, Search, Cost On
}

// On is what a filter tests in one operation.
type On struct {
	// Field names a column in package query's fields (session.cwd,
	// entry.model, call.model, …).
	Field string
	// Help says what the filter keeps, as a face's help writes it after
	// "only" ("sessions whose working directory contains SUBSTRING").
	Help string
}

// Match is how a filter compares its value with its field.
type Match int

const (
	Equal    Match = iota // the field is exactly the value
	Contains              // the field contains the value, ASCII letters in any case (SQLite's lower())
	OneOf                 // the field is one of the value's comma-separated words (Filter.Words)
)

// Op is an operation that filters take.
type Op int

const (
	OpList Op = iota
	OpSearch
	OpCost
)

// On is what f tests in operation op (the zero On: op does not take it).
func (f *Filter) On(op Op) On {
	switch op {
	case OpList:
		return f.List
	case OpSearch:
		return f.Search
	}
	return f.Cost
}

// Where holds filters' values by their names, in the user's words (a
// OneOf's words comma-separated); an empty value is no filter.
type Where map[string]string

var filters struct {
	sync.RWMutex
	list []Filter
}

// RegisterFilter adds a filter (a later one of the same name replaces
// it): every face and both catalogs take it from then on.
func RegisterFilter(f Filter) {
	filters.Lock()
	defer filters.Unlock()
	filters.list = slices.DeleteFunc(filters.list, func(g Filter) bool { return g.Name == f.Name })
	filters.list = append(filters.list, f)
}

// Filters lists the filters operation op takes, in the order they were
// registered.
func Filters(op Op) []Filter {
	filters.RLock()
	defer filters.RUnlock()
	var out []Filter
	for _, f := range filters.list {
		if f.On(op).Field != "" {
			out = append(out, f)
		}
	}
	return out
}

// FilterNamed is the filter of that name.
func FilterNamed(name string) (Filter, bool) {
	filters.RLock()
	defer filters.RUnlock()
	for _, f := range filters.list {
		if f.Name == name {
			return f, true
		}
	}
	return Filter{}, false
}

// check checks w's values for operation op: each names a filter op takes,
// and a OneOf's words are among the filter's. The result holds the
// values given, a OneOf's words trimmed.
func (w Where) check(op Op) (Where, error) {
	var out Where
	for name, v := range w {
		if v == "" {
			continue
		}
		f, ok := FilterNamed(name)
		if !ok || f.On(op).Field == "" {
			var names []string
			for _, g := range Filters(op) {
				names = append(names, g.Name)
			}
			return nil, badOption(name, v, "is not a filter here; the filters are "+alternatives(names))
		}
		if f.Match == OneOf {
			ws, err := words(name, strings.Split(v, ","), f.Words)
			if err != nil {
				return nil, err
			}
			v = strings.Join(ws, ",")
		}
		if out == nil {
			out = Where{}
		}
		out[name] = v
	}
	return out, nil
}

// The filters pidex has.
func init() {
	const cwd = "session.cwd"
	RegisterFilter(Filter{Name: "cwd", Arg: "DIR", Match: Equal, Path: true,
		List:   On{cwd, "sessions whose working directory is exactly DIR (pi's list(cwd))"},
		Search: On{cwd, "sessions whose working directory is exactly DIR"},
		Cost:   On{cwd, "sessions whose working directory is exactly DIR"}})
	project := On{cwd, "sessions whose working directory contains SUBSTRING (ignoring case)"}
	RegisterFilter(Filter{Name: "project", Arg: "SUBSTRING", Match: Contains, List: project, Search: project, Cost: project})
	RegisterFilter(Filter{Name: "name", Arg: "SUBSTRING", Match: Contains,
		List: On{"session.name", "sessions whose name contains SUBSTRING (ignoring case)"}})
	agent := On{"session.agent", "sessions of these agents: " + strings.Join(Sources, ", ") + " (commas)"}
	RegisterFilter(Filter{Name: "agent", Arg: "AGENTS", Match: OneOf, Words: Sources, List: agent, Search: agent, Cost: agent})
	RegisterFilter(Filter{Name: "model", Arg: "SUBSTRING", Match: Contains,
		Search: On{"entry.model", "entries whose model contains SUBSTRING (assistant messages, model changes)"},
		Cost:   On{"call.model", "calls whose provider/model contains SUBSTRING"}})
}
