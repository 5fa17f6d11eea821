package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/engine"
	"github.com/pidex-dev/pidex/internal/render"
)

func (a *app) listCmd() *cobra.Command {
	var o pidex.ListOptions
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List sessions, newest first (pi's listAll, from the catalog)",
		Long: `List every session in the session roots, newest first, with the fields of
pi's SessionInfo plus pidex's own (entries, branch points, models, tokens,
cost, size). On a terminal: aligned columns, relative times, the first
message cut to the width. Piped: tab-separated, full values, RFC 3339 times.
--json: an array of objects (see docs/output.md).`,
		Args: a.noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			var err error
			if o.Cwd, err = resolveCwd(o.Cwd); err != nil {
				return err
			}
			o.Machine = a.machine
			var sessions []pidex.Session
			eng, err := a.readFresh(ctx, "", false, func(eng *engine.Engine) (err error) {
				sessions, err = eng.List(ctx, o)
				return err
			})
			if err != nil {
				return err
			}
			if a.json {
				return render.WriteSessionsJSON(a.jsonOut(), sessions)
			}
			var short map[string]string
			if a.io.OutTTY {
				if short, err = eng.ShortIDs(ctx, sessionIDs(sessions)); err != nil {
					return err
				}
			}
			return render.Sessions(a.stdout, sessions, a.io.OutTTY, a.io.Width, time.Now(), short)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.Cwd, "cwd", "", "only sessions whose working directory is exactly DIR (pi's list(cwd))")
	fl.StringVar(&o.Project, "project", "", "only sessions whose working directory contains SUBSTRING")
	fl.StringVar(&o.Name, "name", "", "only sessions whose name contains SUBSTRING")
	fl.StringVar(&o.Agent, "agent", "", "only sessions of these agents: "+strings.Join(pidex.Sources, ", ")+" (commas)")
	fl.StringVar(&o.Since, "since", "", "only sessions modified at or after DATE (2026-11-01, RFC 3339, or a duration like 7d, 12h)")
	fl.StringVar(&o.Until, "until", "", "only sessions modified before DATE (a bare date includes that day)")
	fl.IntVar(&o.Limit, "limit", 0, "at most N sessions")
	fl.StringVar(&o.Sort, "sort", pidex.SortModified, "order: modified, created, cost or size (all descending)")
	return cmd
}

func sessionIDs(ss []pidex.Session) []string {
	ids := make([]string, len(ss))
	for i := range ss {
		ids[i] = ss[i].ID
	}
	return ids
}

// resolveCwd makes a relative --cwd absolute: pi compares resolved paths,
// so `--cwd .` means here. "" stays "" (no filter).
func resolveCwd(cwd string) (string, error) {
	if cwd == "" || filepath.IsAbs(cwd) || isWindowsAbs(cwd) {
		return cwd, nil
	}
	abs, err := filepath.Abs(cwd)
	if err != nil {
		return "", fmt.Errorf("resolve --cwd: %w", err)
	}
	return abs, nil
}

// isWindowsAbs recognises C:\ paths, which sessions written on Windows
// carry in their header, so they are matched as given.
func isWindowsAbs(p string) bool {
	return len(p) >= 3 && p[1] == ':' && (p[2] == '\\' || p[2] == '/')
}
