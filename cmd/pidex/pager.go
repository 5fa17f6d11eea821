package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
)

// A long reading (show, tree) on a terminal goes through a pager, as git
// and gh do: $PIDEX_PAGER, else $PAGER, else less -FRX (-F quits at once
// when the text fits the screen, -R passes colours, -X leaves the text on
// the screen afterwards). --no-pager, or a pager set empty or to cat,
// writes directly; a file or a pipe is always written directly.

const defaultPager = "less -FRX"

// pagerCommand is the pager to run, "" for none.
func (a *app) pagerCommand() string {
	if a.noPager || !a.io.OutTTY {
		return ""
	}
	cmd := defaultPager
	if v, ok := os.LookupEnv("PIDEX_PAGER"); ok {
		cmd = v
	} else if v, ok := os.LookupEnv("PAGER"); ok {
		cmd = v
	}
	if cmd = strings.TrimSpace(cmd); cmd == "cat" {
		return ""
	}
	return cmd
}

// paged runs write with the pager's input, or with stdout when there is
// no pager. The user may quit the pager before the text is all written:
// that is not an error.
func (a *app) paged(write func(io.Writer) error) error {
	command := a.pagerCommand()
	if command == "" {
		return write(a.stdout)
	}
	out := a.stdout // the pager draws on the terminal itself, unbuffered
	if b, ok := a.stdout.(*bufWriter); ok {
		if err := b.Flush(); err != nil {
			return err
		}
		out = b.file
	}
	if f := strings.Fields(command); !strings.Contains(f[0], "=") {
		if _, err := exec.LookPath(f[0]); err != nil {
			if !a.quiet {
				fmt.Fprintf(a.stderr, "pidex: no pager %q (%v): writing directly; PIDEX_PAGER chooses another, --no-pager none\n", f[0], err)
			}
			return write(a.stdout)
		}
	}
	cmd := pagerProcess(command)
	cmd.Stdout, cmd.Stderr = out, a.io.ErrOut
	cmd.Env = os.Environ()
	if _, ok := os.LookupEnv("LESS"); !ok {
		cmd.Env = append(cmd.Env, "LESS=FRX") // for a PAGER=less without flags
	}
	if _, ok := os.LookupEnv("LV"); !ok {
		cmd.Env = append(cmd.Env, "LV=-c") // lv passes colours with -c
	}
	in, err := cmd.StdinPipe()
	if err == nil {
		err = cmd.Start()
	}
	if err != nil {
		if !a.quiet {
			fmt.Fprintf(a.stderr, "pidex: the pager %q did not start (%v): writing directly; PIDEX_PAGER chooses another, --no-pager none\n", command, err)
		}
		return write(a.stdout)
	}
	pw := &pagerWriter{w: in}
	werr := write(pw)
	in.Close()
	perr := cmd.Wait()
	switch {
	case werr != nil && !pw.gone:
		return werr
	case perr != nil && !pw.gone:
		var ee *exec.ExitError
		if errors.As(perr, &ee) {
			return nil // the pager's own complaint is on the terminal already
		}
		return fmt.Errorf("pager %q: %w", command, perr)
	}
	return nil
}

// pagerProcess runs the pager command through the shell, so that it may
// carry arguments and quotes, as git runs $PAGER.
func pagerProcess(command string) *exec.Cmd {
	if runtime.GOOS == "windows" {
		f := strings.Fields(command)
		return exec.Command(f[0], f[1:]...)
	}
	return exec.Command("/bin/sh", "-c", command)
}

// pagerWriter notes that the pager went away (the user quit it): the rest
// of the text is dropped, and the write reports success.
type pagerWriter struct {
	w    io.Writer
	gone bool
}

func (p *pagerWriter) Write(b []byte) (int, error) {
	if p.gone {
		return len(b), nil
	}
	if _, err := p.w.Write(b); err != nil {
		p.gone = true
	}
	return len(b), nil
}
