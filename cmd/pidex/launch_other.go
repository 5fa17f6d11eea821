//go:build !unix

package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"

	"github.com/pidex-dev/pidex"
)

// execAgent runs the agent (program is its path) in the session's folder
// on pidex's own terminal, and waits for it: this system cannot replace
// a process with another.
func execAgent(program string, r *pidex.Resume) error {
	cmd := exec.Command(program, r.Args...)
	cmd.Dir = r.Dir
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return fmt.Errorf("%s exited with status %d", r.Program, ee.ExitCode())
	}
	if err != nil {
		return fmt.Errorf("start %s: %w", r.Program, err)
	}
	return nil
}
