package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/render"
)

func (a *app) pricesCmd() *cobra.Command {
	var missing bool
	cmd := &cobra.Command{
		Use:   "prices [MODEL...]",
		Short: "Show pidex's price table, its date and sources, or the catalog's models it lacks",
		Long: `Show the price table built into pidex, which tells a model pi recorded at $0
because it had no price from a free one, and which pidex cost --estimate
prices such calls with: pi's own model table (@earendil-works/pi-ai, the
version pi depends on), then LiteLLM's prices for the models pi's lacks.
Each model as a cost report looks it up (provider/model), with its source,
in USD per million tokens. MODEL words keep the models whose name contains
one of them (any case).

--missing lists instead the models of the catalog's calls that the table
does not price, with their calls, tokens, recorded cost and unpriced calls.

On a terminal: the table's date and sources, then its models; piped:
tab-separated. --json: {date, unit, sources: [{name, package, version,
repository, file, date, licence, models, about}], models: [{model, source,
input, output, cacheRead, cacheWrite, cacheWrite1h}]}; with --missing
{date, missing: [{model, calls, totalTokens, cost, unpricedCalls,
unpricedTokens}]} (see docs/output.md).`,
		RunE: func(cmd *cobra.Command, args []string) error {
			t := pidex.ShippedPrices()
			if missing {
				if len(args) > 0 {
					return pidex.Usagef("prices: --missing takes no MODEL")
				}
				return a.missingPrices(cmd, t)
			}
			d := render.Prices(t, t.Matching(args))
			if a.json {
				return render.WriteJSON(a.jsonOut(), d)
			}
			if a.io.OutTTY {
				fmt.Fprintln(a.stdout, render.PricesHeading(t, a.io.Width))
			}
			return render.PricesTable(a.stdout, d, a.io.OutTTY, a.io.Width)
		},
	}
	cmd.Flags().BoolVar(&missing, "missing", false, "list the catalog's models the table does not price")
	return cmd
}

// missingPrices lists the catalog's models the table lacks: a cost
// report by model over every call, each model looked up.
func (a *app) missingPrices(cmd *cobra.Command, t *pidex.PriceTable) error {
	ctx := cmd.Context()
	var r *pidex.CostReport
	if _, err := a.readFresh(ctx, "", false, func(eng pidex.Catalog) (err error) {
		r, err = eng.Cost(ctx, pidex.CostOptions{By: []string{"model"}, Machine: a.machine})
		return err
	}); err != nil {
		return err
	}
	d := render.Missing(t, t.Missing(r))
	if a.json {
		return render.WriteJSON(a.jsonOut(), d)
	}
	if a.io.OutTTY {
		fmt.Fprintf(a.stdout, "%d of the catalog's %d models have no price in %s:\n", len(d.Missing), len(r.Rows), t.Label())
	}
	return render.MissingTable(a.stdout, d, a.io.OutTTY, a.io.Width)
}
