//go:build unix

package main

import (
	"fmt"
	"os"
	"syscall"

	"github.com/pidex-dev/pidex"
)

// execAgent replaces pidex with the agent (program is its path), in the
// session's folder: the agent gets the terminal, the signals and the exit
// status as if it had been started by hand.
func execAgent(program string, r *pidex.Resume) error {
	if r.Dir != "" {
		if err := os.Chdir(r.Dir); err != nil {
			return fmt.Errorf("enter session folder: %w", err)
		}
	}
	argv := append([]string{r.Program}, r.Args...)
	return fmt.Errorf("start %s: %w", r.Program, syscall.Exec(program, argv, os.Environ()))
}
