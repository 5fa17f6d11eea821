package main

import (
	"github.com/spf13/cobra"

	"github.com/pidex-dev/pidex/internal/render"
)

func (a *app) rootsCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "roots",
		Short: "List the session folders pidex reads, whose they are and why",
		Long: `List the session roots: --sessions, or without it every agent's own (docs/sources.md,
Session roots): pi's sessions root and the folders its sessionDir settings
name (the global one, and each project's .pi/settings.json found through the
working directories of the sessions read), oh-my-pi's profiles, OpenClaw's
agents. Each with its source (pi, omp, openclaw), whether it exists, and why
it is read. --json: an array of {path, source, flat, why, found, note, read}.`,
		Args: a.noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			eng, err := a.refresh(cmd.Context())
			if err != nil {
				return err
			}
			roots := eng.RootInfo()
			if a.json {
				return render.WriteJSON(a.jsonOut(), roots)
			}
			t := render.NewTable(a.stdout, a.io.OutTTY, "SOURCE", "PATH", "FOUND", "WHY", "NOTE")
			for _, r := range roots {
				found := "yes"
				switch {
				case !r.Found:
					found = "no"
				case !r.Read:
					found = "yes, not read"
				}
				t.Row(r.Source, r.Path, found, r.Why, r.Note)
			}
			// Notes and reasons give way first, then paths (which keep their end).
			return t.Fit(a.io.Width, 4, 3, 1).CutStart(1).Flush()
		},
	}
}
