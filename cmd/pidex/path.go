package main

import (
	"github.com/spf13/cobra"

	"github.com/pidex-dev/pidex/query"
)

func (a *app) pathCmd() *cobra.Command {
	var leaf string
	cmd := &cobra.Command{
		Use:   "path SESSION",
		Short: "Print the entries from the root to the leaf of a session",
		Long: `Print the entries from the root to the current leaf (pi's leaf: the last entry
in the file), or to --leaf ENTRY_ID. SESSION is a file path, a full session
id, a unique id prefix or a unique session name.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			db, ref, err := a.session(ctx, args[0])
			if err != nil {
				return err
			}
			path, err := query.Path(ctx, db.DB, ref.FileID, leaf)
			if err != nil {
				return err
			}
			if a.json {
				return writeJSON(a.stdout, path)
			}
			t := newTable(a.stdout, isTerminal(a.stdout), "LINE", "ID", "PARENT", "TYPE", "TIMESTAMP")
			for _, e := range path {
				kind := e.Type
				if e.Role != "" {
					kind += "/" + e.Role
				}
				parent := "-"
				if e.ParentID != nil {
					parent = *e.ParentID
				}
				t.row(itoa(e.Line), e.ID, parent, kind, e.Timestamp)
			}
			return t.flush()
		},
	}
	cmd.Flags().StringVar(&leaf, "leaf", "", "end the path at this entry id instead of the current leaf")
	return cmd
}
