package view

import (
	"strings"
	"time"

	"github.com/pidex-dev/pidex"
)

// RowSelection is what selects exactly one row of an activity report: the
// report's own selection narrowed to the row's keys, as the options'
// parameters name them (since, until, model, cwd, agent, machine,
// session), for a link or a call that shows the sessions behind the row.
//
// A period is its days in the report's zone, within the report's since
// and until (RFC 3339 times: the intersection); a project its directory
// (cwd, matched exactly); a model its name, which the model filter
// matches as a substring, so a row whose model another model of the
// report contains (claude-sonnet-4 in claude-sonnet-4-5) has no
// selection. A session is its id, which the caller resolves (two files
// may hold one id: then it names neither alone). ok is false for a row
// nothing selects: an unknown period or model, an empty key.
type RowSelection map[string]string

// SelectRow is the RowSelection of the report's row i (see RowSelection);
// f is the report's options as checked (pidex.StatsOptions.Filter).
func SelectRow(r *pidex.StatsReport, f pidex.StatsFilter, i int) (RowSelection, bool) {
	row := r.Rows[i]
	sel := RowSelection{}
	for k, key := range r.By {
		v := row.Keys[k]
		if v == "" || v == "unknown" && (pidex.IsPeriod(key) || key == "model") {
			return nil, false
		}
		switch key {
		case "day", "week", "month":
			from, to, ok := periodSpan(key, v, r.TZ)
			if !ok {
				return nil, false
			}
			if !f.Since.IsZero() && f.Since.After(from) {
				from = f.Since
			}
			if !f.Until.IsZero() && f.Until.Before(to) {
				to = f.Until
			}
			sel["since"], sel["until"] = from.Format(time.RFC3339), to.Format(time.RFC3339)
		case "model":
			for _, other := range r.Rows {
				if o := other.Keys[k]; o != v && strings.Contains(strings.ToLower(o), strings.ToLower(v)) {
					return nil, false
				}
			}
			sel["model"] = v
		case "project":
			sel["cwd"] = v
		case "agent", "machine", "session":
			sel[key] = v
		}
	}
	return sel, true
}

// periodSpan is the time a period key (day 2026-11-27, week 2026-W48,
// month 2026-11) spans in loc: from its first midnight to the next
// period's.
func periodSpan(key, p string, loc *time.Location) (from, to time.Time, ok bool) {
	t, ok := parsePeriod(key, p)
	if !ok {
		return from, to, false
	}
	if loc == nil {
		loc = time.UTC
	}
	next := nextPeriod(key, t)
	from = time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, loc)
	to = time.Date(next.Year(), next.Month(), next.Day(), 0, 0, 0, 0, loc)
	return from, to, true
}
