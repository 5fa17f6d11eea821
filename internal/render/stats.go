package render

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/text"
)

// StatsColumns are the columns of an activity report's rows, as the
// table, CSV and the web page name them, in order.
var StatsColumns = []string{"sessions", "turns", "calls", "tools", "tool errors", "error rate", "errors", "aborted",
	"length", "active", "mean latency", "compactions", "cache read"}

// StatsCells are a row's figures as text, in StatsColumns' order.
func StatsCells(f pidex.StatsFigures, tty bool) []string {
	dur, pct := DurationText, Percent
	if !tty {
		dur = func(ms int64) string { return Itoa(ms / 1000) } // seconds, for a script
		pct = func(f float64) string { return strconv.FormatFloat(f, 'f', 4, 64) }
	}
	num := Itoa
	if tty {
		num = text.Count
	}
	return []string{num(f.Sessions), num(f.UserTurns), num(f.AssistantCalls), num(f.ToolCalls), num(f.ToolErrors),
		pct(f.ErrorRate()), num(f.StopError), num(f.StopAborted), num(f.StopLength), dur(f.ActiveMs),
		dur(f.MeanLatencyMs()), num(f.Compactions), pct(f.CacheReadShare())}
}

// DurationText is a duration for reading: 45s, 12m, 3h05m, 2d04h.
func DurationText(ms int64) string {
	d := time.Duration(ms) * time.Millisecond
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
	return fmt.Sprintf("%dd%02dh", int(d.Hours())/24, int(d.Hours())%24)
}

// Percent is a share as a percentage with one decimal.
func Percent(f float64) string { return strconv.FormatFloat(100*f, 'f', 1, 64) + "%" }

// StatsTable writes an activity report: its rows (when grouped), the
// selection's sessions, turns, stops and context, then the tools, shell
// commands, errors and slowest calls. Piped, each part is a
// tab-separated table with a header, parts apart by a blank line.
//
// handle names a session in the commands that open an entry (its handle,
// see pidex.Catalog.Handles; nil: its path).
func StatsTable(w io.Writer, r *pidex.StatsReport, tty bool, width int, handle func(pidex.SessionRef) string) error {
	if handle == nil {
		handle = func(s pidex.SessionRef) string { return s.Path }
	}
	ew := &errWriter{w: w}
	if len(r.By) > 0 {
		if err := StatsRows(w, r, tty, width); err != nil {
			return err
		}
		ew.str("\n")
	}
	statsSummary(ew, r, tty)
	statsLists(w, ew, r, tty, width, handle)
	return ew.err
}

// StatsRows writes the report's rows as a table: a header, a line a row
// and, on a terminal, the totals.
func StatsRows(w io.Writer, r *pidex.StatsReport, tty bool, width int) error {
	cols := StatsColumns
	if tty {
		cols = statsHeads
	}
	head := append(upper(r.By, tty), upper(cols, tty)...)
	t := NewTable(w, tty, head...)
	for _, row := range r.Rows {
		t.Row(append(append([]string{}, row.Keys...), StatsCells(row.StatsFigures, tty)...)...)
	}
	if tty {
		t.Row(append(append([]string{"total"}, make([]string, max(0, len(r.By)-1))...), StatsCells(r.Totals, tty)...)...)
		t.Fit(width, 0)
	}
	return t.Flush()
}

// statsHeads are StatsColumns as a terminal's table heads them, short.
var statsHeads = []string{"sess", "turns", "calls", "tools", "tool err", "err %", "errors", "aborted", "length", "active",
	"latency", "compact", "cache rd"}

func upper(words []string, tty bool) []string {
	out := make([]string, len(words))
	for i, s := range words {
		if tty {
			out[i] = strings.ToUpper(s)
		} else {
			out[i] = strings.ReplaceAll(s, " ", "_")
		}
	}
	return out
}

// StatsSummary writes the selection at a glance, one line a subject;
// piped, a table of figure and value.
func StatsSummary(w io.Writer, r *pidex.StatsReport, tty bool) error {
	ew := &errWriter{w: w}
	statsSummary(ew, r, tty)
	return ew.err
}

