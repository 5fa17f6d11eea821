package main

import (
	"time"

	"github.com/spf13/cobra"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/render"
	"github.com/pidex-dev/pidex/internal/view"
)

func (a *app) listCmd() *cobra.Command {
	var o pidex.ListOptions
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List sessions, newest first (pi's listAll, from the catalog)",
		Long: `List every session in the session roots, newest first, with the fields of
pi's SessionInfo plus pidex's own (entries, branch points, models, tokens,
cost, size). A subagent's session (pi-subagents' child runs, oh-my-pi's task
transcripts) is listed beneath the session that started it; --subagents lists
them as sessions of their own, filtered and sorted like any. On a terminal:
aligned columns, relative times, the first message cut to the width. Piped:
tab-separated, full values, RFC 3339 times. --json: an array of objects (see
docs/output.md).`,
		Args: a.noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			if err := resolvePaths(o.Where); err != nil {
				return err
			}
			o.Machine = a.machine
			var sessions []pidex.Session
			eng, err := a.readFresh(ctx, "", false, func(eng pidex.Catalog) (err error) {
				sessions, err = eng.List(ctx, o)
				return err
			})
			if err != nil {
				return err
			}
			if a.json {
				return render.WriteSessionsJSON(a.jsonOut(), sessions)
			}
			var handles []string
			if a.io.OutTTY {
				rows := view.Flatten(sessions, 0) // subagents beneath their parents, as shown
				refs := make([]pidex.SessionRef, len(rows))
				for i := range rows {
					refs[i] = rows[i].Ref()
				}
				if handles, err = eng.Handles(ctx, refs, true); err != nil {
					return err
				}
			}
			return render.Sessions(a.stdout, sessions, a.io.OutTTY, a.io.Width, time.Now(), handles)
		},
	}
	fl := cmd.Flags()
	filterFlags(fl, pidex.OpList, &o.Where)
	fl.StringVar(&o.Since, "since", "", "only sessions modified at or after DATE (2026-11-01, RFC 3339, or a duration like 7d, 12h)")
	fl.StringVar(&o.Until, "until", "", "only sessions modified before DATE (a bare date includes that day)")
	fl.IntVar(&o.Limit, "limit", 0, "at most N sessions")
	fl.StringVar(&o.Sort, "sort", pidex.SortModified, "order: modified, created, cost or size (all descending)")
	fl.BoolVar(&o.Subagents, "subagents", false, "list subagents' sessions as sessions of their own, not beneath the session that started them")
	return cmd
}
