package mcp

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/render"
	"github.com/pidex-dev/pidex/internal/text"
	"github.com/pidex-dev/pidex/internal/view"
)

type costArgs struct {
	By       []string    `json:"by,omitempty" jsonschema:"group by these, in order (default [\"day\"]): day, week, month (in tz), model, provider, project, session, source, agent"`
	TZ       string      `json:"tz,omitempty" jsonschema:"IANA time zone of days, weeks and months, e.g. Europe/Paris (default: the server's zone)"`
	Since    string      `json:"since,omitempty" jsonschema:"only calls at or after: a date (2026-11-01, in tz), an RFC 3339 time, or a duration back from now (12h, 7d, 2w)"`
	Until    string      `json:"until,omitempty" jsonschema:"only calls before this (a bare date includes that day)"`
	Where    pidex.Where `json:"where,omitempty" filters:"cost"` // the registry's filters: project, cwd, agent, model, …
	Session  string      `json:"session,omitempty" jsonschema:"only this session: an id, a unique prefix, a name, or a path"`
	Source   []string    `json:"source,omitempty" jsonschema:"only usage recorded by these: assistant (replies), toolResult (LLM work inside tools), compaction, branch_summary, usage"`
	Branch   string      `json:"branch,omitempty" jsonschema:"all (default); active: calls on a session's current branch; abandoned: calls on branches the user left"`
	NoDedup  bool        `json:"no_dedup,omitempty" jsonschema:"count every copy forks hold of a call (the raw sum of the files); by default each call counts once"`
	Rollup   bool        `json:"rollup,omitempty" jsonschema:"count subagents' calls as the calls of the session that started them: by session, its row holds its subagents' calls too; session includes them (totals do not change)"`
	Estimate bool        `json:"estimate,omitempty" jsonschema:"price the unpriced calls (pi recorded them at $0 without a price for the model) from pidex's price table, as estimated_cost apart from cost"`
	Limit    int         `json:"limit,omitempty" jsonschema:"at most this many rows in this page (totals always cover every row)" cursor:"page"`
	MaxChars int         `json:"max_chars,omitempty" jsonschema:"character budget of the whole result" cursor:"page"`
	Machine  string      `json:"machine,omitempty" jsonschema:"team catalog: only this machine's sessions"`
	Cursor   string      `json:"cursor,omitempty" jsonschema:"next_cursor of a previous result, for its next rows" cursor:"-"`
}

type costResult struct {
	By            []string  `json:"by"`
	TZ            string    `json:"tz"`
	EstimatedWith string    `json:"estimated_with,omitempty" jsonschema:"with estimate: the prices the unpriced calls were estimated with"`
	Rows          []costRow `json:"rows" jsonschema:"by period (oldest first), then by cost (most expensive first)"`
	Totals        costSums  `json:"totals" jsonschema:"every row, all pages"`
	Groups        int       `json:"groups" jsonschema:"rows in all pages"`
	page
}

type costRow struct {
	Keys map[string]string `json:"keys" jsonschema:"this row's value of each by key (unknown: a call without time or model)"`
	costSums
}

type costSums struct {
	Input       float64 `json:"input"`
	Output      float64 `json:"output"`
	CacheRead   float64 `json:"cache_read"`
	CacheWrite  float64 `json:"cache_write"`
	TotalTokens float64 `json:"total_tokens"`
	Cost        float64 `json:"cost" jsonschema:"USD, as pi recorded it; unpriced calls are in it at $0"`
	Calls       int64   `json:"calls"`
	// The unpriced calls: pi recorded them at $0 without a price for
	// their model (pidex.Unpriced).
	UnpricedCalls  int64    `json:"unpriced_calls" jsonschema:"calls pi recorded at $0 without a price for their model: cost says nothing of them"`
	UnpricedTokens float64  `json:"unpriced_tokens" jsonschema:"their total tokens"`
	UnpricedModels []string `json:"unpriced_models" jsonschema:"their models"`
	// With estimate: their estimated cost (nil when none has a price).
	EstimatedCost  *float64 `json:"estimated_cost,omitempty" jsonschema:"with estimate: USD of the unpriced calls whose model pidex's price table prices, apart from cost"`
	EstimatedCalls *int64   `json:"estimated_calls,omitempty" jsonschema:"with estimate: the unpriced calls in estimated_cost"`
}

const costDesc = `Tokens and cost (USD, as pi recorded them) of the user's LLM calls, grouped like pidex cost: by day, week, month (in tz), model, provider, project, session or source, and combinations (by=["day","model"]). Filters: since, until, project, cwd, session, model, source, branch (abandoned = money spent on branches the user left). Each call counts once even when forks copy it (no_dedup counts every copy). A subagent's session is a session of its own; rollup counts its calls as its parent session's. pi records $0 for a model it has no price for: such calls are unpriced (unpriced_calls, unpriced_tokens, unpriced_models), never free; estimate prices them from pidex's price table as estimated_cost. Rows and totals; rows are paged (limit, max_chars, next_cursor), totals always cover all.`

func (s *Server) addCost() {
	v := s.cat.Vocabulary()
	addTool(s, toolSpec[costArgs, costResult]{
		name: "cost_report", title: "Cost report", desc: costDesc,
		rename: map[string]string{"tz": "tz", "noDedup": "no_dedup"},
		patch: func(sc *jsonschema.Schema) {
			enum(sc, "by", pidex.CostKeys...)
			enum(sc, "source", v.Sources...)
			enum(sc, "branch", pidex.BranchAll, pidex.BranchActive, pidex.BranchAbandoned)
			bounds(sc, "limit", 1, pidex.MaxReadWindow, pidex.DefaultReportRows)
			bounds(sc, "max_chars", pidex.MinBudget, pidex.MaxBudget, pidex.DefaultBudget)
		},
		run: s.cost,
	})
}

