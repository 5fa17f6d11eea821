package main

import (
	"context"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/render"
)

func (a *app) statsCmd() *cobra.Command {
	var o pidex.StatsOptions
	var csv, chart bool
	cmd := &cobra.Command{
		Use:   "stats",
		Short: "How the work went: turns, tools and their failures, stop reasons, time, context",
		Long: `Report how the work in the sessions went, from every entry (docs/stats.md
defines each figure): sessions with their wall and active time, user turns
and their latency, assistant messages and why they stopped (error, aborted,
length), tool calls and results by tool with their error rate, result size
and duration, shell commands by first word (the agent's bash calls and your
own !commands), compactions and the context size before them, the share of
prompt tokens read from the cache, the most frequent errors and the slowest
tool calls. Active time adds the gaps between consecutive entries of at most
15 minutes. A fork's copies of its source's entries are counted once, in the
source.

--by groups the figures (day, week, month, model, project, session, agent;
several with commas); --tz sets the days and the heatmap's hours; the filters
and --since/--until/--session/--branch select as cost's do (whole quarter
hours). A subagent's session is a session of its own; --rollup counts its
activity as that of the session that started it, as cost --rollup does. On a terminal: tables fitted to the width; piped: tab-separated
tables apart by a blank line; --csv: the rows as CSV; --chart: active time by
weekday and hour; --json: the whole report (see docs/output.md).`,
		Args: a.noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			if err := resolvePaths(o.Where); err != nil {
				return err
			}
			o.Machine = a.machine
			var r *pidex.StatsReport
			eng, err := a.readFresh(ctx, o.Session, false, func(eng pidex.Catalog) (err error) {
				r, err = eng.Stats(ctx, o)
				return err
			})
			if err != nil {
				return err
			}
			switch {
			case a.json:
				return render.StatsJSON(a.jsonOut(), r)
			case csv:
				return render.StatsCSV(a.stdout, r)
			case chart:
				return render.StatsHeatmap(a.stdout, r)
			}
			handle, err := a.statsHandles(ctx, eng, r)
			if err != nil {
				return err
			}
			return render.StatsTable(a.stdout, r, a.io.OutTTY, a.io.Width, handle)
		},
	}
	fl := cmd.Flags()
	fl.StringSliceVar(&o.By, "by", nil, "group by "+strings.Join(pidex.StatsKeys, ", ")+"; several with commas (week,model)")
	fl.StringVar(&o.Since, "since", "", "only activity at or after DATE (2026-11-01 in --tz, RFC 3339, or a duration like 7d)")
	fl.StringVar(&o.Until, "until", "", "only activity before DATE (a bare date includes that day)")
	fl.StringVar(&o.TZ, "tz", "", "time zone of days, weeks, months and the heatmap (IANA; default the local zone)")
	filterFlags(fl, pidex.OpCost, &o.Where)
	fl.StringVar(&o.Session, "session", "", "only this session (id, prefix, name or file)")
	fl.StringVar(&o.Branch, "branch", pidex.BranchAll, "all, active (on a current branch) or abandoned (the rest)")
	fl.BoolVar(&o.Rollup, "rollup", false, "count subagents' activity as that of the session that started them")
	fl.BoolVar(&csv, "csv", false, "the rows as CSV")
	fl.BoolVar(&chart, "chart", false, "active time by weekday and hour")
	return cmd
}

// statsHandles names the sessions of a report's errors and slowest calls
// by their handles (short on a terminal), for the commands that open them.
func (a *app) statsHandles(ctx context.Context, cat pidex.Catalog, r *pidex.StatsReport) (func(pidex.SessionRef) string, error) {
	var refs []pidex.SessionRef
	for _, e := range r.Errors {
		refs = append(refs, e.Last.Session)
	}
	for _, c := range r.Slowest {
		refs = append(refs, c.At.Session)
	}
	hs, err := cat.Handles(ctx, refs, a.io.OutTTY)
	if err != nil {
		return nil, err
	}
	byFile := map[[2]string]string{}
	for i, ref := range refs {
		byFile[[2]string{ref.Path, ref.Machine}] = hs[i]
	}
	return func(s pidex.SessionRef) string { return byFile[[2]string{s.Path, s.Machine}] }, nil
}
