package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/engine"
	"github.com/pidex-dev/pidex/internal/render"
	"github.com/pidex-dev/pidex/internal/text"
)

func (a *app) indexCmd() *cobra.Command {
	var full, watch bool
	cmd := &cobra.Command{
		Use:   "index",
		Short: "Refresh the catalog incrementally and print what changed",
		Long: `Refresh the catalog: new files are read, appended files are read from where
the last refresh stopped, rewritten files are read again, removed files are
dropped; an unchanged file costs one stat. --full rebuilds the catalog from
scratch into a side file, then replaces the catalog's contents with it in one
transaction: readers see the old or the new catalog, never a half-built one,
and a running 'index --watch' carries on with the new one.

--watch keeps refreshing until interrupted: after any change under the session
roots (coalesced, at most a fraction of a second late), and once a minute as a
safety net. It prints a line per refresh that changed something (with --json,
one object per line).`,
		Args: a.noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			a.longLived, a.rebuild = watch, full
			eng, st, err := a.index(ctx, full)
			if err != nil {
				return err
			}
			a.report(st, true)
			switch {
			case watch && a.json:
				err = render.WriteJSONLine(a.jsonOut(), st)
			case a.json:
				err = render.WriteJSON(a.jsonOut(), st)
			default:
				err = a.printStats(st)
			}
			if err != nil || !watch {
				return err
			}
			if err := a.flush(); err != nil {
				return err
			}
			return a.watch(cmd, eng)
		},
	}
	cmd.Flags().BoolVar(&watch, "watch", false, "keep the catalog current until interrupted, printing what each refresh changed")
	cmd.Flags().BoolVar(&full, "full", false, "rebuild the catalog from scratch, then swap its contents in at once")
	return cmd
}

func (a *app) printStats(st *pidex.IndexStats) error {
	_, err := fmt.Fprintf(a.stdout, "files %d: new %d, appended %d, rewritten %d, removed %d, unchanged %d\nentries added %d, read %s, not sessions %d, pending %d, warnings %d, errors %d\n%s\n",
		st.Files, st.New, st.Appended, st.Rewritten, st.Removed, st.Unchanged,
		st.Entries, text.Bytes(st.Bytes), len(st.NotSessions), len(st.Pending), len(st.Warnings), len(st.Errors), textSummary(st.Text))
	return err
}

// textSummary says what the text pass did for search (the last line of
// index's summary).
func textSummary(t *pidex.TextStats) string {
	switch {
	case t == nil:
		return "search index: not refreshed"
	case t.Files == 0 && t.Entries == 0:
		return "search index: up to date"
	}
	return fmt.Sprintf("search index: text of %s %s indexed, %s %s, %s read",
		text.Count(int64(t.Files)), text.Plural(t.Files, "file", "files"), text.Count(t.Entries), text.Plural(int(t.Entries), "entry", "entries"), text.Bytes(t.Bytes))
}

// watch refreshes on every change until the command's context ends
// (Ctrl-C), reporting each refresh that changed something. The refresh
// before it already ran.
func (a *app) watch(cmd *cobra.Command, eng *engine.Engine) error {
	var werr error
	err := eng.Watch(cmd.Context(), engine.WatchOptions{Text: true, OnRefresh: func(st *pidex.IndexStats, err error) {
		if err != nil {
			fmt.Fprintln(a.stderr, "pidex: refresh:", err)
			return
		}
		if !st.Changed() && len(st.Warnings)+len(st.Errors) == 0 {
			return
		}
		a.report(st, true)
		if a.json {
			werr = render.WriteJSONLine(a.jsonOut(), st)
		} else {
			line := fmt.Sprintf("%s new %d, appended %d, rewritten %d, removed %d; %d entries, %s",
				time.Now().Format(time.TimeOnly), st.New, st.Appended, st.Rewritten, st.Removed, st.Entries, text.Bytes(st.Bytes))
			if st.Text != nil && st.Text.Entries > 0 {
				line += fmt.Sprintf("; %d entries' text indexed", st.Text.Entries)
			}
			_, werr = fmt.Fprintln(a.stdout, line)
		}
		if werr == nil {
			werr = a.flush()
		}
	}})
	if err != nil {
		return err
	}
	return werr
}

// index refreshes the catalog, or rebuilds it with full. A catalog that
// does not even open is replaced whole by --full (it serves no one).
func (a *app) index(ctx context.Context, full bool) (eng *engine.Engine, st *pidex.IndexStats, err error) {
	eng, err = a.engine(ctx)
	if err != nil && (!full || errors.Is(err, pidex.ErrReadOnly)) {
		return nil, nil, err // a read-only catalog cannot be replaced either
	}
	err = a.drawing(func() (err error) {
		switch {
		case eng == nil:
			eng, st, err = engine.Recreate(ctx, a.engineOptions())
			a.eng = eng
		case full:
			st, err = eng.Rebuild(ctx, true)
		default:
			if st, err = eng.RefreshBeforeText(ctx); err == nil {
				st.Text, err = eng.RefreshText(ctx)
			}
		}
		return err
	})
	return eng, st, err
}
