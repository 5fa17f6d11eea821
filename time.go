package pidex

import (
	"fmt"
	"math"
	"strconv"
	"time"
)

// Time is a time in Unix milliseconds, as pi's format and JavaScript keep
// it. It marshals like JavaScript's Date.prototype.toISOString:
// "2026-11-27T10:13:30.272Z".
type Time int64

// maxTimeMs is JavaScript's largest time value (±100,000,000 days).
const maxTimeMs = 8.64e15

// UTC is the time as a time.Time in UTC.
func (t Time) UTC() time.Time { return time.UnixMilli(int64(t)).UTC() }

// String is toISOString's text: extended years (±YYYYYY) outside 0–9999,
// "" outside JavaScript's range (toISOString throws there).
func (t Time) String() string {
	ms := int64(t)
	if ms < -maxTimeMs || ms > maxTimeMs {
		return ""
	}
	u := t.UTC()
	y := u.Year()
	if y >= 0 && y <= 9999 { // every real timestamp: the fast path
		return u.Format("2006-01-02T15:04:05.000Z")
	}
	year := fmt.Sprintf("+%06d", y)
	if y < 0 {
		year = fmt.Sprintf("-%06d", -y)
	}
	return year + u.Format("-01-02T15:04:05.000Z")
}

// MarshalJSON writes the ISO string (null outside JavaScript's range).
func (t Time) MarshalJSON() ([]byte, error) {
	s := t.String()
	if s == "" {
		return []byte("null"), nil
	}
	return []byte(`"` + s + `"`), nil
}

// ParseTime reads a time as people type it in an option: a date
// (2026-11-01, in loc), an RFC 3339 time, or a duration back from now
// (30m, 12h, 7d, 2w). "" is the zero time: no bound. For an upper bound
// (endOfDay) a bare date means the end of that day. A value it cannot
// read is an *OptionError for option.
func ParseTime(option, s string, endOfDay bool, loc *time.Location) (time.Time, error) {
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
	if d, ok, err := parseAgo(option, s); ok || err != nil {
		return time.Now().Add(-d), err
	}
	return time.Time{}, badOption(option, s, "want a date (2026-11-01), an RFC 3339 time, or a duration back from now (30m, 12h, 7d, 2w)")
}

// parseAgo reads a duration back from now, with Go's units and d, w.
func parseAgo(option, s string) (time.Duration, bool, error) {
	n := len(s)
	if n < 2 {
		return 0, false, nil
	}
	if unit := map[byte]time.Duration{'d': 24 * time.Hour, 'w': 7 * 24 * time.Hour}[s[n-1]]; unit != 0 {
		k, err := strconv.ParseInt(s[:n-1], 10, 64)
		if err != nil || k < 0 {
			return 0, false, nil
		}
		if k > int64(math.MaxInt64/unit) { // past about 292 years: would wrap around
			return 0, false, badOption(option, s, "is too far back")
		}
		return time.Duration(k) * unit, true, nil
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return d, true, nil
	}
	return 0, false, nil
}
