package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// showCmd is being written (see query/context.go).
func (a *app) showCmd() *cobra.Command {
	return &cobra.Command{
		Use:    "show SESSION",
		Hidden: true,
		RunE:   func(*cobra.Command, []string) error { return errors.New("show: not yet available") },
	}
}