func statsSummary(ew *errWriter, r *pidex.StatsReport, tty bool) {
	f, s := r.Totals, r.Sessions
	gap := DurationText(r.ActiveGapMs)
	if !tty {
		t := NewTable(ew.w, false, "figure", "value")
		for _, p := range [][2]string{
			{"sessions", Itoa(s.Count)}, {"wall_s", Itoa(s.WallMs / 1000)}, {"median_wall_s", Itoa(s.MedianWallMs / 1000)},
			{"max_wall_s", Itoa(s.MaxWallMs / 1000)}, {"active_s", Itoa(f.ActiveMs / 1000)}, {"active_gap_s", Itoa(r.ActiveGapMs / 1000)},
			{"user_turns", Itoa(f.UserTurns)}, {"turns_timed", Itoa(f.TurnsTimed)}, {"mean_latency_s", Itoa(f.MeanLatencyMs() / 1000)},
			{"max_latency_s", Itoa(f.MaxLatencyMs / 1000)}, {"assistant_calls", Itoa(f.AssistantCalls)}, {"stop_error", Itoa(f.StopError)},
			{"stop_aborted", Itoa(f.StopAborted)}, {"stop_length", Itoa(f.StopLength)}, {"tool_calls", Itoa(f.ToolCalls)},
			{"tool_results", Itoa(f.ToolResults)}, {"tool_errors", Itoa(f.ToolErrors)}, {"user_commands", Itoa(f.UserCommands)},
			{"compactions", Itoa(f.Compactions)}, {"max_context_before", Itoa(f.MaxContextBefore)},
			{"cache_read_share", strconv.FormatFloat(f.CacheReadShare(), 'f', 4, 64)}, {"branch_points", Itoa(s.BranchPoints)},
		} {
			t.Row(p[0], p[1])
		}
		if err := t.Flush(); err != nil && ew.err == nil {
			ew.err = err
		}
		return
	}
	c := text.Count
	ew.str(fmt.Sprintf("Sessions  %s · wall time median %s, mean %s, longest %s · %s branch points\n",
		c(s.Count), DurationText(s.MedianWallMs), DurationText(s.MeanWallMs), DurationText(s.MaxWallMs), c(s.BranchPoints)))
	ew.str(fmt.Sprintf("Active    %s in all (gaps up to %s count) · per session median %s, mean %s\n",
		DurationText(f.ActiveMs), gap, DurationText(s.MedianActiveMs), DurationText(s.MeanActiveMs)))
	ew.str(fmt.Sprintf("Turns     %s user turns · latency mean %s, longest %s (%s timed) · %s commands run by hand\n",
		c(f.UserTurns), DurationText(f.MeanLatencyMs()), DurationText(f.MaxLatencyMs), c(f.TurnsTimed), c(f.UserCommands)))
	ew.str(fmt.Sprintf("Calls     %s assistant messages · stopped by error %s, aborted %s, length %s\n",
		c(f.AssistantCalls), c(f.StopError), c(f.StopAborted), c(f.StopLength)))
	ew.str(fmt.Sprintf("Tools     %s calls · %s results, %s %s (%s)\n",
		c(f.ToolCalls), c(f.ToolResults), c(f.ToolErrors), text.Plural(int(f.ToolErrors), "error", "errors"), Percent(f.ErrorRate())))
	ctx := "no compaction"
	if f.Compactions > 0 {
		ctx = fmt.Sprintf("%s compactions, at %s tokens on average, the largest %s", c(f.Compactions),
			c(f.ContextBefore/f.Compactions), c(f.MaxContextBefore))
	}
	ew.str(fmt.Sprintf("Context   %s · cache reads %s of prompt tokens\n", ctx, Percent(f.CacheReadShare())))
}

// StatsList is one of a report's lists (its tools, shell commands,
// errors or slowest calls) as every face shows it: the CLI's tables, the
// web page's and MCP's text read these titles, heads and cells.
type StatsList struct {
	Name  string // tools, commands, errors or slowest
	Title string
	Heads []string
	Num   []bool // the columns that hold numbers
	Rows  [][]string
	// At is the entry each row names (errors: the latest; slowest: the
	// call), nil for lists that name none; EntryHead heads the column
	// that opens it, and TimeCol is the column holding its time (-1: none).
	At        []pidex.EntryRef
	EntryHead string
	TimeCol   int
	Flex      int // the column a terminal's table cuts first
}

