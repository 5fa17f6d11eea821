package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/pgtest"
)

func TestMain(m *testing.M) {
	testscript.Main(stopping{m}, map[string]func(){
		"pidex": func() { os.Exit(run(os.Args[1:])) },
	})
}

// stopping runs the tests, then stops the PostgreSQL cluster they may
// have started (pgtest).
type stopping struct{ m *testing.M }

func (s stopping) Run() int {
	code := s.m.Run()
	pgtest.Stop()
	return code
}

// TestScripts runs the CLI scripts in testdata/script: txtar archives with
// session files, commands and their expected stdout/stderr.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			env.Setenv("PIDEX_DB", filepath.Join(env.WorkDir, "catalog.sqlite"))
			env.Setenv("HOME", env.WorkDir)
			env.Setenv("COLUMNS", "100")
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			// exitcode N cmd args...: run a command, expect exit status N.
			"exitcode": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) < 2 {
					ts.Fatalf("usage: exitcode N command [args...]")
				}
				err := ts.Exec(args[1], args[2:]...)
				got := 0
				if err != nil {
					got = -1
					var ee interface{ ExitCode() int }
					if errors.As(err, &ee) {
						got = ee.ExitCode()
					}
				}
				if fmt.Sprint(got) != args[0] {
					ts.Fatalf("exit code %d, want %s (%v)", got, args[0], err)
				}
			},
		},
	})
}

func TestExitCode(t *testing.T) {
	tests := []struct {
		err    error
		warned bool
		want   int
	}{
		{nil, false, exitOK},
		{nil, true, exitWarnings},
		{errors.New("boom"), false, exitError},
		{fmt.Errorf("bad flag: %w", errUsage), true, exitUsage},
		{fmt.Errorf("sql: %w", &pidex.StatementError{Err: errors.New("no such column: x")}), false, exitStatement},
		{fmt.Errorf("%w (--timeout 2s)", pidex.ErrTimeout), false, exitStatement},
		{pidex.Usagef("pidex sql is read-only: DELETE statements are refused"), false, exitUsage},
	}
	for _, tt := range tests {
		if got := exitCode(tt.err, tt.warned); got != tt.want {
			t.Errorf("exitCode(%v, %v) = %d, want %d", tt.err, tt.warned, got, tt.want)
		}
	}
}

// Ctrl-C during a cold index: the interrupted command exits 130 with one
// word, not the rolled-back batch's SQL error.
func TestInterruptedIndex(t *testing.T) {
	root, _ := filepath.Abs(showSessions)
	ctx, cancel := context.WithCancel(context.Background())
	var out, errb bytes.Buffer
	a := newApp(&out, &errb)
	a.progress = &pidex.Progress{}
	go func() { // cancel as soon as the refresh has started reading
		for a.progress.BytesDone.Load() == 0 && ctx.Err() == nil {
			time.Sleep(50 * time.Microsecond)
		}
		cancel()
	}()
	err := interrupted(ctx, a.execute(ctx, []string{"--db", filepath.Join(t.TempDir(), "c.sqlite"), "--sessions", root, "index"}))
	cancel()
	if err != nil && (!errors.Is(err, errInterrupted) || exitCode(err, false) != exitSignal) {
		t.Errorf("interrupted index: %v (exit %d)", err, exitCode(err, false))
	}
	if got := exitCode(interrupted(ctx, errors.New("insert entries: sql: transaction has already been committed or rolled back")), false); got != 130 {
		t.Errorf("exit code %d after an interrupt, want 130", got)
	}
}
