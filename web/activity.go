package web

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/render"
	"github.com/pidex-dev/pidex/internal/text"
	"github.com/pidex-dev/pidex/internal/view"
)

// GET /api/stats = pidex stats --json.
func (s *Server) apiStats(w http.ResponseWriter, r *http.Request) {
	o, err := s.statsOptions(r)
	if err != nil {
		s.httpError(w, r, err)
		return
	}
	rep, err := s.cat.Stats(r.Context(), o)
	if err != nil {
		s.httpError(w, r, err)
		return
	}
	s.writeJSON(w, r, func(b *bytes.Buffer) error { return render.StatsJSON(b, rep) })
}

// activityView is the activity page: the selection's figures, its rows
// by the chosen key, the hours of the week it was worked, and its lists;
// every number that has sessions or entries behind it links to them.
type activityView struct {
	Form   url.Values
	Hidden [][2]string // the selection's parameters the form does not show (a link's cwd, agent, session …)
	Error  string
	By     string // the page's grouping, "none" for one row of totals
	Bys    []string
	TZ     string
	Report bool // there is a report to show (no error)
	Gap    string
	Facts  []fact
	// The rows: KeyCount key columns, then render.StatsColumns.
	KeyCount int
	Heads    []string
	Rows     []activityRow
	Total    []string
	// More is how many rows the page leaves out (activityRows); APIURL is
	// the whole report's JSON.
	More   int
	APIURL string
	Stops  []fact
	Heat   heatView
	// Errors is the list of the most frequent errors (shown with the
	// stop reasons), Lists the others.
	Errors *listView
	Lists  []listView
}

// fact is one figure of the selection; URL, when set, opens what is
// behind it.
type fact struct {
	Label, Value, Note, URL string
}

type activityRow struct {
	Keys        []link
	Cells       []string // render.StatsCells: the first is the sessions
	SessionsURL string   // the sessions behind the row ("": none)
}

type link struct{ Text, URL string }

type heatView struct {
	Hours []string
	Days  []heatDay
}

type heatDay struct {
	Name  string
	Cells []heatCell
}

type heatCell struct {
	Level int
	Title string
}

// listView is one of the report's lists (render.StatsLists) with its
// entries' links.
type listView struct {
	Name, Title string
	Heads       []listCell
	Rows        [][]listCell
}

type listCell struct {
	Text string
	Num  bool
	URL  string
	Time *pidex.Time
}

// activityRows is how many of a report's rows the page shows: a report
// by session over years of history has thousands.
const activityRows = 100

// activityBys are the groupings the page offers; by is the page's default.
var activityBys = []string{"none", "day", "week", "month", "model", "project", "session", "agent"}

func (s *Server) activityPage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	bys := activityBys
	if s.cat.Team() {
		bys = append(slices.Clone(bys), "machine")
	}
	v := activityView{Form: q, Bys: bys, By: q.Get("by")}
	if v.By == "" {
		v.By = "week"
	}
	if !slices.Contains(v.Bys, v.By) { // a link's by=day,model
		v.Bys = append(slices.Clone(v.Bys), v.By)
	}
	shown := map[string]bool{"by": true, "project": true, "model": true, "since": true, "until": true, "branch": true, "tz": true}
	for _, k := range []string{"cwd", "agent", "session", "machine"} {
		if val := q.Get(k); val != "" && !shown[k] {
			v.Hidden = append(v.Hidden, [2]string{k, val})
		}
	}
	code := http.StatusOK
	if err := s.activityReport(r, &v); err != nil && !s.formError(w, r, err, &v.Error, &code) {
		return
	}
	s.renderPage(w, r, code, "activity", page{Title: "Activity", Nav: "activity", Data: v})
}

