package main

import (
	"github.com/spf13/cobra"

	"github.com/pidex-dev/pidex/internal/render"
)

func (a *app) pathCmd() *cobra.Command {
	var leaf string
	cmd := &cobra.Command{
		Use:   "path SESSION",
		Short: "Print the entries from the root to the leaf of a session",
		Long: `Print the entries from the root to the current leaf (pi's leaf: the last entry
in the file), or to --leaf ENTRY_ID. SESSION is a file path, a full session
id, a unique id prefix or a unique session name.`,
		Args: a.oneSession,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			eng, ref, err := a.session(ctx, args[0])
			if err != nil {
				return err
			}
			path, err := eng.Path(ctx, ref, leaf)
			if err != nil {
				return err
			}
			if a.json {
				return render.WriteJSON(a.jsonOut(), path)
			}
			return render.Path(a.stdout, path, a.io.OutTTY, a.io.Width)
		},
	}
	cmd.Flags().StringVar(&leaf, "leaf", "", "end the path at this entry id instead of the current leaf")
	return cmd
}
