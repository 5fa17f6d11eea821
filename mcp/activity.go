package mcp

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/render"
	"github.com/pidex-dev/pidex/internal/text"
	"github.com/pidex-dev/pidex/internal/view"
)

type activityArgs struct {
	By       []string    `json:"by,omitempty" jsonschema:"group the rows by these, in order (default: none, the totals alone): day, week, month (in tz), model, project, session, agent"`
	TZ       string      `json:"tz,omitempty" jsonschema:"IANA time zone of days, weeks, months and the heatmap's hours, e.g. Europe/Paris (default: the server's zone)"`
	Since    string      `json:"since,omitempty" jsonschema:"only activity at or after: a date (2026-11-01, in tz), an RFC 3339 time, or a duration back from now (12h, 7d, 2w); counted in whole quarter hours"`
	Until    string      `json:"until,omitempty" jsonschema:"only activity before this (a bare date includes that day)"`
	Where    pidex.Where `json:"where,omitempty" filters:"cost"` // the registry's filters: project, cwd, agent, model, …
	Session  string      `json:"session,omitempty" jsonschema:"only this session: an id, a unique prefix, a name, or a path"`
	Branch   string      `json:"branch,omitempty" jsonschema:"all (default); active: entries on a session's current branch; abandoned: entries on branches the user left"`
	Rollup   bool        `json:"rollup,omitempty" jsonschema:"count subagents' activity as that of the session that started them: by session, its row holds its subagents' too; session includes them (totals do not change)"`
	Limit    int         `json:"limit,omitempty" jsonschema:"at most this many rows (the totals and the lists always cover every row)"`
	MaxChars int         `json:"max_chars,omitempty" jsonschema:"character budget of the whole result"`
	Machine  string      `json:"machine,omitempty" jsonschema:"team catalog: only this machine's sessions"`
}

type activityResult struct {
	By          []string         `json:"by"`
	TZ          string           `json:"tz"`
	ActiveGapMs int64            `json:"active_gap_ms" jsonschema:"active time adds the gaps between consecutive entries up to this long"`
	Totals      activityFigures  `json:"totals" jsonschema:"the whole selection"`
	Sessions    activitySessions `json:"sessions" jsonschema:"the selection's sessions taken whole"`
	Heatmap     activityHeat     `json:"heatmap" jsonschema:"active time by weekday and hour, in tz"`
	Rows        []activityRow    `json:"rows" jsonschema:"by period (oldest first), then the most active first"`
	Groups      int              `json:"groups" jsonschema:"rows in all"`
	Tools       []activityTool   `json:"tools" jsonschema:"by calls, most first"`
	Errors      []activityError  `json:"errors" jsonschema:"assistant messages that stopped with an error, aborted or at the length limit, by message, most frequent first"`
	Slowest     []activitySlow   `json:"slowest" jsonschema:"the slowest tool calls, slowest first"`
	Commands    []activityCmd    `json:"commands" jsonschema:"shell commands by first word: the agent's bash calls and the user's own"`
	LeftOut     map[string]int   `json:"left_out,omitempty" jsonschema:"how many of each list this result leaves out (a larger max_chars or limit shows them)"`
	Truncated   string           `json:"truncated,omitempty" jsonschema:"what this result left out and how to get it; absent when nothing was left out"`
}

type activityFigures struct {
	Sessions         int64   `json:"sessions"`
	UserTurns        int64   `json:"user_turns"`
	AssistantCalls   int64   `json:"assistant_calls"`
	ToolCalls        int64   `json:"tool_calls"`
	ToolResults      int64   `json:"tool_results"`
	ToolErrors       int64   `json:"tool_errors"`
	ErrorRate        float64 `json:"error_rate" jsonschema:"tool_errors / tool_results"`
	UserCommands     int64   `json:"user_commands" jsonschema:"shell commands the user ran (!)"`
	StopError        int64   `json:"stop_error"`
	StopAborted      int64   `json:"stop_aborted"`
	StopLength       int64   `json:"stop_length"`
	ActiveMs         int64   `json:"active_ms"`
	TurnsTimed       int64   `json:"turns_timed"`
	MeanLatencyMs    int64   `json:"mean_latency_ms" jsonschema:"a user message to the last assistant message of its turn, over the timed turns"`
	MaxLatencyMs     int64   `json:"max_latency_ms"`
	Compactions      int64   `json:"compactions"`
	MaxContextBefore int64   `json:"max_context_before" jsonschema:"the largest context (tokens) before a compaction"`
	CacheReadShare   float64 `json:"cache_read_share" jsonschema:"the share of the assistant's prompt tokens read from the cache"`
}