func (s *Server) activityReport(r *http.Request, v *activityView) error {
	ctx := r.Context()
	o, err := s.statsOptions(r)
	if err != nil {
		return err
	}
	switch v.By {
	case "none":
		o.By = nil
	default:
		o.By = strings.Split(v.By, ",")
	}
	v.TZ = o.TZ
	if v.TZ == "" {
		v.TZ = time.Local.String()
	}
	rep, err := s.cat.Stats(ctx, o)
	if err != nil {
		return err
	}
	f, err := o.Filter(s.cat.Vocabulary()) // its since and until, for the rows' links
	if err != nil {
		return err
	}
	v.Report = true
	v.Gap = render.DurationText(rep.ActiveGapMs)
	narrow := func(sel map[string]string) string { return activityURL(r.URL.Query(), sel) }
	all := ""
	if !slices.Contains(rep.By, "session") {
		all = narrow(map[string]string{"by": "session"})
	}
	v.Facts, v.Stops = activityFacts(rep, all)

	// The rows, each with the sessions behind it.
	if len(rep.By) > 0 {
		v.KeyCount = len(rep.By)
		v.Heads = append(slices.Clone(rep.By), render.StatsColumns...)
		v.Total = render.StatsCells(rep.Totals, true)
		n := min(len(rep.Rows), activityRows)
		v.More = len(rep.Rows) - n
		if v.More > 0 {
			api := r.URL.Query()
			api.Del("partial")
			api.Set("by", strings.Join(rep.By, ","))
			v.APIURL = "/api/stats?" + api.Encode()
		}
		for i := range n {
			row, err := s.activityRow(r, rep, f, i, narrow)
			if err != nil {
				return err
			}
			v.Rows = append(v.Rows, row)
		}
	}
	v.Heat = heatmap(rep)

	// The lists, their entries linked to the session pages at them.
	var refs []pidex.SessionRef
	for _, e := range rep.Errors {
		refs = append(refs, e.Last.Session)
	}
	for _, c := range rep.Slowest {
		refs = append(refs, c.At.Session)
	}
	hs, err := s.handles(r, refs)
	if err != nil {
		return err
	}
	handle := map[[2]string]string{}
	for i, ref := range refs {
		handle[[2]string{ref.Path, ref.Machine}] = hs[i]
	}
	for _, l := range render.StatsLists(rep, true) {
		lv := listView{Name: l.Name, Title: l.Title}
		for c, h := range l.Heads {
			lv.Heads = append(lv.Heads, listCell{Text: h, Num: l.Num[c]})
		}
		if l.At != nil && l.TimeCol < 0 {
			lv.Heads = append(lv.Heads, listCell{Text: l.EntryHead})
		}
		for i, cells := range l.Rows {
			row := make([]listCell, len(cells))
			for c, t := range cells {
				row[c] = listCell{Text: t, Num: l.Num[c]}
			}
			if l.At != nil {
				at := l.At[i]
				u := entryURL(handle[[2]string{at.Session.Path, at.Session.Machine}], at.EntryID)
				if l.TimeCol >= 0 {
					row[l.TimeCol].URL, row[l.TimeCol].Time = u, at.Time
				} else {
					row = append(row, listCell{Text: "open", URL: u, Time: at.Time})
				}
			}
			lv.Rows = append(lv.Rows, row)
		}
		if l.Name == "errors" {
			v.Errors = &lv
			continue
		}
		v.Lists = append(v.Lists, lv)
	}
	return nil
}

// activityRow is the report's row i, linked to the sessions behind it:
// a session's page, or the page grouped by session and narrowed to the
// row (view.SelectRow).
func (s *Server) activityRow(r *http.Request, rep *pidex.StatsReport, f pidex.StatsFilter, i int, narrow func(map[string]string) string) (activityRow, error) {
	row := rep.Rows[i]
	out := activityRow{Cells: render.StatsCells(row.StatsFigures, true)}
	for _, k := range row.Keys {
		out.Keys = append(out.Keys, link{Text: k})
	}
	sel, ok := view.SelectRow(rep, f, i)
	if !ok {
		return out, nil
	}
	k := slices.Index(rep.By, "session")
	if k < 0 {
		sel["by"] = "session"
		out.SessionsURL = narrow(sel)
		return out, nil
	}
	// A session: its page, when its id names one file.
	machine := f.Machine
	if m, ok := sel["machine"]; ok {
		machine = m
	}
	ref, err := s.cat.Resolve(r.Context(), sel["session"], machine)
	var amb *pidex.AmbiguousError
	switch {
	case errors.As(err, &amb):
		return out, nil // two files hold the id: the row is both
	case err != nil:
		return out, err
	}
	hs, err := s.handles(r, []pidex.SessionRef{ref})
	if err != nil {
		return out, err
	}
	out.Keys[k].URL = sessionURL(hs[0])
	out.SessionsURL = out.Keys[k].URL
	return out, nil
}

