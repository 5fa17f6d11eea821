package main

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/sync/errgroup"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/engine"
	"github.com/pidex-dev/pidex/internal/httpguard"
	"github.com/pidex-dev/pidex/internal/redact"
	"github.com/pidex-dev/pidex/web"
)

// defaultAddr is where `pidex serve` listens unless told otherwise: a
// fixed port, so the address can be bookmarked, on loopback only.
const defaultAddr = "127.0.0.1:7373"

func (a *app) serveCmd() *cobra.Command {
	var (
		addr, token          string
		open, logAll, redact bool
	)
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Browse, search and count sessions in a web browser (read-only, on loopback)",
		Long: `Serve the catalog over HTTP: the sessions, each session's conversation and
tree, search as you type, the cost report, the activity report (how the work
went: tools and their failures, stop reasons, time, the hours of the week),
and a JSON API under /api/ with the shapes of the CLI's --json (see
docs/serve.md). Pages update within a second when
session files change: the catalog is watched as by 'pidex index --watch'.
With --catalog postgres://… it serves a team catalog, every machine's sessions,
and its pages update within a few seconds of each push (?machine= filters).

The server only reads. It listens on loopback (` + defaultAddr + `) and answers
only requests addressed to that host or localhost. Listening elsewhere
(--addr 0.0.0.0:PORT) requires --token: every request must then carry it
(open the printed URL once: the browser keeps it in a cookie).

The URL is printed on stdout when the server is ready. The log goes to
stderr: a line for every request that fails or takes over half a second
(every request with --log-requests), and for an internal error its cause,
which the browser is not shown.

--redact shows every page, download and API answer with the secrets found
in it replaced by [REDACTED], by the redactor of 'pidex push --redact'
(docs/team.md, Redaction): for serving sessions to people who should not
see the keys in them.`,
		Args: a.noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			// tuneGC's 128 MiB suits a short command; a server rendering a
			// 50 MB session would collect without pause under it. Up for
			// hours, it collects at the default pace instead of tuneGC's
			// (GOGC 400 let the heap reach five times what it held: 1.1 GB
			// resident after a 50 MB session's entries and download at
			// 10,000 sessions, 0.55 GB with them streamed, 0.43 at GOGC 100).
			if os.Getenv("GOGC") == "" {
				debug.SetGCPercent(100)
			}
			if os.Getenv("GOMEMLIMIT") == "" {
				debug.SetMemoryLimit(1 << 30)
			}
			loopback, err := isLoopback(addr)
			if err != nil {
				return err
			}
			if !loopback {
				if token == "" {
					return pidex.Usagef("--addr %s is not a loopback address: anyone who can reach it could read every session; set --token", addr)
				}
				fmt.Fprintf(a.stderr, "pidex: warning: serving on %s, beyond this machine; every request must carry the token\n", addr)
			}
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				return fmt.Errorf("listen on %s: %w", addr, err)
			}
			defer ln.Close()
			a.longLived = true
			a.warnPassword(cmd, "catalog", a.catalog)
			var eng *engine.Engine
			if a.catalog != "" { // a team catalog: the machines' pushes fill it
				if eng, err = a.engine(ctx); err != nil {
					return err
				}
			} else {
				var st *pidex.IndexStats
				if eng, st, err = a.index(ctx, false); err != nil {
					return err
				}
				a.report(st, false)
			}
			bound := ln.Addr().String()
			srv, err := web.New(shownCatalog(eng, redact), web.Options{Addr: bound, Token: token, LogRequests: logAll,
				Log: func(msg string) { fmt.Fprintln(a.stderr, time.Now().Format("15:04:05"), msg) }})
			if err != nil {
				return err
			}
			url := "http://" + bound + "/"
			if token != "" {
				url += "?token=" + token
			}
			fmt.Fprintln(a.stdout, url)
			if err := a.flush(); err != nil {
				return err
			}
			if open {
				openBrowser(url)
			}
			g, gctx := errgroup.WithContext(ctx)
			g.Go(func() error { return srv.Serve(gctx, ln) })
			g.Go(func() error {
				return eng.Watch(gctx, engine.WatchOptions{Text: true, OnRefresh: func(st *pidex.IndexStats, err error) {
					if err != nil {
						fmt.Fprintln(a.stderr, "pidex: refresh:", err)
					} else if len(st.Warnings)+len(st.Errors) > 0 {
						a.report(st, true)
					}
				}})
			})
			err = g.Wait()
			if ctx.Err() != nil {
				return nil // Ctrl-C is how a server ends
			}
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&addr, "addr", defaultAddr, "address to listen on (host:port; port 0 picks a free one)")
	f.StringVar(&token, "token", "", "require this token on every request (mandatory when --addr is not loopback)")
	f.BoolVar(&open, "open", false, "open the URL in the default browser")
	f.BoolVar(&redact, "redact", false, "replace the secrets found in what is shown with [REDACTED], as push --redact does")
	f.BoolVar(&logAll, "log-requests", false, "log every request on stderr (by default: those that fail or take over half a second)")
	return cmd
}

// isLoopback: addr's host is a loopback address or localhost.
func isLoopback(addr string) (bool, error) {
	ok, err := httpguard.IsLoopback(addr)
	if err != nil {
		return false, pidex.Usagef("--addr %q: want host:port, as in --addr 127.0.0.1:7373", addr)
	}
	return ok, nil
}

// openBrowser asks the desktop to open url; failing is not an error (the
// URL is printed anyway).
func openBrowser(url string) {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", url)
	case "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", url)
	default:
		cmd = exec.Command("xdg-open", url)
	}
	if err := cmd.Start(); err == nil {
		go func() { _ = cmd.Wait() }()
	}
}

// shownCatalog is what a server shows: the engine, or with --redact the
// engine's answers redacted (internal/redact, the redactor of push
// --redact).
func shownCatalog(eng *engine.Engine, redacted bool) web.Catalog {
	if redacted {
		return redact.Wrap(eng)
	}
	return eng
}
