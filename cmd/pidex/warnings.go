package main

import (
	"github.com/spf13/cobra"

	"github.com/pidex-dev/pidex/query"
)

func (a *app) warningsCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "warnings",
		Short: "List the lines pidex could not read, with file and line",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			db, err := a.refresh(ctx)
			if err != nil {
				return err
			}
			ws, err := query.Warnings(ctx, db.DB)
			if err != nil {
				return err
			}
			if a.json {
				return writeJSON(a.stdout, ws)
			}
			t := newTable(a.stdout, isTerminal(a.stdout), "FILE", "LINE", "WARNING")
			for _, w := range ws {
				t.row(w.Path, itoa(w.Line), w.Message)
			}
			return t.flush()
		},
	}
}
