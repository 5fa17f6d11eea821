package main

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/export"
	"github.com/pidex-dev/pidex/internal/render"
)

func (a *app) showCmd() *cobra.Command {
	var (
		o    pidex.ReadOptions
		opts render.ShowOptions
	)
	cmd := &cobra.Command{
		Use:   "show SESSION",
		Short: "Print the conversation on a session's current branch, or the model context pi would rebuild",
		Long: `Print the conversation from the root to the current leaf (pi's leaf: the last
entry in the file), or to --leaf ENTRY_ID, for reading: user and assistant text,
thinking folded to its length (--thinking shows it), tool calls and results
abbreviated (--full shows them whole), images as a placeholder. A line over
1 MiB (a huge tool result) is read as a stream and shown cut: its strings keep
their first 4 KiB, and its header says "(N MiB line, cut)"; --full and --json
read it whole. Every entry
starts with a line "[LINE] KIND · ID · TIME (UTC)"; entries replaced by a
compaction summary are marked (compacted), context edits (edited by …) or
(omitted by …).

--context prints instead exactly the messages pi rebuilds when it resumes the
session there (buildSessionContext): the latest compaction's summary in place of
everything before its first kept entry, branch summaries, extension messages,
context edits applied, and the model and thinking level in effect.

--json prints, with --context, pi's buildSessionContext result
{"messages": [...], "thinkingLevel": "...", "model": {"provider", "modelId"} | null};
without it, the array of entries on the path, each the entry's object as pi
loads it preceded by "line" and followed by pidex's annotations "currentLabel",
"inContext", "compacted" and "editedBy".`,
		Args: a.oneSession,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			eng, ref, err := a.session(ctx, args[0])
			if err != nil {
				return err
			}
			switch {
			case a.json && o.Context:
				sc, err := eng.Context(ctx, ref, o.Leaf)
				if err != nil {
					return err
				}
				return render.WriteJSON(a.jsonOut(), sc)
			case a.json:
				return export.EntriesJSON(ctx, eng, ref, o.Leaf, false, a.jsonOut())
			}
			o.Whole = opts.Full // only exact output reads a huge line whole; reading cuts it
			doc, err := eng.Read(ctx, ref, o)
			if err != nil {
				return err
			}
			if r, err := eng.Resume(ctx, ref, pidex.ResumeOptions{Leaf: o.Leaf}); err == nil {
				opts.Resume = r
			}
			if opts.Spawn, err = spawn(ctx, eng, ref); err != nil {
				return err
			}
			opts.Terminal, opts.Colour = a.io.OutTTY, a.io.Colour
			return a.paged(func(w io.Writer) error { return render.Show(w, doc, opts) })
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Leaf, "leaf", "", "show the branch ending at this entry id instead of the current leaf")
	f.BoolVar(&o.Context, "context", false, "show the model context pi would rebuild (compaction-aware) instead of the whole branch")
	f.BoolVar(&opts.Thinking, "thinking", false, "show thinking text instead of its length")
	f.BoolVar(&opts.Full, "full", false, "show tool calls, tool output and system prompts in full")
	return cmd
}
