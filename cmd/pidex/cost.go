package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/render"
	"github.com/pidex-dev/pidex/pi"
)

func (a *app) costCmd() *cobra.Command {
	var o pidex.CostOptions
	var reprice string
	var csv, chart bool
	cmd := &cobra.Command{
		Use:   "cost",
		Short: "Tokens and cost per day, week, month, model, provider, project, session, source or agent",
		Long: `Sum the tokens and cost of every LLM call the sessions record: assistant
messages, tool results that carry usage, compactions, branch summaries and
usage entries (--source filters). Each call counts once: a fork's copies of
calls (same entry id, time, source and tokens) are left out (--no-dedup keeps
them). Calls without a model are attributed to the model in effect on their
path. --branch active counts calls on a session's current branch, abandoned
the rest (active + abandoned = all).

A subagent's session (pi-subagents' child runs, oh-my-pi's task transcripts)
is a session of its own: --by session gives it its row, --session PARENT
counts the parent's own calls. --rollup counts a subagent's calls as the
calls of the session that started it (the top of the chain): by session, the
parent's row holds its own calls and its subagents', --session PARENT
includes them. Either way a call counts once: the totals do not change.

Days, weeks (ISO, 2026-W48) and months follow --tz (default the local zone).

Cost is pi's recorded cost. pi records $0 for a model it has no price for:
such calls with tokens are unpriced unless pidex's price table (pidex prices)
prices their model as free; the report names them, their calls and tokens
(a * on the cost and a note), never adds them as $0. --estimate prices them
from that table (or --reprice's FILE) in a column of its own.
--reprice FILE adds the cost from a prices file in LiteLLM's JSON shape next
to the recorded one, and names the models it lacks.

On a terminal: an aligned table with a totals row; piped: tab-separated;
--csv: CSV; --chart: cost per period as bars stacked by model.
--json: {"rows":[{<key>…, "input", "output", "cacheRead", "cacheWrite",
"totalTokens", "cost", "calls", "unpricedCalls", "unpricedTokens",
"unpricedModels"}], "totals":{…}} (see docs/output.md).`,
		Args: a.noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			var err error
			if err = resolvePaths(o.Where); err != nil {
				return err
			}
			if reprice != "" {
				if o.Prices, err = pidex.LoadPrices(reprice); err != nil {
					return err
				}
			}
			o.Machine = a.machine
			var r *pidex.CostReport
			if _, err := a.readFresh(ctx, o.Session, false, func(eng pidex.Catalog) (err error) {
				r, err = eng.Cost(ctx, o)
				return err
			}); err != nil {
				return err
			}
			if len(r.Totals.NotRepriced) > 0 && !a.quiet {
				fmt.Fprintf(a.stderr, "pidex: %s has no price for %s: their calls are not in the repriced cost\n",
					reprice, strings.Join(r.Totals.NotRepriced, ", "))
			}
			// The unpriced calls' note: under a terminal's table or chart,
			// else on stderr (the data's columns say it too).
			const hint = "pidex cost --estimate prices them"
			onTTY := !a.json && !csv && a.io.OutTTY
			if !onTTY && !a.quiet {
				if note := render.UnpricedNote(r, hint); note != "" {
					fmt.Fprintln(a.stderr, "pidex: "+strings.TrimPrefix(note, "* "))
				}
			}
			switch {
			case a.json:
				return render.CostJSON(a.jsonOut(), r)
			case csv:
				return render.CostCSV(a.stdout, r, a.io.OutTTY)
			case chart:
				err = render.CostChart(a.stdout, r, a.io.Width)
			default:
				err = render.CostTable(a.stdout, r, a.io.OutTTY, a.io.Width)
			}
			if err != nil || !onTTY {
				return err
			}
			return render.CostNote(a.stdout, r, hint, a.io.Width)
		},
	}
	fl := cmd.Flags()
	fl.StringSliceVar(&o.By, "by", []string{pidex.DefaultCostBy}, "group by "+strings.Join(pidex.CostKeys, ", ")+"; several with commas (day,model)")
	fl.StringVar(&o.Since, "since", "", "only calls at or after DATE (2026-11-01 in --tz, RFC 3339, or a duration like 7d)")
	fl.StringVar(&o.Until, "until", "", "only calls before DATE (a bare date includes that day)")
	fl.StringVar(&o.TZ, "tz", "", "time zone of days, weeks and months (IANA, e.g. Asia/Kathmandu; default the local zone)")
	filterFlags(fl, pidex.OpCost, &o.Where)
	fl.StringVar(&o.Session, "session", "", "only this session (id, prefix, name or file)")
	fl.StringVar(&o.Source, "source", "", "only these sources: "+strings.Join(pi.Vocabulary().Sources, ", ")+" (commas)")
	fl.StringVar(&o.Branch, "branch", pidex.BranchAll, "all, active (on a current branch) or abandoned (the rest)")
	fl.BoolVar(&o.NoDedup, "no-dedup", false, "count every copy of a call that forks hold (the raw sum of the files)")
	fl.BoolVar(&o.Rollup, "rollup", false, "count subagents' calls as the calls of the session that started them")
	fl.StringVar(&reprice, "reprice", "", "also price the calls with FILE (LiteLLM's model_prices JSON shape)")
	fl.BoolVar(&o.Estimate, "estimate", false, "price the unpriced calls (recorded at $0 without a price) from pidex's price table (--reprice: FILE), apart from the cost")
	fl.BoolVar(&csv, "csv", false, "print CSV")
	fl.BoolVar(&chart, "chart", false, "draw cost per period as a bar chart, stacked by model with --by PERIOD,model")
	return cmd
}
