package query

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/pidex-dev/pidex/schema"
)

// Parsing of the filter values people type, shared by the CLI's flags and
// the web server's URL parameters so that both accept exactly the same
// words.

// ParseDate accepts a date, an RFC 3339 time, or a duration back from now
// (30m, 12h, 7d, 2w); "" is the zero time (no bound). For an upper bound
// (endOfDay) a bare date means the end of that day. A bare date is local
// time.
func ParseDate(s string, endOfDay bool) (time.Time, error) {
	return ParseDateIn(s, endOfDay, time.Local)
}

// ParseDateIn is ParseDate with bare dates in loc (the cost report's
// time zone).
func ParseDateIn(s string, endOfDay bool, loc *time.Location) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	if t, err := time.ParseInLocation("2006-01-02", s, loc); err == nil {
		if endOfDay {
			t = t.AddDate(0, 0, 1)
		}
		return t, nil
	}
	if n := len(s); n > 1 {
		unit := map[byte]time.Duration{'d': 24 * time.Hour, 'w': 7 * 24 * time.Hour}[s[n-1]]
		if unit != 0 {
			var k int64
			if _, err := fmt.Sscanf(s[:n-1], "%d", &k); err == nil && k >= 0 {
				if k > int64(math.MaxInt64/unit) { // past about 292 years: would wrap around
					return time.Time{}, fmt.Errorf("date %q is too far back: %w", s, schema.ErrUsage)
				}
				return time.Now().Add(-time.Duration(k) * unit), nil
			}
		}
		if d, err := time.ParseDuration(s); err == nil && d >= 0 {
			return time.Now().Add(-d), nil
		}
	}
	return time.Time{}, fmt.Errorf("date %q (want 2026-11-01, an RFC 3339 time, or a duration like 7d): %w", s, schema.ErrUsage)
}

// SearchOptions are the textual options of a search (the flags of `pidex
// search`, the parameters of /api/search).
type SearchOptions struct {
	Since, Until string // ParseDate
	Sort         string // relevance (default) | newest
	Branch       string // all (default) | active
}

// Apply checks the options and sets them on f, with f's role and limit
// checked too; a bad value is schema.ErrUsage naming the option.
func (o SearchOptions) Apply(f *SearchFilter) error {
	s, err := ParseDate(o.Since, false)
	if err != nil {
		return err
	}
	u, err := ParseDate(o.Until, true)
	if err != nil {
		return err
	}
	if !s.IsZero() {
		f.Since = s.UnixMilli()
	}
	if !u.IsZero() {
		f.Until = u.UnixMilli()
	}
	switch o.Sort {
	case "", "relevance":
	case "newest":
		f.Newest = true
	default:
		return fmt.Errorf("--sort %q (want relevance or newest): %w", o.Sort, schema.ErrUsage)
	}
	switch o.Branch {
	case "", "all":
	case "active":
		f.Active = true
	default:
		return fmt.Errorf("--branch %q (want all or active): %w", o.Branch, schema.ErrUsage)
	}
	switch f.Role {
	case "", "user", "assistant", "tool", "summary":
	default:
		return fmt.Errorf("--role %q (want user, assistant, tool or summary): %w", f.Role, schema.ErrUsage)
	}
	if f.Limit <= 0 {
		return fmt.Errorf("--limit %d: %w", f.Limit, schema.ErrUsage)
	}
	return nil
}

// CostOptions are the textual options of a cost report (the flags of
// `pidex cost`, the parameters of /api/cost).
type CostOptions struct {
	By, Sources  string // comma-separated lists
	TZ           string // IANA zone; "" is the local zone
	Since, Until string // ParseDateIn, bare dates in TZ
}

// Apply checks the options and sets them on f; a bad value is
// schema.ErrUsage naming the option.
func (o CostOptions) Apply(f *CostFilter) error {
	f.By = SplitList(o.By)
	f.Sources = SplitList(o.Sources)
	f.TZ = time.Local
	if o.TZ != "" {
		loc, err := time.LoadLocation(o.TZ)
		if err != nil {
			return fmt.Errorf("--tz %q: %v: %w", o.TZ, err, schema.ErrUsage)
		}
		f.TZ = loc
	}
	var err error
	if f.Since, err = ParseDateIn(o.Since, false, f.TZ); err != nil {
		return err
	}
	f.Until, err = ParseDateIn(o.Until, true, f.TZ)
	return err
}

// SplitList splits a comma-separated list, dropping empty items.
func SplitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