// StatsLists are the report's lists that hold rows, in the order the
// faces show them, each cell for reading (tty) or raw (piped).
func StatsLists(r *pidex.StatsReport, tty bool) []StatsList {
	dur, num := DurationText, text.Count
	if !tty {
		dur = func(ms int64) string { return Itoa(ms) }
		num = Itoa
	}
	var out []StatsList
	if len(r.Tools) > 0 {
		l := StatsList{Name: "tools", Title: "Tools", Heads: []string{"tool", "calls", "results", "errors", "error rate", "mean result", "mean time", "longest"},
			Num: []bool{false, true, true, true, true, true, true, true}, TimeCol: -1}
		for _, x := range r.Tools {
			size := text.Bytes(x.MeanResultBytes())
			if !tty {
				size = Itoa(x.MeanResultBytes())
			}
			l.Rows = append(l.Rows, []string{x.Tool, num(x.Calls), num(x.Results), num(x.Errors), pctOf(x.ErrorRate(), tty), size, dur(x.MeanMs()), dur(x.MaxDuration)})
		}
		out = append(out, l)
	}
	if len(r.Commands) > 0 {
		l := StatsList{Name: "commands", Title: "Shell commands, by first word", Heads: []string{"command", "by agent", "errors", "by hand"},
			Num: []bool{false, true, true, true}, TimeCol: -1}
		for _, x := range r.Commands {
			l.Rows = append(l.Rows, []string{x.Command, num(x.Calls), num(x.Errors), num(x.User)})
		}
		out = append(out, l)
	}
	if len(r.Errors) > 0 {
		l := StatsList{Name: "errors", Title: "Assistant errors, most frequent", Heads: []string{"count", "stop", "message"},
			Num: []bool{true, false, false}, EntryHead: "latest", TimeCol: -1, Flex: 2}
		for _, x := range r.Errors {
			msg := x.Message
			if msg == "" {
				msg = "(no message)"
			}
			l.Rows = append(l.Rows, []string{num(x.Count), x.Kind, msg})
			l.At = append(l.At, x.Last)
		}
		out = append(out, l)
	}
	if len(r.Slowest) > 0 {
		l := StatsList{Name: "slowest", Title: "Slowest tool calls", Heads: []string{"duration", "tool", "when"},
			Num: []bool{true, false, false}, EntryHead: "open", TimeCol: 2}
		for _, x := range r.Slowest {
			when := ""
			if x.At.Time != nil {
				when = x.At.Time.UTC().Format("2006-01-02 15:04")
				if !tty {
					when = x.At.Time.String()
				}
			}
			l.Rows = append(l.Rows, []string{dur(x.DurationMs), x.Tool, when})
			l.At = append(l.At, x.At)
		}
		out = append(out, l)
	}
	return out
}

// statsLists writes the tools, commands, errors and slowest calls, each
// entry with the command that shows it.
func statsLists(w io.Writer, ew *errWriter, r *pidex.StatsReport, tty bool, width int, handle func(pidex.SessionRef) string) {
	for _, l := range StatsLists(r, tty) {
		if tty {
			ew.str("\n" + l.Title + "\n")
		} else {
			ew.str("\n")
		}
		heads := l.Heads
		if l.At != nil {
			heads = append(slices.Clone(heads), l.EntryHead)
		}
		t := NewTable(w, tty, upper(heads, tty)...)
		for i, row := range l.Rows {
			if l.At != nil {
				row = append(slices.Clone(row), entryCommand(l.At[i], handle))
			}
			t.Row(row...)
		}
		if tty {
			t.Fit(width, l.Flex)
		}
		if err := t.Flush(); err != nil && ew.err == nil {
			ew.err = err
		}
	}
}

func pctOf(f float64, tty bool) string {
	if tty {
		return Percent(f)
	}
	return strconv.FormatFloat(f, 'f', 4, 64)
}

// entryCommand is the command that shows an entry of a report.
func entryCommand(e pidex.EntryRef, handle func(pidex.SessionRef) string) string {
	if e.Session.Path == "" {
		return ""
	}
	h := handle(e.Session)
	if e.Session.Machine != "" {
		return "pidex --machine " + e.Session.Machine + " show " + h + " --leaf " + e.EntryID
	}
	return "pidex show " + h + " --leaf " + e.EntryID
}