type activitySessions struct {
	Count          int64 `json:"count"`
	MedianWallMs   int64 `json:"median_wall_ms"`
	MaxWallMs      int64 `json:"max_wall_ms"`
	MedianActiveMs int64 `json:"median_active_ms"`
	BranchPoints   int64 `json:"branch_points"`
}

type activityHeat struct {
	Peak      *heatHour `json:"peak,omitempty" jsonschema:"the busiest hour of the week (absent without active time)"`
	ByWeekday []int64   `json:"by_weekday_ms,omitempty" jsonschema:"active time per weekday, Monday first (absent when max_chars is too small for it)"`
	ByHour    []int64   `json:"by_hour_ms,omitempty" jsonschema:"active time per hour of the day, 0 first (absent when max_chars is too small for it)"`
}

type heatHour struct {
	Weekday   string `json:"weekday"`
	Hour      int    `json:"hour"`
	ActiveMs  int64  `json:"active_ms"`
	UserTurns int64  `json:"user_turns"`
}

type activityRow struct {
	Keys map[string]string `json:"keys" jsonschema:"this row's value of each by key (unknown: no time or no model)"`
	activityFigures
}

type activityTool struct {
	Tool            string  `json:"tool"`
	Calls           int64   `json:"calls"`
	Results         int64   `json:"results"`
	Errors          int64   `json:"errors"`
	ErrorRate       float64 `json:"error_rate"`
	MeanResultBytes int64   `json:"mean_result_bytes"`
	MeanMs          int64   `json:"mean_ms" jsonschema:"over the timed results"`
	MaxMs           int64   `json:"max_ms"`
}

type activityError struct {
	StopReason string      `json:"stop_reason" jsonschema:"error, aborted or length"`
	Message    string      `json:"message"`
	Count      int64       `json:"count"`
	Latest     activityRef `json:"latest"`
}

type activitySlow struct {
	Tool       string      `json:"tool"`
	DurationMs int64       `json:"duration_ms"`
	At         activityRef `json:"at"`
}

type activityCmd struct {
	Command string `json:"command"`
	ByAgent int64  `json:"by_agent"`
	Errors  int64  `json:"errors"`
	ByHand  int64  `json:"by_hand"`
}

// activityRef is an entry a result names: pass session and entry_id to
// read_session (as around) to read it.
type activityRef struct {
	Session string `json:"session" jsonschema:"pass as session to read_session"`
	EntryID string `json:"entry_id" jsonschema:"pass as around to read_session"`
	Time    string `json:"time,omitempty"`
	Machine string `json:"machine,omitempty" jsonschema:"team catalog: pass as machine with session"`
}

const activityDesc = `How the user's work with the agent went ("how did my work go?", "which tools fail?", "when do I work?"), counted from every entry like pidex stats: sessions with their wall and active time, user turns and their latency (a user message to the last reply of its turn), assistant messages and why they stopped (error, aborted, length) with the most frequent error messages, tool calls by tool with their error rate, result size and duration, the slowest calls, shell commands by first word, compactions and context size, the cache-read share, and the busiest hours of the week (the heatmap's peak, in tz). Filters as cost_report: since, until, project, cwd, agent, model, session, branch; by groups rows (day, week, month, model, project, session, agent). Errors and slow calls name their entries: read them with read_session session=… around=…. Lists are cut to max_chars, saying how many more there are.`

