package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"

	"github.com/spf13/cobra"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/render"
)

func (a *app) resumeCmd() *cobra.Command {
	var (
		o     pidex.ResumeOptions
		print bool
	)
	cmd := &cobra.Command{
		Use:   "resume SESSION [--leaf ID] [--fork] [-- AGENT_ARGS...]",
		Short: "Continue a session in the agent that wrote it (pi --session, omp --resume, openclaw resume)",
		Long: `Start the agent that wrote the session on its file, in the session's working
directory, as that agent documents it: pi 1.6.0 "pi --session FILE", oh-my-pi
"omp --resume FILE", OpenClaw "openclaw resume KEY" (the key of its
sessions.json; OpenClaw attaches to its Gateway). --fork starts a new session
from the file instead (pi --fork, omp --fork): the agent writes it, the file
stays as it is. pidex itself never writes a session file.

The agent opens a session at its latest entry. --leaf names another entry: the
command is the same, and pidex says how to reach that entry inside the agent
(pi's and omp's /tree). Arguments after -- go to the agent.

--print prints the command instead of running it; --json prints it as an object
(source, path, program, args, dir, command, leaf, target, fork, notes). Where
the agent is not installed, the folder is gone or the file is not on this
machine, pidex prints the command on stdout, says why on stderr, and exits 1.`,
		Args: a.sessionAndAgentArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			if at := cmd.ArgsLenAtDash(); at >= 0 {
				o.Args = args[at:]
			}
			cat, ref, err := a.session(ctx, args[0])
			if err != nil {
				return err
			}
			r, err := cat.Resume(ctx, ref, o)
			if err != nil {
				return err
			}
			if a.json {
				return render.WriteJSON(a.jsonOut(), r)
			}
			for _, n := range r.Notes {
				fmt.Fprintln(a.stderr, "pidex: note:", n)
			}
			if print {
				_, err := fmt.Fprintln(a.stdout, r.Command)
				return err
			}
			program, why, line := runnable(r)
			if why != "" {
				fmt.Fprintln(a.stdout, line)
				return fmt.Errorf("resume session: %s; the command is on stdout, to run where it can", why)
			}
			a.close() // the agent may run for hours: the catalog is not held open under it
			return a.launch(program, r)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Leaf, "leaf", "", "continue from this entry instead of the latest (pidex says how to reach it in the agent)")
	f.BoolVar(&o.Fork, "fork", false, "start a new session from the file (the agent writes it) instead of continuing the file")
	f.BoolVar(&print, "print", false, "print the command instead of running it")
	return cmd
}

// sessionAndAgentArgs: one SESSION, and after -- anything for the agent.
func (a *app) sessionAndAgentArgs(cmd *cobra.Command, args []string) error {
	if at := cmd.ArgsLenAtDash(); at >= 0 {
		return a.oneSession(cmd, args[:at])
	}
	return a.oneSession(cmd, args)
}

// runnable finds the agent's program, or says why the command cannot run
// here and gives the line to run instead: the command itself, or without
// its cd when the session's folder is gone (the agent then asks where to
// continue).
func runnable(r *pidex.Resume) (program, why, line string) {
	line = r.Command
	if st, err := os.Stat(r.Path); err != nil || !st.Mode().IsRegular() {
		return "", fmt.Sprintf("the session file %s is not on this machine", r.Path), line
	}
	if r.Dir != "" {
		if st, err := os.Stat(r.Dir); err != nil || !st.IsDir() {
			line = pidex.ShellCommand("", r.Program, r.Args...)
			return "", fmt.Sprintf("the session's folder %s is gone: run the command from the folder to continue in (%s asks whether to continue there or fork), or restore the folder", r.Dir, r.Program), line
		}
	}
	program, err := exec.LookPath(r.Program)
	switch {
	case errors.Is(err, exec.ErrNotFound):
		return "", fmt.Sprintf("%s is not installed here (not on PATH; install it with: %s)", r.Program, pidex.Agents[r.Source].Install), line
	case err != nil:
		return "", fmt.Sprintf("%s cannot be started: %v", r.Program, err), line
	}
	return program, "", line
}

// close closes the engine, when one is open.
func (a *app) close() {
	if a.eng != nil {
		a.eng.Close()
		a.eng = nil
	}
}
