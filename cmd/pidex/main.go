// Command pidex indexes pi coding agent sessions into a SQLite catalog and
// answers questions about them in milliseconds. See README.md.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"

	"github.com/pidex-dev/pidex/schema"
)

// Exit codes, mapped from errors in exactly one place (exitCode).
const (
	exitOK       = 0
	exitError    = 1
	exitUsage    = 2
	exitWarnings = 3 // done, but some input could not be read (see stderr)
)

func main() {
	os.Exit(run(os.Args[1:]))
}

// run executes the CLI and returns its exit code. Separated from main so
// tests (testscript) can run the command in-process.
func run(args []string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	app := newApp(os.Stdout, os.Stderr)
	err := app.execute(ctx, args)
	if err != nil {
		fmt.Fprintln(os.Stderr, "pidex:", err)
	}
	return exitCode(err, app.warned)
}

// errUsage marks command-line mistakes (cobra's own and ours).
var errUsage = schema.ErrUsage

func exitCode(err error, warned bool) int {
	switch {
	case err == nil && warned:
		return exitWarnings
	case err == nil:
		return exitOK
	case errors.Is(err, errUsage):
		return exitUsage
	default:
		return exitError
	}
}
