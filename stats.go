package pidex

import "time"

// ActiveGapMs is the longest pause between two entries that still counts
// as working time: a longer gap is time away (lunch, the night), not
// work (15 minutes: WakaTime's idle timeout, the common choice). Stated
// with every figure that uses it.
const ActiveGapMs = 15 * 60 * 1000

// SlowestKept is how many of its slowest tool results each session keeps
// for a report's list of the slowest.
const SlowestKept = 20

// StatsKeys are the groupings of an activity report (pidex stats).
var StatsKeys = []string{"day", "week", "month", "model", "project", "session", "agent", "machine"}

// DefaultStatsBy is an activity report's grouping unless told otherwise:
// none, one row of totals.
var DefaultStatsBy = []string{}

// StatsTop is how many rows each of a report's lists holds (tools,
// commands, errors, slowest calls).
const StatsTop = 20

// StatsOptions are an activity report in the user's words: the filters
// and groupings of a cost report.
type StatsOptions struct {
	By      []string // StatsKeys ("": DefaultStatsBy)
	TZ      string   // IANA zone of days, weeks, months and the heatmap ("": local)
	Since   string   // activity at or after (ParseTime; whole quarter hours, see docs/stats.md)
	Until   string   // activity before
	Where   Where    // the filters of cost (Filters(OpCost))
	Session string   // one session: an id, a unique prefix or name, or a file path
	Machine string   // a team catalog's machine ("": all)
	Branch  string   // BranchAll (""), BranchActive or BranchAbandoned
	// Rollup counts a subagent's activity as that of the session that
	// started it, as CostOptions.Rollup counts its calls.
	Rollup bool
}

// StatsFilter is StatsOptions checked, with defaults applied; its cost
// part is a CostFilter, so that the two reports select alike.
type StatsFilter struct {
	CostFilter
}

// Filter checks the options against the vocabulary and applies the
// defaults.
func (o StatsOptions) Filter(v Vocabulary) (StatsFilter, error) {
	co := CostOptions{TZ: o.TZ, Since: o.Since, Until: o.Until, Where: o.Where, Session: o.Session, Machine: o.Machine, Branch: o.Branch, Rollup: o.Rollup}
	co.By = []string{"day"} // checked below against StatsKeys instead
	cf, err := co.Filter(v)
	if err != nil {
		return StatsFilter{}, err
	}
	cf.By = nil
	if len(o.By) > 0 {
		if cf.By, err = words("by", o.By, StatsKeys); err != nil {
			return StatsFilter{}, err
		}
	}
	return StatsFilter{CostFilter: cf}, nil
}

// StatsReport is an activity report: rows per group, the totals, and the
// lists and heatmap of the whole selection. docs/stats.md defines each
// figure in terms of entries.
type StatsReport struct {
	By     []string
	Rows   []StatsRow
	Totals StatsFigures
	// Sessions: the sessions with counted activity in the selection.
	Sessions SessionFigures
	Tools    []ToolFigures // by calls, most first
	Commands []CommandFigures
	Errors   []ErrorFigures // the most frequent error messages
	Slowest  []SlowCall
	// Heatmap is active time by weekday (0 Monday) and hour, in the
	// report's zone, and the turns begun then.
	Heatmap [7][24]HeatCell
	// ActiveGapMs is the gap rule the report used (see ActiveGapMs).
	ActiveGapMs int64
	TZ          *time.Location
}

// StatsRow is one group: Keys holds its value of each By key.
type StatsRow struct {
	Keys []string
	StatsFigures
}

// StatsFigures are the counts of one group (or of all).
type StatsFigures struct {
	Sessions       int64 `json:"sessions"` // sessions with counted activity in the group
	Entries        int64 `json:"entries"`
	UserTurns      int64 `json:"userTurns"`
	AssistantCalls int64 `json:"assistantCalls"`
	ToolCalls      int64 `json:"toolCalls"`
	ToolResults    int64 `json:"toolResults"`
	ToolErrors     int64 `json:"toolErrors"`
	UserCommands   int64 `json:"userCommands"` // shell commands the user ran (!)
	// Assistant messages by stopReason.
	StopError   int64 `json:"stopError"`
	StopAborted int64 `json:"stopAborted"`
	StopLength  int64 `json:"stopLength"`
	ActiveMs    int64 `json:"activeMs"`
	// Turns: TurnsTimed had a reply with times; LatencyMs is their sum.
	TurnsTimed       int64   `json:"turnsTimed"`
	LatencyMs        int64   `json:"latencyMs"`
	MaxLatencyMs     int64   `json:"maxLatencyMs"`
	Compactions      int64   `json:"compactions"`
	ContextBefore    int64   `json:"contextBefore"`    // tokensBefore, summed
	MaxContextBefore int64   `json:"maxContextBefore"` // the largest tokensBefore
	PromptInput      float64 `json:"promptInput"`
	PromptCacheRead  float64 `json:"promptCacheRead"`
	PromptCacheWrite float64 `json:"promptCacheWrite"`
}