func (s *Server) cost(ctx context.Context, in *costArgs) (reply[costResult], error) {
	var r reply[costResult]
	offset, limit, budget, err := s.paged("cost_report", in.Cursor, in, &in.Limit, pidex.DefaultReportRows, pidex.MaxReadWindow, &in.MaxChars)
	if err != nil {
		return r, err
	}
	o := pidex.CostOptions{By: in.By, TZ: in.TZ, Since: in.Since, Until: in.Until, Where: in.Where, Source: strings.Join(in.Source, ","), Branch: in.Branch, NoDedup: in.NoDedup, Rollup: in.Rollup, Machine: s.machine(in.Machine), Estimate: in.Estimate}
	if len(in.By) == 0 {
		o.By = nil // the domain's default
	}
	if in.Session != "" {
		ref, err := s.session(ctx, in.Session, o.Machine)
		if err != nil {
			return r, err
		}
		o.Session = ref.Path
	}
	rep, err := s.cat.Cost(ctx, o)
	if err != nil {
		return r, err
	}
	tz := in.TZ
	if tz == "" {
		tz = "the server's zone, " + time.Now().Format("MST -07:00")
	}
	est := rep.EstimatedWith != ""
	out := costResult{By: rep.By, TZ: tz, EstimatedWith: rep.EstimatedWith, Rows: []costRow{}, Totals: sums(rep.Totals, est), Groups: len(rep.Rows)}
	out.Offset = min(offset, len(rep.Rows))
	rows := rep.Rows[out.Offset:]
	rows = rows[:min(len(rows), limit)]
	lines := make([]string, len(rows))
	for i, row := range rows {
		cr := costRow{Keys: map[string]string{}, costSums: sums(row.CostSums, est)}
		for k, key := range rep.By {
			cr.Keys[key] = row.Keys[k]
		}
		out.Rows = append(out.Rows, cr)
		lines[i] = table(&pidex.CostReport{By: rep.By, Rows: []pidex.CostRow{row}, EstimatedWith: rep.EstimatedWith}, false)
	}
	keep := view.Take(len(rows), budget.Chars-reserve-chars(lines0(lines)), func(i int) int { return size(lines[i], out.Rows[i]) })
	if keep < len(rows) {
		out.Rows, rows = out.Rows[:keep], rows[:keep]
		out.Truncated = budgetNote(keep, budget.Chars)
	}
	out.Returned = keep
	if out.Offset+keep < len(rep.Rows) {
		out.NextCursor = encodeCursor("cost_report", cursorKey(*in), out.Offset+keep, "")
	}
	var b strings.Builder
	dedup := "each call counted once"
	if in.NoDedup {
		dedup = "every copy of a call counted"
	}
	branch := in.Branch
	if branch == "" {
		branch = pidex.BranchAll
	}
	fmt.Fprintf(&b, "Cost by %s (%s; branch %s; %s): %d %s", strings.Join(rep.By, ", "), tz, branch, dedup, len(rep.Rows), text.Plural(len(rep.Rows), "row", "rows"))
	if len(rep.Rows) > 0 {
		fmt.Fprintf(&b, ", %d–%d shown", out.Offset+1, out.Offset+keep)
	}
	fmt.Fprintf(&b, ". Total %s in %s, %s tokens.\n\n", money(rep.Totals.Cost), callsWord(rep.Totals.Calls), count(rep.Totals.TotalTokens))
	b.WriteString(table(&pidex.CostReport{By: rep.By, Rows: rows, Totals: rep.Totals, EstimatedWith: rep.EstimatedWith}, true))
	if note := render.UnpricedNote(rep, "estimate: true prices them"); note != "" {
		b.WriteString(note + "\n")
	}
	b.WriteString(pageNote(out.page, "rows"))
	r.data, r.text = out, strings.TrimRight(b.String(), "\n")
	return r, nil
}

// table is report's rows as the CLI's aligned table (with the totals row
// when totals), or one row without its header line.
func table(rep *pidex.CostReport, totals bool) string {
	var buf bytes.Buffer
	_ = render.CostTable(&buf, rep, true, 0)
	lines := strings.SplitAfter(buf.String(), "\n")
	if !totals {
		if len(lines) > 1 {
			return lines[1] // the row, without the header and totals
		}
		return ""
	}
	return buf.String()
}

// lines0 is the first of lines ("" for none): a row's size stands for the
// header's.
func lines0(lines []string) string {
	if len(lines) == 0 {
		return ""
	}
	return lines[0]
}

func sums(s pidex.CostSums, estimated bool) costSums {
	c := costSums{Input: s.Input, Output: s.Output, CacheRead: s.CacheRead, CacheWrite: s.CacheWrite, TotalTokens: s.TotalTokens,
		Cost: s.Cost, Calls: s.Calls, UnpricedCalls: s.UnpricedCalls, UnpricedTokens: s.UnpricedTokens, UnpricedModels: s.UnpricedModels}
	if c.UnpricedModels == nil {
		c.UnpricedModels = []string{}
	}
	if estimated {
		c.EstimatedCalls = &s.EstimatedCalls
		if s.UnpricedCalls == 0 || s.EstimatedCalls > 0 {
			c.EstimatedCost = &s.Estimated
		}
	}
	return c
}
