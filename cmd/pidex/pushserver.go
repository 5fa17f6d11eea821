package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/postgres"
)

// defaultPushAddr is where `pidex push-server` listens unless told
// otherwise: loopback, behind a proxy that terminates TLS, or with
// --tls-cert and --tls-key anywhere.
const defaultPushAddr = "127.0.0.1:7374"

func (a *app) pushServerCmd() *cobra.Command {
	var to, addr, cert, key string
	cmd := &cobra.Command{
		Use:   "push-server",
		Short: "Receive pushes over HTTPS from machines with a token, and write them into a team catalog",
		Long: `Receive the pushes of machines that hold a token (pidex team add-token) and no
database credentials: 'pidex push --to https://HOST/' sends what it would
write into the team catalog, and the server writes it with its own role (the
one of --to or PIDEX_PG), each group of files in one transaction, committed
only when the whole group arrived: a client or a server killed mid-push
leaves every file as before or as after, and the next push goes on from
what the team catalog holds.

Each request carries its machine's token: an unknown or revoked token is
refused (401), a token for other machines too (403). The token's machines
are the only ones it writes; with a role bound to them (add-token --role),
PostgreSQL's row-level security holds the server to them as well.

Listening beyond this machine (--addr 0.0.0.0:PORT) requires TLS:
--tls-cert and --tls-key (PEM files); on loopback (the default, ` + defaultPushAddr + `)
plain HTTP serves a proxy on the same machine that terminates TLS. Prints
its URL on stdout when ready; a line on stderr for every refused or failed
request.`,
		Args: a.noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			if to == "" {
				to = os.Getenv("PIDEX_PG")
			}
			if to == "" || !postgres.IsURL(to) {
				return pidex.Usagef("push-server: the team catalog to write: give --to postgres://… or set PIDEX_PG")
			}
			if (cert == "") != (key == "") {
				return pidex.Usagef("push-server: --tls-cert and --tls-key go together")
			}
			loopback, err := isLoopback(addr)
			if err != nil {
				return err
			}
			if !loopback && cert == "" {
				return pidex.Usagef("push-server --addr %s is not a loopback address: pushes carry every session's text and a token; give --tls-cert and --tls-key (or listen on loopback behind a proxy that terminates TLS)", addr)
			}
			a.longLived = true
			a.warnPassword(cmd, "to", to)
			st, err := postgres.Open(ctx, to, postgres.Options{Migrate: true, Version: buildName()})
			if err != nil {
				return err
			}
			defer st.Close()
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				return fmt.Errorf("listen on %s: %w", addr, err)
			}
			defer ln.Close()
			srv := &http.Server{
				Handler: st.PushHandler(postgres.PushServerOptions{Version: buildName(),
					Log: func(msg string) { fmt.Fprintln(a.stderr, time.Now().Format("15:04:05"), msg) }}),
				ReadHeaderTimeout: 30 * time.Second,
				IdleTimeout:       2 * time.Minute,
			}
			scheme := "http"
			if cert != "" {
				scheme = "https"
			}
			fmt.Fprintf(a.stdout, "%s://%s/\n", scheme, ln.Addr())
			if err := a.flush(); err != nil {
				return err
			}
			done := make(chan error, 1)
			go func() {
				if cert != "" {
					done <- srv.ServeTLS(ln, cert, key)
				} else {
					done <- srv.Serve(ln)
				}
			}()
			select {
			case err := <-done:
				return fmt.Errorf("push-server: %w", err)
			case <-ctx.Done():
			}
			// Ctrl-C: the requests under way end (their transactions roll
			// back unless they committed); the clients push again later.
			sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
				return err
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&to, "to", "", "the team catalog to write: a postgres:// URL (env PIDEX_PG), as the server's role")
	f.StringVar(&addr, "addr", defaultPushAddr, "address to listen on (host:port; port 0 picks a free one)")
	f.StringVar(&cert, "tls-cert", "", "serve HTTPS with this certificate (PEM; required when --addr is not loopback)")
	f.StringVar(&key, "tls-key", "", "the certificate's private key (PEM)")
	return cmd
}
