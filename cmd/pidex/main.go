// Command pidex indexes pi coding agent sessions into a SQLite catalog and
// answers questions about them in milliseconds. See README.md.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime/debug"
	"runtime/pprof"

	"github.com/pidex-dev/pidex"
)

// Exit codes, mapped from errors in exactly one place (exitCode); docs/output.md,
// Exit codes, lists them.
const (
	exitOK       = 0
	exitError    = 1
	exitUsage    = 2
	exitWarnings = 3 // done, but some input could not be read (see stderr)
	// exitStatement: a SQL statement pidex accepted failed while it ran
	// (SQLite's error, a value too big, --timeout): the statement's
	// failure, told apart from a refused one (usage) and from pidex's own.
	exitStatement = 4
	// exitInternal: a bug (a panic), reported with its stack. Go's own
	// exit code for it is 2, the usage code.
	exitInternal = 5
	exitSignal   = 130 // interrupted (Ctrl-C), as shells report SIGINT
)

func main() {
	tuneGC()
	if p := os.Getenv("PIDEX_CPUPROFILE"); p != "" { // for BENCHMARKS.md work
		if f, err := os.Create(p); err == nil {
			_ = pprof.StartCPUProfile(f)
			code := run(os.Args[1:])
			pprof.StopCPUProfile()
			f.Close()
			os.Exit(code)
		}
	}
	os.Exit(run(os.Args[1:]))
}

// tuneGC trades memory for speed in a short-lived process: collect less
// often (the default collects every time the heap doubles, which cost a
// third of `pidex list` on 3,000 sessions), but never let the heap pass
// 128 MiB, so a cold index of gigabytes stays small. GOGC and GOMEMLIMIT
// in the environment still win.
func tuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(128 << 20)
	}
}

// run executes the CLI and returns its exit code. Separated from main so
// tests (testscript) can run the command in-process.
func run(args []string) (code int) {
	defer func() {
		if p := recover(); p != nil {
			fmt.Fprintf(os.Stderr, "pidex: internal error (a bug; please report it with this message): %v\n%s", p, debug.Stack())
			code = exitInternal
		}
	}()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	out := newBufWriter(os.Stdout)
	app := newApp(out, os.Stderr)
	err := app.execute(ctx, args)
	if ferr := out.Flush(); err == nil && ferr != nil {
		err = fmt.Errorf("write output: %w", ferr)
	}
	err = interrupted(ctx, err)
	app.fail(err)
	return exitCode(err, app.warned)
}

// fail says err on stderr (nil: nothing), escaped on a terminal.
func (a *app) fail(err error) {
	if err != nil {
		fmt.Fprintln(a.stderr, "pidex:", describe(err))
	}
}

// errInterrupted: the run was stopped by Ctrl-C. Whatever failed because
// of it (a batch rolled back: committed batches stand, the next refresh
// goes on from them) is not worth reporting.
var errInterrupted = errors.New("interrupted")

func interrupted(ctx context.Context, err error) error {
	if err != nil && ctx.Err() != nil {
		return errInterrupted
	}
	return err
}

// errUsage marks command-line mistakes (cobra's own and ours).
var errUsage = pidex.ErrUsage

func exitCode(err error, warned bool) int {
	switch {
	case err == nil && warned:
		return exitWarnings
	case err == nil:
		return exitOK
	case errors.Is(err, errInterrupted):
		return exitSignal
	case errors.Is(err, errUsage):
		return exitUsage
	case errors.Is(err, pidex.ErrStatement), errors.Is(err, pidex.ErrTimeout):
		return exitStatement
	default:
		return exitError
	}
}
