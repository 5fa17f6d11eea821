package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/engine"
	"github.com/pidex-dev/pidex/internal/render"
	"github.com/pidex-dev/pidex/internal/text"
	"github.com/pidex-dev/pidex/postgres"
)

func (a *app) pushCmd() *cobra.Command {
	var (
		to, tokenFile     string
		watch, redactText bool
		o                 engine.PushOptions
	)
	cmd := &cobra.Command{
		Use:   "push",
		Short: "Mirror this machine's catalog into a team catalog in PostgreSQL",
		Long: `Push this machine's sessions (the catalog of the session roots, refreshed
first) into a team catalog in PostgreSQL, where 'pidex --catalog URL' reads every
machine's sessions side by side: list, tree, path, show, search, cost, sql and
serve answer from it as from a local catalog over all their files.

Only what changed since this machine's last push travels: new and appended
files, rewritten ones, usage flags that another file's change moved, and
removals (a file gone here is gone there). Each transaction carries its files'
rows and their cursors, so a crash or a dropped connection leaves every file
either as before or as after, and the next push goes on from there. The raw
line of every entry travels too: tree, path and show --context work from the
team catalog alone.

This machine's rows are its own (--machine, default the host name): a push
never touches another machine's. With a role per developer (pidex team), the
team catalog's server holds each role to the machines bound to it: pushing
another is refused (permission denied). --project SUBSTRING (repeatable) pushes only
the sessions whose working directory contains one of them, --exclude-project
leaves some out (a session pushed before and now left out is removed).
--redact replaces the secrets found in everything the push sends (text, names,
paths, model ids, labels, tool arguments and results, the raw lines) with
` + "[REDACTED]" + ` before they leave the machine, and counts the replacements:
gitleaks' rules (cloud keys, tokens, API keys, private keys, JWTs…), passwords
in URLs and values assigned to a secret's name (PASSWORD=…, "api_key": "…");
see docs/team.md, Redaction.

--to https://HOST/ pushes to a team server (pidex push-server) instead, with
this machine's token (pidex team add-token), and no database credentials:
the token comes from PIDEX_PUSH_TOKEN, else the file --token-file,
PIDEX_PUSH_TOKEN_FILE or ` + defaultTokenFile() + `, never from the command line.
http:// only to this machine (loopback). The same groups of files travel,
each applied by the server in one transaction.

The URL comes from --to or PIDEX_PG (postgres://user@host/db?sslmode=…, or
postgres://?service=NAME); the password from PGPASSWORD, ~/.pgpass or a
service file, never printed (one in --to with --watch is warned of: anyone on
the machine can read a running command's line). To a host that is not this
machine, TLS with the server's certificate verified is required unless the
URL's sslmode (or PGSSLMODE, or the service) says otherwise.

--watch pushes again after every change under the session roots (changes
coalesced while a push runs) until interrupted. Prints what the push sent;
--json: {machine, files, new, appended, rewritten, rederived, removed, unchanged,
excluded, entries, bytes, redacted, skipped}, one object per push with --watch.`,
		Args: a.noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			if a.catalog != "" {
				return fmt.Errorf("push reads this machine's catalog (--db) and writes the team catalog given by --to; --catalog is for reading one: %w", errUsage)
			}
			if to == "" {
				to = os.Getenv("PIDEX_PG")
			}
			if to == "" {
				return fmt.Errorf("push: no team catalog: give --to postgres://… or set PIDEX_PG: %w", errUsage)
			}
			switch {
			case postgres.IsServerURL(to):
				var err error
				if o.Token, err = a.pushToken(cmd, to, tokenFile); err != nil {
					return err
				}
			case !postgres.IsURL(to):
				return fmt.Errorf("push --to %s: want a postgres:// URL or a team server's https:// URL: %w", postgres.Redacted(to), errUsage)
			default:
				if _, err := postgres.Config(to); err != nil {
					return err
				}
			}
			o.Machine = a.machine
			if o.Machine == "" {
				host, err := os.Hostname()
				if err != nil || host == "" {
					return fmt.Errorf("push: this machine has no host name: give --machine: %w", errUsage)
				}
				o.Machine = host
			}
			o.Redact = redactText
			o.Version = buildName() // for the team catalog's record of who pushed
			a.longLived = watch
			if watch && !postgres.IsServerURL(to) {
				a.warnPassword(cmd, "to", to)
			}
			eng, err := a.engine(ctx)
			if err != nil {
				return err
			}
			if err := a.pushOnce(ctx, eng, to, o, watch); err != nil || !watch {
				return err
			}
			return a.pushWatch(ctx, eng, to, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&to, "to", "", "the team catalog: a postgres:// URL, or a team server's https:// URL (env PIDEX_PG)")
	f.StringVar(&tokenFile, "token-file", "", "a team server: the file holding this machine's token (default $PIDEX_PUSH_TOKEN, else the file $PIDEX_PUSH_TOKEN_FILE, else "+defaultTokenFile()+")")
	f.StringArrayVar(&o.Projects, "project", nil, "push only sessions whose working directory contains SUBSTRING (repeatable)")
	f.StringArrayVar(&o.Exclude, "exclude-project", nil, "leave out sessions whose working directory contains SUBSTRING (repeatable)")
	f.BoolVar(&redactText, "redact", false, "replace the secrets found in what is sent (keys, tokens, private keys, passwords, NAME=secret) with [REDACTED] before they leave")
	f.BoolVar(&watch, "watch", false, "push again after every change under the session roots, until interrupted")
	return cmd
}

// pushOnce refreshes the local catalog and pushes it, reporting the push.
func (a *app) pushOnce(ctx context.Context, eng *engine.Engine, to string, o engine.PushOptions, watch bool) error {
	if !a.noRefresh {
		var st *pidex.IndexStats
		if err := a.drawing(func() (err error) { st, err = eng.Refresh(ctx); return err }); err != nil {
			return err
		}
		a.report(st, false)
	}
	var ps *engine.PushStats
	start := time.Now()
	err := a.drawingAs(pidex.PhasePush, func() (err error) { ps, err = eng.Push(ctx, to, o); return err })
	if err != nil {
		if ps == nil || errors.Is(err, pidex.ErrUsage) {
			return err // nothing was sent
		}
		return fmt.Errorf("%w\n(what was pushed stands: the next push goes on from there)", err)
	}
	if len(ps.Skipped) > 0 && !a.quiet {
		fmt.Fprintf(a.stderr, "pidex: %d file(s) changed while being pushed; the next push sends them\n", len(ps.Skipped))
	}
	switch {
	case a.json && watch:
		return render.WriteJSONLine(a.stdout, ps)
	case a.json:
		return render.WriteJSON(a.jsonOut(), ps)
	}
	secs := time.Since(start).Seconds()
	_, err = fmt.Fprintf(a.stdout, "pushed %s as %s: files %d: new %d, appended %d, rewritten %d, rederived %d, removed %d, unchanged %d, excluded %d\nentries %d, lines %s (%s/s), secrets redacted %d\n",
		postgres.Redacted(to), ps.Machine, ps.Files, ps.New, ps.Appended, ps.Rewritten, ps.Rederived, ps.Removed, ps.Unchanged, ps.Excluded,
		ps.Entries, text.Bytes(ps.Bytes), text.Bytes(int64(float64(ps.Bytes)/max(secs, 1e-3))), ps.Redacted)
	return err
}

// pushWatch pushes after every change under the roots until interrupted.
// The watcher's refreshes only signal: a push runs when the last one is
// done, so changes that come while a push runs make one more push, not
// one each.
func (a *app) pushWatch(ctx context.Context, eng *engine.Engine, to string, o engine.PushOptions) error {
	if err := a.flush(); err != nil {
		return err
	}
	changed := make(chan struct{}, 1)
	watchErr := make(chan error, 1)
	go func() {
		watchErr <- eng.Watch(ctx, engine.WatchOptions{OnRefresh: func(st *pidex.IndexStats, err error) {
			if err != nil {
				fmt.Fprintln(a.stderr, "pidex: refresh:", err)
				return
			}
			if st.Changed() {
				select {
				case changed <- struct{}{}:
				default: // a push is already due
				}
			}
		}})
	}()
	quiet := a.noRefresh
	a.noRefresh = true // the watcher refreshes
	defer func() { a.noRefresh = quiet }()
	for {
		select {
		case <-ctx.Done():
			return nil
		case err := <-watchErr:
			return err
		case <-changed:
		}
		if err := a.pushOnce(ctx, eng, to, o, true); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			fmt.Fprintln(a.stderr, "pidex:", describe(err))
		}
		if err := a.flush(); err != nil {
			return err
		}
	}
}
