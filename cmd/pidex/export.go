package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/export"
	"github.com/pidex-dev/pidex/internal/text"
)

func (a *app) exportCmd() *cobra.Command {
	var (
		o   pidex.ExportOptions
		lo  pidex.ListOptions
		out string
	)
	cmd := &cobra.Command{
		Use:   "export [SESSION] [--format md|html|json] [-o FILE]",
		Short: "Write a session as Markdown, one self-contained HTML page, or JSON, to hand it on",
		Long: `Write a session for someone else to read: a person, another agent, a teammate.

  md    the conversation on the branch (the current one, or --leaf's): messages,
        tool calls with their arguments and results (each cut at --max-output
        bytes, said where cut), thinking as its length (--thinking: its text),
        compaction and branch summaries set apart; the session's name, project,
        model, cost and the command that resumes it on top.
  html  one self-contained page (no network requests: it works offline and from
        a file:// URL) in pidex serve's look, holding every branch, with the
        tree to switch between them; it opens on --leaf's branch or the current one.
  json  what 'pidex show --json' prints: the branch's entries as pi holds them;
        with --context, the model context pi rebuilds ('pidex show --context --json').

--context writes the model context instead of the branch (md and json).
--redact replaces secrets (keys, tokens, private keys, passwords, values of a
secret's name) with [REDACTED], by the redactor of 'pidex push --redact'.

The format is --format's, else the extension of -o's file, else md. Without -o
the export goes to stdout. Without SESSION, every session the filters select is
exported into the folder -o names, one file each, named after its session file;
the files written are listed on stdout. A session that cannot be read is said on
stderr and the others are written (exit 1). pidex never writes over a session file.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			if !cmd.Flags().Changed("format") && out != "" && len(args) == 1 {
				o.Format = pidex.FormatOf(out)
			}
			if err := o.Filter(); err != nil {
				return err
			}
			if len(args) == 1 {
				return a.exportOne(ctx, args[0], o, out)
			}
			if o.Leaf != "" {
				return pidex.Usagef("--leaf names an entry of one session: give the SESSION too")
			}
			if out == "" {
				return pidex.Usagef("export needs a SESSION, or -o DIR to export every session the filters select (as in: pidex export --project api --since 7d -o handoff/)")
			}
			if err := resolvePaths(lo.Where); err != nil {
				return err
			}
			lo.Machine = a.machine
			return a.exportMany(ctx, lo, o, out)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Format, "format", "", "md, html or json (default: the -o file's extension, else md)")
	f.StringVarP(&out, "output", "o", "", "write to this file (one session) or into this folder (many) instead of stdout")
	f.StringVar(&o.Leaf, "leaf", "", "the branch ending at this entry instead of the current one")
	f.BoolVar(&o.Context, "context", false, "the model context pi would rebuild instead of the branch (md, json)")
	f.BoolVar(&o.Redact, "redact", false, "replace secrets with [REDACTED], as push --redact does")
	f.BoolVar(&o.Thinking, "thinking", false, "md: the model's thinking text, not only its length")
	f.IntVar(&o.MaxOutput, "max-output", pidex.DefaultMaxOutput, "md: bytes kept of each tool output, tool argument and system prompt (0: whole)")
	filterFlags(f, pidex.OpList, &lo.Where)
	f.StringVar(&lo.Since, "since", "", "without SESSION: only sessions modified at or after DATE (2026-11-01, RFC 3339, or 7d, 12h)")
	f.StringVar(&lo.Until, "until", "", "without SESSION: only sessions modified before DATE")
	f.IntVar(&lo.Limit, "limit", 0, "without SESSION: at most N sessions, newest first")
	return cmd
}

// exportOne writes one session to out, or to stdout.
func (a *app) exportOne(ctx context.Context, arg string, o pidex.ExportOptions, out string) error {
	cat, ref, err := a.session(ctx, arg)
	if err != nil {
		return err
	}
	if out == "" {
		if o.Format == pidex.FormatHTML && a.io.OutTTY {
			return pidex.Usagef("an HTML page is not for a terminal: write it to a file with -o %s.html", export.BaseName(ref.Path))
		}
		return export.Write(ctx, cat, ref, o, a.stdout)
	}
	n, err := a.exportFile(ctx, cat, ref, o, out)
	if err == nil && !a.quiet {
		fmt.Fprintf(a.stderr, "pidex: wrote %s (%s)\n", out, text.Bytes(n))
	}
	return err
}

// exportMany writes each session lo selects into the folder dir.
func (a *app) exportMany(ctx context.Context, lo pidex.ListOptions, o pidex.ExportOptions, dir string) error {
	var sessions []pidex.Session
	cat, err := a.readFresh(ctx, "", false, func(cat pidex.Catalog) (err error) {
		sessions, err = cat.List(ctx, lo)
		return err
	})
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create export folder: %w", err)
	}
	taken := map[string]bool{}
	failed := 0
	for i := range sessions {
		s := &sessions[i]
		name := uniqueName(taken, export.BaseName(s.Path), o.Format)
		path := filepath.Join(dir, name)
		if _, err := a.exportFile(ctx, cat, s.Ref(), o, path); err != nil {
			failed++
			fmt.Fprintf(a.stderr, "pidex: export %s: %s\n", s.Path, describe(err))
			continue
		}
		fmt.Fprintln(a.stdout, path)
	}
	if !a.quiet {
		fmt.Fprintf(a.stderr, "pidex: exported %d of %d %s into %s\n", len(sessions)-failed, len(sessions), text.Plural(len(sessions), "session", "sessions"), dir)
	}
	if failed > 0 {
		return fmt.Errorf("export sessions: %d of %d could not be written", failed, len(sessions))
	}
	return nil
}

// exportFile writes one session's export to path: whole or not at all
// (a temporary file renamed over it), and never over a session file.
func (a *app) exportFile(ctx context.Context, cat pidex.Catalog, ref pidex.SessionRef, o pidex.ExportOptions, path string) (int64, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return 0, fmt.Errorf("export to %s: %w", path, err)
	}
	if strings.EqualFold(filepath.Ext(abs), ".jsonl") {
		return 0, pidex.Usagef("export to %s: pidex does not write .jsonl files (session files are the agent's)", path)
	}
	if _, err := cat.Resolve(ctx, abs, ""); err == nil {
		return 0, pidex.Usagef("export to %s: that is a session file; pidex never writes over one", path)
	}
	// Written into a temporary file beside it, renamed when whole: a
	// session that cannot be read leaves no file (and JSON is written as
	// it is read, see export.Write).
	tmp, err := os.CreateTemp(filepath.Dir(abs), "."+filepath.Base(abs)+".*")
	if err != nil {
		return 0, fmt.Errorf("write export: %w", err)
	}
	w := bufio.NewWriterSize(tmp, 64<<10)
	if err := export.Write(ctx, cat, ref, o, w); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return 0, err
	}
	err = errors.Join(w.Flush(), tmp.Close())
	if err == nil {
		err = os.Rename(tmp.Name(), abs)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return 0, fmt.Errorf("write export %s: %w", path, err)
	}
	st, err := os.Stat(abs)
	if err != nil {
		return 0, nil
	}
	return st.Size(), nil
}

// uniqueName is base.ext, or base-N.ext when another session of the
// batch took that name (copies of a file share it).
func uniqueName(taken map[string]bool, base, ext string) string {
	name := base + "." + ext
	for n := 2; taken[name]; n++ {
		name = base + "-" + strconv.Itoa(n) + "." + ext
	}
	taken[name] = true
	return name
}