// activityURL is the activity page with the parameters q, changed by
// set (an empty value removes one).
func activityURL(q url.Values, set map[string]string) string {
	u := url.Values{}
	for k, vs := range q {
		if k != "partial" && len(vs) > 0 && vs[0] != "" {
			u.Set(k, vs[0])
		}
	}
	for k, v := range set {
		if v == "" {
			u.Del(k)
		} else {
			u.Set(k, v)
		}
	}
	return "/activity?" + u.Encode()
}

// activityFacts are the selection's figures at a glance, and its
// assistant messages by stop reason; sessions links to its sessions.
func activityFacts(r *pidex.StatsReport, sessions string) (facts, stops []fact) {
	f, s, c := r.Totals, r.Sessions, text.Count
	dur := render.DurationText
	compact := "no compaction"
	if f.Compactions > 0 {
		compact = "the largest context before one: " + c(f.MaxContextBefore) + " tokens"
	}
	day, hour, peak := render.HeatPeak(r)
	busiest := fact{Label: "Busiest hour", Value: "none"}
	if peak.ActiveMs > 0 {
		busiest = fact{Label: "Busiest hour", Value: fmt.Sprintf("%s %02d:00", render.Weekdays[day], hour),
			Note: dur(peak.ActiveMs) + " active, " + text.Counted(peak.UserTurns, "turn", "turns") + " begun"}
	}
	facts = []fact{
		{Label: "Sessions", Value: c(s.Count), Note: "wall time median " + dur(s.MedianWallMs) + ", longest " + dur(s.MaxWallMs) + " · " +
			text.Counted(s.BranchPoints, "branch point", "branch points"), URL: sessions},
		{Label: "User turns", Value: c(f.UserTurns), Note: c(f.TurnsTimed) + " with a timed reply · " + c(f.UserCommands) + " commands run by hand"},
		{Label: "Assistant calls", Value: c(f.AssistantCalls), Note: "stopped by error " + c(f.StopError) + ", aborted " + c(f.StopAborted) + ", length " + c(f.StopLength)},
		{Label: "Tool calls", Value: c(f.ToolCalls), Note: c(f.ToolErrors) + " of " + c(f.ToolResults) + " results are errors: " + render.Percent(f.ErrorRate())},
		{Label: "Active time", Value: dur(f.ActiveMs), Note: "gaps up to " + dur(r.ActiveGapMs) + " count · per session median " + dur(s.MedianActiveMs)},
		{Label: "Mean turn latency", Value: dur(f.MeanLatencyMs()), Note: "the longest " + dur(f.MaxLatencyMs)},
		{Label: "Compactions", Value: c(f.Compactions), Note: compact},
		{Label: "Cache reads", Value: render.Percent(f.CacheReadShare()), Note: "of the assistant's prompt tokens"},
		busiest,
	}
	stops = []fact{
		{Label: "error", Value: c(f.StopError), Note: "the provider answered with an error"},
		{Label: "aborted", Value: c(f.StopAborted), Note: "stopped by the user"},
		{Label: "length", Value: c(f.StopLength), Note: "cut at the output limit"},
	}
	return facts, stops
}

// heatmap is active time by weekday and hour, each hour shaded as the
// terminal's chart shades it (render.HeatLevel) and titled with its
// figures.
func heatmap(r *pidex.StatsReport) heatView {
	var h heatView
	for i := range 24 {
		label := ""
		if i%3 == 0 {
			label = fmt.Sprint(i)
		}
		h.Hours = append(h.Hours, label)
	}
	_, _, peak := render.HeatPeak(r)
	for d, name := range render.Weekdays {
		day := heatDay{Name: name}
		for hr, c := range r.Heatmap[d] {
			active := render.DurationText(c.ActiveMs)
			if c.ActiveMs > 0 && c.ActiveMs < 1000 {
				active = "under 1s"
			}
			day.Cells = append(day.Cells, heatCell{Level: render.HeatLevel(c.ActiveMs, peak.ActiveMs),
				Title: fmt.Sprintf("%s %02d:00–%02d:00: %s active, %s %s begun", name, hr, (hr+1)%24, active,
					text.Count(c.UserTurns), text.Plural(int(c.UserTurns), "turn", "turns"))})
		}
		h.Days = append(h.Days, day)
	}
	return h
}
