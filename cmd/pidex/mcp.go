package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime/debug"
	"sync"

	"github.com/spf13/cobra"
	"golang.org/x/sync/errgroup"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/engine"
	"github.com/pidex-dev/pidex/internal/httpguard"
	"github.com/pidex-dev/pidex/mcp"
)

func (a *app) mcpCmd() *cobra.Command {
	var httpAddr, token string
	var redact bool
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve the session history to a coding agent over the Model Context Protocol (stdio, or --http)",
		Long: `Serve the catalog to an MCP client — pi, or any agent that speaks the Model
Context Protocol — so that the agent can search, read and cost its own
session history in the middle of a task, exactly and in milliseconds, with no
LLM and no network:

  pi mcp add pidex -- pidex mcp

Tools: search_sessions (the search language and filters of 'pidex search'),
list_sessions (the filters and sorts of 'pidex list'), get_session (an
overview: times, models, tokens, cost, abandoned-branch cost, branch points,
labels, compactions), read_session (a window of a branch's entries),
get_context (what pi would send the model at a leaf), export_session (a
session as Markdown), cost_report (the groupings of 'pidex cost'),
activity_report (how the work went, as 'pidex stats': tools and their
failures, stop reasons, errors, turn latency, active time, the busiest hours)
and query_sql (one read-only statement on the views of 'pidex schema'); the resource pidex://sql-views documents the views.
Every result is bounded (about 20,000 characters unless max_chars says
otherwise), says what it left out, and gives a cursor for the next page.

By default the server speaks JSON-RPC on stdin and stdout (nothing else is
written there; logs go to stderr) until the client closes stdin. With --http
ADDR it serves streamable HTTP at http://ADDR/mcp instead, under the rules of
'pidex serve': loopback by default, only requests addressed to ADDR or
localhost, and off loopback only with --token, which every request must then
carry as "Authorization: Bearer TOKEN".

The catalog is refreshed when the server starts (tool calls wait for it, and
search_sessions for the text index too, which takes minutes only on a cold
catalog) and kept current as by 'pidex index --watch'. The server only reads session files;
query_sql cannot change the catalog.

--redact replaces the secrets found in every result with [REDACTED], by the
redactor of 'pidex push --redact' (docs/team.md, Redaction): the agent then
never reads a key that was pasted into a session.`,
		Args: a.noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			// A server beside the agent, up as long as its session, reading
			// 50 MB sessions: not a short command (main's tuneGC). The default
			// GC pace keeps its memory near twice what it holds (GOGC 400 left
			// 700 MB resident after the largest session), under a 1 GiB limit.
			if os.Getenv("GOGC") == "" {
				debug.SetGCPercent(100)
			}
			if os.Getenv("GOMEMLIMIT") == "" {
				debug.SetMemoryLimit(1 << 30)
			}
			var ln net.Listener
			if httpAddr != "" {
				loopback, err := httpguard.IsLoopback(httpAddr)
				if err != nil {
					return pidex.Usagef("--http %q: want host:port, as in --http 127.0.0.1:7374", httpAddr)
				}
				if !loopback && token == "" {
					return pidex.Usagef("--http %s is not a loopback address: anyone who can reach it could read every session; set --token", httpAddr)
				}
				if !loopback {
					fmt.Fprintf(a.stderr, "pidex: warning: serving MCP on %s, beyond this machine; every request must carry the token\n", httpAddr)
				}
				if ln, err = net.Listen("tcp", httpAddr); err != nil {
					return fmt.Errorf("listen on %s: %w", httpAddr, err)
				}
				defer ln.Close()
			} else if token != "" {
				return pidex.Usagef("--token goes with --http (over stdio the client starts the server itself)")
			}
			a.longLived = true
			a.warnPassword(cmd, "catalog", a.catalog)
			eng, err := a.engine(ctx)
			if err != nil {
				return err
			}
			if err := eng.CheckMachine(a.machine); err != nil {
				return err
			}
			ctx, cancel := context.WithCancel(ctx)
			defer cancel()
			ready, textReady := make(chan struct{}), make(chan struct{})
			var once, textOnce sync.Once
			markReady := func() { once.Do(func() { close(ready) }) }
			markTextReady := func() { markReady(); textOnce.Do(func() { close(textReady) }) }
			srv := mcp.New(shownCatalog(eng, redact), mcp.Options{Version: version(), Ready: ready, TextReady: textReady, Machine: a.machine,
				Log: func(msg string) { fmt.Fprintln(a.stderr, "pidex:", msg) }})
			g, gctx := errgroup.WithContext(ctx)
			if a.refreshes(eng) {
				g.Go(func() error {
					defer markTextReady() // a refresh that fails still lets the tools answer from the catalog as it is
					// The metadata first: every tool but search answers after it (a
					// cold catalog of 3,000 sessions takes seconds); search waits for
					// the watcher's first refresh, which brings the text index up to
					// date (minutes on a cold catalog, nothing on a warm one).
					if st, err := eng.Refresh(gctx); err != nil {
						fmt.Fprintln(a.stderr, "pidex: refresh:", err)
					} else {
						a.report(st, false)
					}
					markReady()
					err := eng.Watch(gctx, engine.WatchOptions{Text: true, OnRefresh: func(st *pidex.IndexStats, err error) {
						if err != nil {
							fmt.Fprintln(a.stderr, "pidex: refresh:", err)
						} else if len(st.Warnings)+len(st.Errors) > 0 {
							a.report(st, false)
						}
						markTextReady()
					}})
					if gctx.Err() != nil {
						return nil
					}
					return err
				})
			} else {
				markTextReady() // --no-refresh, or a catalog this process cannot write: answer from it as it is
			}
			if ln == nil {
				g.Go(func() error {
					defer cancel() // the client hung up: stop watching too
					return srv.ServeStdio(gctx, os.Stdin, nopCloser{a.rawStdout()})
				})
			} else {
				url := "http://" + ln.Addr().String() + "/mcp"
				fmt.Fprintln(a.stdout, url)
				if err := a.flush(); err != nil {
					return err
				}
				g.Go(func() error { return serveHTTP(gctx, ln, srv.Handler(ln.Addr().String(), token)) })
			}
			if err := g.Wait(); err != nil && !errors.Is(err, context.Canceled) {
				return err
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&httpAddr, "http", "", "serve streamable HTTP on ADDR (host:port, e.g. 127.0.0.1:7374) instead of stdio")
	f.StringVar(&token, "token", "", "with --http: require \"Authorization: Bearer TOKEN\" on every request (mandatory off loopback)")
	f.BoolVar(&redact, "redact", false, "replace the secrets found in every result with [REDACTED], as push --redact does")
	return cmd
}

// rawStdout is stdout without the CLI's buffer: every JSON-RPC message
// must leave at once.
func (a *app) rawStdout() io.Writer {
	if b, ok := a.stdout.(*bufWriter); ok {
		_ = b.Flush()
		return b.file
	}
	return a.stdout
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// serveHTTP answers on ln until ctx ends, then shuts down.
func serveHTTP(ctx context.Context, ln net.Listener, h http.Handler) error {
	if err := httpguard.Serve(ctx, ln, h); err != nil {
		return fmt.Errorf("serve mcp over http: %w", err)
	}
	return nil
}