// Add adds o's counts to f.
func (f *StatsFigures) Add(o StatsFigures) {
	f.Entries += o.Entries
	f.UserTurns += o.UserTurns
	f.AssistantCalls += o.AssistantCalls
	f.ToolCalls += o.ToolCalls
	f.ToolResults += o.ToolResults
	f.ToolErrors += o.ToolErrors
	f.UserCommands += o.UserCommands
	f.StopError += o.StopError
	f.StopAborted += o.StopAborted
	f.StopLength += o.StopLength
	f.ActiveMs += o.ActiveMs
	f.TurnsTimed += o.TurnsTimed
	f.LatencyMs += o.LatencyMs
	f.MaxLatencyMs = max(f.MaxLatencyMs, o.MaxLatencyMs)
	f.Compactions += o.Compactions
	f.ContextBefore += o.ContextBefore
	f.MaxContextBefore = max(f.MaxContextBefore, o.MaxContextBefore)
	f.PromptInput = SaturatingAdd(f.PromptInput, o.PromptInput)
	f.PromptCacheRead = SaturatingAdd(f.PromptCacheRead, o.PromptCacheRead)
	f.PromptCacheWrite = SaturatingAdd(f.PromptCacheWrite, o.PromptCacheWrite)
}

// MeanLatencyMs is the mean turn latency (0 without timed turns).
func (f StatsFigures) MeanLatencyMs() int64 {
	if f.TurnsTimed == 0 {
		return 0
	}
	return f.LatencyMs / f.TurnsTimed
}

// ErrorRate is the share of tool results that are errors.
func (f StatsFigures) ErrorRate() float64 { return rate(f.ToolErrors, f.ToolResults) }

// CacheReadShare is the share of the assistant's prompt tokens read from
// the cache: cacheRead / (input + cacheRead + cacheWrite).
func (f StatsFigures) CacheReadShare() float64 {
	all := f.PromptInput + f.PromptCacheRead + f.PromptCacheWrite
	if all <= 0 {
		return 0
	}
	return f.PromptCacheRead / all
}

func rate(n, of int64) float64 {
	if of == 0 {
		return 0
	}
	return float64(n) / float64(of)
}

// SessionFigures are the selection's sessions taken whole: wall time
// (first to last counted entry) and active time per session.
type SessionFigures struct {
	Count          int64 `json:"count"`
	WallMs         int64 `json:"wallMs"`
	MeanWallMs     int64 `json:"meanWallMs"`
	MedianWallMs   int64 `json:"medianWallMs"`
	MaxWallMs      int64 `json:"maxWallMs"`
	ActiveMs       int64 `json:"activeMs"`
	MeanActiveMs   int64 `json:"meanActiveMs"`
	MedianActiveMs int64 `json:"medianActiveMs"`
	BranchPoints   int64 `json:"branchPoints"`
}

// ToolFigures are one tool's calls and results.
type ToolFigures struct {
	Tool        string `json:"tool"`
	Calls       int64  `json:"calls"`
	Results     int64  `json:"results"`
	Errors      int64  `json:"errors"`
	ResultBytes int64  `json:"resultBytes"`
	Timed       int64  `json:"timed"`
	DurationMs  int64  `json:"durationMs"`
	MaxDuration int64  `json:"maxDurationMs"`
}

// ErrorRate is the share of the tool's results that are errors.
func (t ToolFigures) ErrorRate() float64 { return rate(t.Errors, t.Results) }

// MeanResultBytes is the mean size of its results.
func (t ToolFigures) MeanResultBytes() int64 {
	if t.Results == 0 {
		return 0
	}
	return t.ResultBytes / t.Results
}

// MeanMs is its mean duration, over the timed results.
func (t ToolFigures) MeanMs() int64 {
	if t.Timed == 0 {
		return 0
	}
	return t.DurationMs / t.Timed
}

// CommandFigures are the shell commands with one first word: run by the
// agent's bash tool (Calls, their results' Errors) or by the user (User).
type CommandFigures struct {
	Command string `json:"command"`
	Calls   int64  `json:"calls"`
	Errors  int64  `json:"errors"`
	User    int64  `json:"user"`
}

// ErrorFigures are one error message, how often, and where it last
// happened (Last: a session file and entry that show it).
type ErrorFigures struct {
	Kind    string   `json:"stopReason"` // error, aborted or length
	Message string   `json:"message"`
	Count   int64    `json:"count"`
	Last    EntryRef `json:"latest"`
}

// SlowCall is one of the slowest tool results.
type SlowCall struct {
	Tool       string   `json:"tool"`
	DurationMs int64    `json:"durationMs"`
	At         EntryRef `json:"at"`
}

// EntryRef names an entry of a session file, for a link or a command.
type EntryRef struct {
	Session SessionRef `json:"session"`
	EntryID string     `json:"entryId"`
	Line    int64      `json:"line"`
	Time    *Time      `json:"time"`
}

// HeatCell is one hour of the week.
type HeatCell struct {
	ActiveMs  int64 `json:"activeMs"`
	UserTurns int64 `json:"userTurns"`
}