// StatsCSV writes the report's rows (its totals when ungrouped) as CSV:
// the keys, then StatsColumns in raw units (seconds, shares).
func StatsCSV(w io.Writer, r *pidex.StatsReport) error {
	cw := csv.NewWriter(w)
	head := append(upper(r.By, false), upper(StatsColumns, false)...)
	if err := cw.Write(head); err != nil {
		return err
	}
	for _, row := range r.Rows {
		if err := cw.Write(append(append([]string{}, row.Keys...), StatsCells(row.StatsFigures, false)...)); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// Weekdays name the heatmap's rows (0 Monday).
var Weekdays = []string{"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"}

// HeatPeak is the heatmap's busiest hour (most active time; of two as
// busy, the earlier in the week): its weekday (0 Monday), hour and cell.
func HeatPeak(r *pidex.StatsReport) (day, hour int, c pidex.HeatCell) {
	for d := range r.Heatmap {
		for h, x := range r.Heatmap[d] {
			if x.ActiveMs > c.ActiveMs {
				day, hour, c = d, h, x
			}
		}
	}
	return day, hour, c
}

// HeatLevel is the shade of an hour with ms of active time, top being
// the busiest hour's: 0 (none) to 4 (the busiest quarter).
func HeatLevel(ms, top int64) int {
	if ms <= 0 || top <= 0 {
		return 0
	}
	return min(1+int(3*ms/top), 4)
}

// StatsHeatmap draws active time by weekday and hour (in the report's
// zone) with shades, busiest hour darkest.
func StatsHeatmap(w io.Writer, r *pidex.StatsReport) error {
	_, _, peak := HeatPeak(r)
	top := peak.ActiveMs
	shades := []string{"·", "░", "▒", "▓", "█"}
	ew := &errWriter{w: w}
	ew.str(fmt.Sprintf("Active time by hour (%s)\n     ", r.TZ))
	for h := 0; h < 24; h++ {
		ew.str(fmt.Sprintf("%-2d", h))
	}
	ew.str("\n")
	for d, name := range Weekdays {
		ew.str(name + "  ")
		for h := 0; h < 24; h++ {
			ew.str(shades[HeatLevel(r.Heatmap[d][h].ActiveMs, top)] + " ")
		}
		ew.str("\n")
	}
	ew.str(fmt.Sprintf("busiest hour: %s of active time; · none\n", DurationText(top)))
	return ew.err
}

// StatsJSON writes an activity report as one JSON document (docs/output.md):
// {"by", "rows": [{<key>…, <figures>…}], "totals", "sessions", "tools",
// "commands", "errors", "slowest", "heatmap": {"tz", "activeMs", "userTurns"},
// "activeGapMs"}; each set of figures with its derived errorRate,
// meanLatencyMs and cacheReadShare.
func StatsJSON(w io.Writer, r *pidex.StatsReport) error {
	type figures struct {
		pidex.StatsFigures
		ErrorRate      float64 `json:"errorRate"`
		MeanLatencyMs  int64   `json:"meanLatencyMs"`
		CacheReadShare float64 `json:"cacheReadShare"`
	}
	fig := func(f pidex.StatsFigures) figures {
		return figures{f, f.ErrorRate(), f.MeanLatencyMs(), f.CacheReadShare()}
	}
	type tool struct {
		pidex.ToolFigures
		ErrorRate       float64 `json:"errorRate"`
		MeanResultBytes int64   `json:"meanResultBytes"`
		MeanMs          int64   `json:"meanMs"`
	}
	tools := make([]tool, len(r.Tools))
	for i, t := range r.Tools {
		tools[i] = tool{t, t.ErrorRate(), t.MeanResultBytes(), t.MeanMs()}
	}
	var heat struct {
		TZ        string       `json:"tz"`
		ActiveMs  [7][24]int64 `json:"activeMs"`
		UserTurns [7][24]int64 `json:"userTurns"`
	}
	heat.TZ = r.TZ.String()
	for d := range r.Heatmap {
		for h, c := range r.Heatmap[d] {
			heat.ActiveMs[d][h], heat.UserTurns[d][h] = c.ActiveMs, c.UserTurns
		}
	}
	by := r.By
	if by == nil {
		by = []string{}
	}
	// Written a member, and a row, at a time: a report by session has a
	// row per session, and its document would be the history's size.
	o := newObjectStream(w)
	err := o.member("by", by)
	if err == nil {
		err = o.array("rows", func(add func(any) error) error {
			for _, row := range r.Rows {
				m, err := jsonObject(fig(row.StatsFigures))
				if err != nil {
					return err
				}
				for i, k := range r.By {
					m[k] = row.Keys[i]
				}
				if err := add(m); err != nil {
					return err
				}
			}
			return nil
		})
	}
	for _, mb := range []struct {
		k string
		v any
	}{{"totals", fig(r.Totals)}, {"sessions", r.Sessions}, {"tools", tools}, {"commands", nonNil(r.Commands)},
		{"errors", nonNil(r.Errors)}, {"slowest", nonNil(r.Slowest)}, {"heatmap", heat}, {"activeGapMs", r.ActiveGapMs}} {
		if err != nil {
			break
		}
		err = o.member(mb.k, mb.v)
	}
	// Closed even after an error, which ends the document early: what
	// was written stays one valid JSON document.
	return errors.Join(err, o.close())
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// jsonObject is v's JSON object as a map (its members, to merge).
func jsonObject(v any) (map[string]any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	return m, d.Decode(&m)
}