func (s *Server) addActivity() {
	keys := slices.DeleteFunc(slices.Clone(pidex.StatsKeys), func(k string) bool { return k == "machine" && !s.cat.Team() })
	addTool(s, toolSpec[activityArgs, activityResult]{
		name: "activity_report", title: "Activity report", desc: activityDesc, quotes: true,
		rename: map[string]string{"tz": "tz"},
		patch: func(sc *jsonschema.Schema) {
			enum(sc, "by", keys...)
			enum(sc, "branch", pidex.BranchAll, pidex.BranchActive, pidex.BranchAbandoned)
			bounds(sc, "limit", 1, pidex.MaxReadWindow, pidex.DefaultReportRows)
			bounds(sc, "max_chars", pidex.MinBudget, pidex.MaxBudget, pidex.DefaultBudget)
		},
		run: s.activity,
	})
}

func (s *Server) activity(ctx context.Context, in *activityArgs) (reply[activityResult], error) {
	var r reply[activityResult]
	_, limit, budget, err := s.paged("activity_report", "", in, &in.Limit, pidex.DefaultReportRows, pidex.MaxReadWindow, &in.MaxChars)
	if err != nil {
		return r, err
	}
	o := pidex.StatsOptions{By: in.By, TZ: in.TZ, Since: in.Since, Until: in.Until, Where: in.Where, Branch: in.Branch, Rollup: in.Rollup, Machine: s.machine(in.Machine)}
	if len(in.By) == 0 {
		o.By = nil // the domain's default: no grouping
	}
	if in.Session != "" {
		ref, err := s.session(ctx, in.Session, o.Machine)
		if err != nil {
			return r, err
		}
		o.Session = ref.Path
	}
	rep, err := s.cat.Stats(ctx, o)
	if err != nil {
		return r, err
	}
	tz := in.TZ
	if tz == "" {
		tz = "the server's zone, " + time.Now().Format("MST -07:00")
	}
	branch := in.Branch
	if branch == "" {
		branch = pidex.BranchAll
	}
	by := rep.By
	if by == nil {
		by = []string{}
	}
	ss := rep.Sessions
	out := activityResult{By: by, TZ: tz, ActiveGapMs: rep.ActiveGapMs, Totals: figures(rep.Totals),
		Sessions: activitySessions{Count: ss.Count, MedianWallMs: ss.MedianWallMs, MaxWallMs: ss.MaxWallMs, MedianActiveMs: ss.MedianActiveMs, BranchPoints: ss.BranchPoints},
		Heatmap:  heat(rep), Rows: []activityRow{}, Tools: []activityTool{}, Errors: []activityError{}, Slowest: []activitySlow{}, Commands: []activityCmd{}}
	if len(rep.By) > 0 {
		out.Groups = len(rep.Rows)
	}

	// What is always there: the figures of the whole selection.
	var b strings.Builder
	grouped := "Activity"
	if len(rep.By) > 0 {
		grouped += " by " + strings.Join(rep.By, ", ")
	}
	fmt.Fprintf(&b, "%s (%s; branch %s; active time adds the gaps between entries up to %s): %s %s.\n", grouped, tz, branch,
		render.DurationText(rep.ActiveGapMs), count(rep.Totals.Sessions), text.Plural(int(rep.Totals.Sessions), "session", "sessions"))
	var sum bytes.Buffer
	_ = render.StatsSummary(&sum, rep, true)
	b.WriteString(sum.String())
	b.WriteString(heatLine(rep))

	// The rows and the lists share what the budget leaves, each section
	// cut where its share ends.
	cache := map[string]string{}
	ref := func(e pidex.EntryRef) (activityRef, string) {
		h := s.handle(ctx, e.Session.SessionID, e.Session.Path, e.Session.Machine, cache)
		return activityRef{Session: h, EntryID: e.EntryID, Time: isoTime(e.Time), Machine: e.Session.Machine},
			" — open: read_session session=" + quoted(h) + onMachine(e.Session.Machine) + " around=" + quoted(e.EntryID)
	}
	type item struct {
		line string
		size int
		add  func()
	}
	type section struct {
		name, title string
		head        string // the text before the items (a table's header)
		items       []item
		total       int // all the section's items, before limit
		after       string
	}
	var sections []section
	if len(rep.By) > 0 {
		var tb bytes.Buffer
		_ = render.StatsRows(&tb, rep, true, 0)
		lines := strings.SplitAfter(strings.TrimSuffix(tb.String(), "\n"), "\n")
		sec := section{name: "rows", title: "Rows by " + strings.Join(rep.By, ", "), head: lines[0], total: len(rep.Rows), after: lines[len(lines)-1] + "\n"}
		for i, row := range rep.Rows[:min(len(rep.Rows), limit)] {
			ar := activityRow{Keys: map[string]string{}, activityFigures: figures(row.StatsFigures)}
			for k, key := range rep.By {
				ar.Keys[key] = row.Keys[k]
			}
			sec.items = append(sec.items, item{lines[1+i], size(lines[1+i], ar), func() { out.Rows = append(out.Rows, ar) }})
		}
		sections = append(sections, sec)
	}
	for _, l := range render.StatsLists(rep, true) {
		sec := section{name: l.Name, title: l.Title, total: len(l.Rows)}
		for i, cells := range l.Rows {
			// - bash: calls 144, results 144, errors 14, …
			var line strings.Builder
			line.WriteString("- ")
			var parts []string
			for c, cell := range cells {
				switch {
				case c == 0 && !l.Num[0]:
					line.WriteString(quoted(cell) + ": ") // a tool's name, a command's first word
				case c == l.TimeCol && cell != "":
					parts = append(parts, l.Heads[c]+" "+cell+" UTC")
				case !l.Num[c]: // a stop reason, an error message, a tool: from the sessions
					parts = append(parts, l.Heads[c]+" "+quoted(cell))
				default:
					parts = append(parts, l.Heads[c]+" "+oneLine(cell))
				}
			}
			line.WriteString(strings.Join(parts, ", "))
			var data any
			switch l.Name {
			case "tools":
				t := rep.Tools[i]
				data = activityTool{Tool: t.Tool, Calls: t.Calls, Results: t.Results, Errors: t.Errors, ErrorRate: t.ErrorRate(),
					MeanResultBytes: t.MeanResultBytes(), MeanMs: t.MeanMs(), MaxMs: t.MaxDuration}
			case "commands":
				c := rep.Commands[i]
				data = activityCmd{Command: c.Command, ByAgent: c.Calls, Errors: c.Errors, ByHand: c.User}
			case "errors":
				e := rep.Errors[i]
				at, open := ref(e.Last)
				data = activityError{StopReason: e.Kind, Message: e.Message, Count: e.Count, Latest: at}
				line.WriteString(open)
			case "slowest":
				c := rep.Slowest[i]
				at, open := ref(c.At)
				data = activitySlow{Tool: c.Tool, DurationMs: c.DurationMs, At: at}
				line.WriteString(open)
			}
			line.WriteString("\n")
			sec.items = append(sec.items, item{line.String(), size(line.String(), data), func() {
				switch d := data.(type) {
				case activityTool:
					out.Tools = append(out.Tools, d)
				case activityCmd:
					out.Commands = append(out.Commands, d)
				case activityError:
					out.Errors = append(out.Errors, d)
				case activitySlow:
					out.Slowest = append(out.Slowest, d)
				}
			}})
		}
		sections = append(sections, sec)
	}
	// Notes: a line for each list cut short, and the result's truncated
	// note (in the text and the JSON).
	reserve := 200 + 70*len(sections)
	fixed := size(b.String(), out)
	if fixed+reserve > budget.Chars { // the smallest budgets: the heatmap's peak alone
		out.Heatmap.ByWeekday, out.Heatmap.ByHour = nil, nil
		fixed = size(b.String(), out)
	}
	need := make([]int, len(sections))
	for i, sec := range sections {
		need[i] = chars(sec.head) + chars(sec.after) + chars(sec.title) + 10
		for _, it := range sec.items {
			need[i] += it.size
		}
	}
	// The rows, which the call grouped by, may take half the room, the
	// lists share the rest, and what the lists leave goes to the rows.
	room := budget.Chars - fixed - reserve
	var shares []int
	if len(sections) > 0 && sections[0].name == "rows" {
		rows := min(need[0], max(0, room/2))
		shares = append([]int{rows}, view.Share(room-rows, need[1:])...)
		used := 0
		for _, sh := range shares {
			used += sh
		}
		shares[0] += max(0, room-used)
	} else {
		shares = view.Share(room, need)
	}
	var cut []string
	for i, sec := range sections {
		room := shares[i] - chars(sec.head) - chars(sec.after) - chars(sec.title) - 10
		keep := 0
		for _, it := range sec.items {
			if room < it.size {
				break
			}
			room -= it.size
			keep++
		}
		left := sec.total - keep
		if left > 0 {
			if out.LeftOut == nil {
				out.LeftOut = map[string]int{}
			}
			out.LeftOut[sec.name] = left
			cut = append(cut, fmt.Sprintf("%d of %d %s", left, sec.total, sec.name))
		}
		if keep == 0 { // named in the closing note only
			continue
		}
		fmt.Fprintf(&b, "\n%s (%d):\n%s", sec.title, sec.total, sec.head)
		for _, it := range sec.items[:keep] {
			b.WriteString(it.line)
			it.add()
		}
		b.WriteString(sec.after)
		if left > 0 {
			fmt.Fprintf(&b, "… %d more %s left out\n", left, sec.name)
		}
	}
	if len(cut) > 0 {
		out.Truncated = "Left out to stay within " + count(budget.Chars) + " characters: " + strings.Join(cut, ", ") + "; a larger max_chars (or limit, for rows) shows them."
		fmt.Fprintf(&b, "\n%s\n", out.Truncated)
	}
	r.data, r.text = out, strings.TrimRight(b.String(), "\n")
	return r, nil
}

