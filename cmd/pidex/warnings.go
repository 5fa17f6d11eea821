package main

import (
	"github.com/spf13/cobra"

	"github.com/pidex-dev/pidex/internal/render"
)

func (a *app) warningsCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "warnings",
		Short: "List the lines pidex could not read, with file and line",
		Args:  a.noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			eng, err := a.refresh(ctx)
			if err != nil {
				return err
			}
			ws, err := eng.Warnings(ctx)
			if err != nil {
				return err
			}
			if a.json {
				return render.WriteJSON(a.jsonOut(), ws)
			}
			t := render.NewTable(a.stdout, a.io.OutTTY, "FILE", "LINE", "WARNING")
			for _, w := range ws {
				t.Row(w.Path, itoa(w.Line), w.Message)
			}
			// Messages give way first, then paths, which keep their file names.
			return t.Fit(a.io.Width, 2, 0).CutStart(0).Flush()
		},
	}
}
