package main

import (
	"github.com/spf13/cobra"

	"github.com/pidex-dev/pidex/query"
)

func (a *app) showCmd() *cobra.Command {
	var (
		leaf        string
		opts        showOptions
		showContext bool
	)
	cmd := &cobra.Command{
		Use:   "show SESSION",
		Short: "Print the conversation on a session's current branch, or the model context pi would rebuild",
		Long: `Print the conversation from the root to the current leaf (pi's leaf: the last
entry in the file), or to --leaf ENTRY_ID, for reading: user and assistant text,
thinking folded to its length (--thinking shows it), tool calls and results
abbreviated (--full shows them whole), images as a placeholder. Every entry
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
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			db, ref, err := a.session(ctx, args[0])
			if err != nil {
				return err
			}
			sc, err := query.Context(ctx, db.DB, ref, leaf)
			if err != nil {
				return err
			}
			switch {
			case a.json && showContext:
				return writeJSON(a.stdout, sc)
			case a.json:
				return writeJSON(a.stdout, sc.Path)
			}
			r := &showRenderer{w: a.stdout, opts: opts}
			r.header(ref, sc, showContext)
			if showContext {
				r.context(sc)
			} else {
				r.path(sc)
			}
			return r.err
		},
	}
	f := cmd.Flags()
	f.StringVar(&leaf, "leaf", "", "show the branch ending at this entry id instead of the current leaf")
	f.BoolVar(&showContext, "context", false, "show the model context pi would rebuild (compaction-aware) instead of the whole branch")
	f.BoolVar(&opts.thinking, "thinking", false, "show thinking text instead of its length")
	f.BoolVar(&opts.full, "full", false, "show tool calls, tool output and system prompts in full")
	return cmd
}
