package main

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/render"
)

func (a *app) treeCmd() *cobra.Command {
	var pathOnly, flat bool
	cmd := &cobra.Command{
		Use:   "tree SESSION",
		Short: "Print a session's entry tree (like pi's /tree)",
		Long: `Print the whole entry tree of a session: one line per entry with its type or
role, a short preview, its label, and * on the current leaf. Children are in
file order (the order they were written); a linear run stays at one
indentation, branches indent.
--path-only prints just the root-to-leaf path. --json prints nested nodes
{id, parentId, type, role, timestamp, offset, length, line, label,
labelTimestamp, leaf, children: [...]} like pi's getTree(), children in pi's
order (by timestamp). A long conversation nests as deep as it is long, which
some JSON tools refuse (Python's json past ~1,000 levels, jq past 10,000):
--json --flat prints the same nodes as an array in depth-first order, each
with "depth" and without "children".`,
		Args: a.oneSession,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			eng, ref, err := a.session(ctx, args[0])
			if err != nil {
				return err
			}
			roots, err := eng.Tree(ctx, ref, pidex.TreeOptions{PathOnly: pathOnly})
			if err != nil {
				return err
			}
			if a.json && flat {
				return render.WriteJSONLines(a.jsonOut(), render.FlatTree(roots))
			}
			if a.json {
				return render.TreeJSON(a.jsonOut(), roots)
			}
			previews, err := eng.Previews(ctx, ref)
			if err != nil {
				return err
			}
			if sp, err := spawn(ctx, eng, ref); err != nil {
				return err
			} else if !a.quiet {
				a.spawnNote(sp)
			}
			o := render.TreeOptions{Terminal: a.io.OutTTY, Width: a.io.Width, Colour: a.io.Colour}
			return a.paged(func(w io.Writer) error { return render.TreeText(w, roots, previews, o) })
		},
	}
	cmd.Flags().BoolVar(&pathOnly, "path-only", false, "show only the path from the root to the current leaf")
	cmd.Flags().BoolVar(&flat, "flat", false, "with --json: one node per line in tree order, with depth instead of nesting")
	return cmd
}
