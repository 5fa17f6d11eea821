package readside

import (
	"encoding/json"
	"math"
	"sort"
	"strings"

	"github.com/pidex-dev/pidex"
)

// SessionRow is a session's listing row as both catalogs hold it.
type SessionRow struct {
	FileID        int64
	Path          string
	SessionID     string
	Cwd           string
	Name          *string
	ParentSession string
	CreatedMs     *int64
	Modified      int64
	MessageCount  int64
	FirstMessage  string
	EntryCount    int64
	LeafID        *string
	BranchPoints  int64
	Models        string
	Input         float64
	Output        float64
	CacheRead     float64
	CacheWrite    float64
	TotalTokens   float64
	Cost          float64
	Size          int64
	Source        string // the agent that wrote the file
	Machine       string // a team catalog's machine; "" locally
}

// Scan reads the row's columns in the order of the fields above (Machine
// only when machine is true).
func (r *SessionRow) Scan(row interface{ Scan(...any) error }, machine bool) error {
	return row.Scan(r.Dest(machine)...)
}

// Dest is the row's scan destinations in the order of Scan, for a
// statement that selects more columns after them.
func (r *SessionRow) Dest(machine bool) []any {
	dest := []any{&r.FileID, &r.Path, &r.SessionID, &r.Cwd, &r.Name, &r.ParentSession, &r.CreatedMs,
		&r.Modified, &r.MessageCount, &r.FirstMessage, &r.EntryCount, &r.LeafID, &r.BranchPoints, &r.Models,
		&r.Input, &r.Output, &r.CacheRead, &r.CacheWrite, &r.TotalTokens, &r.Cost, &r.Size, &r.Source}
	if machine {
		dest = append(dest, &r.Machine)
	}
	return dest
}

// Session is the listing record of the row.
func (r *SessionRow) Session() pidex.Session {
	si := pidex.Session{
		FileID: r.FileID, Path: r.Path, ID: r.SessionID, Cwd: r.Cwd, Name: r.Name,
		Modified: pidex.Time(r.Modified), MessageCount: r.MessageCount, FirstMessage: r.FirstMessage,
		EntryCount: r.EntryCount, LeafID: r.LeafID, BranchPoints: r.BranchPoints,
		Tokens: pidex.Tokens{Input: r.Input, Output: r.Output, CacheRead: r.CacheRead, CacheWrite: r.CacheWrite, Total: r.TotalTokens},
		Cost:   r.Cost, SizeBytes: r.Size, Models: []string{}, Source: r.Source, Machine: r.Machine,
	}
	// Pointers of their own: a row may be kept and read again (query's
	// listing memo), and a caller may change what it was handed.
	if r.Name != nil {
		n := *r.Name
		si.Name = &n
	}
	if r.LeafID != nil {
		l := *r.LeafID
		si.LeafID = &l
	}
	if r.ParentSession != "" {
		p := r.ParentSession
		si.ParentSessionPath = &p
	}
	if r.CreatedMs != nil {
		c := pidex.Time(*r.CreatedMs)
		si.Created = &c
	}
	if si.FirstMessage == "" {
		si.FirstMessage = "(no messages)"
	}
	si.Models = ParseModels(r.Models)
	return si
}

// ParseModels reads the models column, a JSON array of strings. The
// common case (no escapes) is split by hand: encoding/json per row was a
// tenth of listing 3,000 sessions.
func ParseModels(s string) []string {
	if s == "[]" || s == "" {
		return []string{}
	}
	if !strings.ContainsAny(s, "\\") && strings.HasPrefix(s, `["`) && strings.HasSuffix(s, `"]`) {
		return strings.Split(s[2:len(s)-2], `","`)
	}
	var ms []string
	if json.Unmarshal([]byte(s), &ms) != nil || ms == nil {
		return []string{}
	}
	return ms
}

// sortKeys are the keys of each sort order, all descending; the path (and
// a team catalog's machine) breaks remaining ties so the order is the
// same on every run. Sessions modified at the same time are
// newest-created first, as omp lists them (pi's listing leaves them in
// folder order).
var sortKeys = map[string][]func(*pidex.Session) float64{
	"":                 {modifiedKey, createdKey},
	pidex.SortModified: {modifiedKey, createdKey},
	pidex.SortCreated:  {createdKey},
	pidex.SortCost:     {func(s *pidex.Session) float64 { return s.Cost }, modifiedKey},
	pidex.SortSize:     {func(s *pidex.Session) float64 { return float64(s.SizeBytes) }, modifiedKey},
}

// Times in ms and sizes are far below 2^53: exact as float64.
func modifiedKey(s *pidex.Session) float64 { return float64(s.Modified) }

func createdKey(s *pidex.Session) float64 {
	if s.Created == nil {
		return math.Inf(-1) // an unparsable header time sorts last, as NULL does in SQL
	}
	return float64(*s.Created)
}

// Less returns the comparison of a sort order.
func Less(order string) (func(a, b *pidex.Session) bool, error) {
	keys, ok := sortKeys[order]
	if !ok {
		return nil, &pidex.OptionError{Option: "sort", Value: order, Want: "want " + strings.Join(pidex.ListSorts, ", ")}
	}
	return func(a, b *pidex.Session) bool {
		for _, k := range keys {
			if ka, kb := k(a), k(b); ka != kb {
				return ka > kb
			}
		}
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		return a.Machine < b.Machine
	}, nil
}

// Page sorts a listing by f's order and cuts f's page from it. skipped:
// the backend already left out the first f.Offset rows.
func Page(out []pidex.Session, f pidex.ListFilter, skipped bool) ([]pidex.Session, error) {
	less, err := Less(f.Sort)
	if err != nil {
		return nil, err
	}
	// Sorted here rather than by SQL, whose sorter copies every row, first
	// messages and all (half the time of listing 3,000 sessions).
	sort.SliceStable(out, func(i, j int) bool { return less(&out[i], &out[j]) })
	if !skipped && f.Offset > 0 {
		out = out[min(f.Offset, len(out)):]
	}
	if f.Limit > 0 && len(out) > f.Limit {
		out = out[:f.Limit]
	}
	return out, nil
}

// ASCIILower folds ASCII capitals only, byte by byte, as SQLite's lower()
// does: the rule of every --project and --name filter, in SQL and in Go.
func ASCIILower(s string) string {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if 'A' <= b[j] && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}
