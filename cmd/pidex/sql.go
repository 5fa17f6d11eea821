package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/render"
	"github.com/pidex-dev/pidex/postgres"
)

func (a *app) sqlCmd() *cobra.Command {
	var (
		file, format string
		params       []string
		timeout      time.Duration
	)
	cmd := &cobra.Command{
		Use:   "sql [QUERY]",
		Short: "Run a read-only SQL query on the catalog's views (see pidex schema)",
		Long: `Run one SQL statement on the catalog, read-only: the query (an argument, -f
FILE, or standard input) may be SELECT, WITH, VALUES, EXPLAIN or a PRAGMA that
reads; anything that would change the catalog or create, write or attach a
file (INSERT, UPDATE, DELETE, CREATE, DROP, ATTACH, VACUUM INTO, pragmas that
set, load_extension) is refused with exit code 2, and the catalog is left
byte for byte as it was. The stable views are listed by 'pidex schema' and in
docs/sql.md; entry_json(path, offset) and entry_text(path, offset) read an
entry back from its session file.

--format table (the default on a terminal, capped at a screenful), tsv (the
default when piped: tab, newline and backslash escaped as \t, \n, \\), csv,
json (an array of objects keyed by column name; --json is the same) or
ndjson. Rows are printed as they are read, so a long result starts at once.
--param name=value binds :name (integers and reals as numbers). --timeout
interrupts a long query. A statement that fails while it runs (an SQLite
error, a value over 64 MiB, --timeout) exits with code 4.`,
		Args: atMostOne,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			stmt, err := a.sqlText(args, file)
			if err != nil {
				return err
			}
			ps, err := parseParams(params)
			if err != nil {
				return err
			}
			o := pidex.SQLOptions{Statement: stmt, Params: ps, Timeout: timeout}
			if err := o.Check(); err != nil { // before the refresh: a refused statement costs nothing
				return err
			}
			format, err = a.sqlFormat(format, cmd.Flags().Changed("format"))
			if err != nil {
				return err
			}
			eng, err := a.refresh(ctx)
			if err != nil {
				return err
			}
			limit := 0 // a screenful on a terminal
			if format == render.FormatTable && a.io.OutTTY {
				limit = max(a.io.Height-4, 5)
			}
			// Rows print as SQLite produces them: an endless SELECT prints
			// as it goes, in the memory of a row; on a terminal each row is
			// shown at once.
			rw := render.NewRowWriter(a.stdout, format, a.io.OutTTY, limit).Fit(a.io.Width)
			var sink pidex.RowSink = rw
			if a.io.OutTTY {
				sink = flushing{rw, a.flush}
			}
			err = rw.End(eng.SQLStream(ctx, o, sink))
			switch {
			case errors.Is(err, pidex.ErrTimeout) && timeout == 0 && eng.Team():
				return fmt.Errorf("%w (a team catalog's statements stop after %s; --timeout sets another)", err, postgres.DefaultSQLTimeout)
			case errors.Is(err, pidex.ErrTimeout):
				return fmt.Errorf("%w (--timeout %s)", err, timeout)
			}
			return err
		},
	}
	f := cmd.Flags()
	f.StringVarP(&file, "file", "f", "", "read the query from FILE")
	f.StringVar(&format, "format", "", "table, tsv, csv, json or ndjson (default: table on a terminal, tsv when piped)")
	f.StringArrayVar(&params, "param", nil, "bind :NAME to VALUE (NAME=VALUE, repeatable)")
	f.DurationVar(&timeout, "timeout", 0, "interrupt the query after DURATION (e.g. 5s)")
	return cmd
}

// flushing pushes each row out as soon as it is written (a terminal).
type flushing struct {
	*render.RowWriter
	flush func() error
}

func (f flushing) Row(vals []any) (bool, error) {
	more, err := f.RowWriter.Row(vals)
	if err == nil {
		err = f.flush()
	}
	return more, err
}

// sqlText is the query from the argument, -f FILE or standard input.
func (a *app) sqlText(args []string, file string) (string, error) {
	switch {
	case len(args) == 1 && file != "":
		return "", pidex.Usagef("give the query as an argument or with -f, not both")
	case len(args) == 1:
		return args[0], nil
	case file != "":
		b, err := os.ReadFile(file)
		if err != nil {
			return "", fmt.Errorf("read query: %w", err)
		}
		return string(b), nil
	}
	b, err := io.ReadAll(os.Stdin)
	if err != nil {
		return "", fmt.Errorf("read query from standard input: %w", err)
	}
	return string(b), nil
}

func (a *app) sqlFormat(format string, set bool) (string, error) {
	switch {
	case a.json && set && format != render.FormatJSON:
		return "", pidex.Usagef("--json and --format %s disagree: give one of them", format)
	case a.json:
		return render.FormatJSON, nil
	case !set && a.io.OutTTY:
		return render.FormatTable, nil
	case !set:
		return render.FormatTSV, nil
	}
	switch format {
	case render.FormatTable, render.FormatTSV, render.FormatCSV, render.FormatJSON, render.FormatNDJSON:
		return format, nil
	}
	return "", pidex.Usagef("--format %q: want table, tsv, csv, json or ndjson", format)
}

func parseParams(ps []string) (map[string]string, error) {
	out := map[string]string{}
	for _, p := range ps {
		k, v, ok := strings.Cut(p, "=")
		if !ok || k == "" {
			return nil, pidex.Usagef("--param %q: want NAME=VALUE, as in --param since=2026-11-01 for :since", p)
		}
		out[strings.TrimPrefix(k, ":")] = v
	}
	return out, nil
}

func (a *app) schemaCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "schema",
		Short: "Print the SQL views of the catalog and what their columns mean (a team catalog's with --catalog)",
		Args:  a.noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			views := pidex.Views
			if a.catalog != "" { // a team catalog's views name the machine too
				views = pidex.TeamViews()
			}
			if a.json {
				return render.WriteJSON(a.jsonOut(), views)
			}
			_, err := io.WriteString(a.stdout, render.ViewReference(views))
			return err
		},
	}
}