func figures(f pidex.StatsFigures) activityFigures {
	return activityFigures{Sessions: f.Sessions, UserTurns: f.UserTurns, AssistantCalls: f.AssistantCalls, ToolCalls: f.ToolCalls,
		ToolResults: f.ToolResults, ToolErrors: f.ToolErrors, ErrorRate: f.ErrorRate(), UserCommands: f.UserCommands, StopError: f.StopError,
		StopAborted: f.StopAborted, StopLength: f.StopLength, ActiveMs: f.ActiveMs, TurnsTimed: f.TurnsTimed, MeanLatencyMs: f.MeanLatencyMs(),
		MaxLatencyMs: f.MaxLatencyMs, Compactions: f.Compactions, MaxContextBefore: f.MaxContextBefore, CacheReadShare: f.CacheReadShare()}
}

// heat is the heatmap's peak and its sums by weekday and by hour.
func heat(r *pidex.StatsReport) activityHeat {
	h := activityHeat{ByWeekday: make([]int64, 7), ByHour: make([]int64, 24)}
	for d := range r.Heatmap {
		for hr, c := range r.Heatmap[d] {
			h.ByWeekday[d] += c.ActiveMs
			h.ByHour[hr] += c.ActiveMs
		}
	}
	if d, hr, c := render.HeatPeak(r); c.ActiveMs > 0 {
		h.Peak = &heatHour{Weekday: render.Weekdays[d], Hour: hr, ActiveMs: c.ActiveMs, UserTurns: c.UserTurns}
	}
	return h
}

// heatLine says when the work happens: the busiest hour of the week,
// and the busiest weekday and hour of the day.
func heatLine(r *pidex.StatsReport) string {
	d, hr, c := render.HeatPeak(r)
	if c.ActiveMs == 0 {
		return "Hours     no active time\n"
	}
	h := heat(r)
	day, hour := 0, 0
	for i, ms := range h.ByWeekday {
		if ms > h.ByWeekday[day] {
			day = i
		}
	}
	for i, ms := range h.ByHour {
		if ms > h.ByHour[hour] {
			hour = i
		}
	}
	dur := render.DurationText
	return fmt.Sprintf("Hours     busiest %s %02d:00–%02d:00 (%s active, %s turns begun) · busiest weekday %s (%s) · busiest hour of the day %02d:00 (%s)\n",
		render.Weekdays[d], hr, (hr+1)%24, dur(c.ActiveMs), count(c.UserTurns), render.Weekdays[day], dur(h.ByWeekday[day]), hour, dur(h.ByHour[hour]))
}
