package main

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/pidex-dev/pidex"
)

// Argument checks of the commands: each mistake is a usage error (exit
// 2) that says what the command takes and where its help is, rather than
// cobra's untyped messages.

// noArgs: the command takes no arguments.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return pidex.Usagef("%s takes no arguments, got %q (a flag's value goes after its name, as --limit 5; see '%s --help')",
			cmd.Name(), args[0], cmd.CommandPath())
	}
	return nil
}

// oneSession: the command takes one SESSION.
func oneSession(cmd *cobra.Command, args []string) error {
	if len(args) != 1 {
		return pidex.Usagef("%s takes one SESSION (an id, a unique prefix of one, a name or a file path), got %d arguments; see '%s --help'",
			cmd.Name(), len(args), cmd.CommandPath())
	}
	return nil
}

// aQuery: the command takes a query of one or more words.
func aQuery(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return pidex.Usagef("%s needs a QUERY; see '%s --help'", cmd.Name(), cmd.CommandPath())
	}
	return nil
}

// atMostOne: the command takes at most one argument (a quoted statement).
func atMostOne(cmd *cobra.Command, args []string) error {
	if len(args) > 1 {
		return pidex.Usagef("%s takes one QUERY, got %d arguments (quote the statement); see '%s --help'",
			cmd.Name(), len(args), cmd.CommandPath())
	}
	return nil
}

// unknownCommand is the root's argument check: any argument is a command
// pidex does not have.
func unknownCommand(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	hint := ""
	cmd.SuggestionsMinimumDistance = 2
	if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
		hint = " (did you mean " + strings.Join(s, " or ") + "?)"
	}
	return pidex.Usagef("unknown command %q%s; 'pidex --help' lists the commands", args[0], hint)
}

// flagError makes a flag mistake a usage error that points to the help.
func flagError(cmd *cobra.Command, err error) error {
	return pidex.Usagef("%v; see '%s --help'", err, cmd.CommandPath())
}
