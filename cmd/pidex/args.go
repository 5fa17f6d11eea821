package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/pidex-dev/pidex"
)

// Argument checks of the commands: each mistake is a usage error (exit
// 2) that says what the command takes and where its help is, rather than
// cobra's untyped messages.

// noArgs: the command takes no arguments.
func (a *app) noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		if err := a.strayValue(cmd, args[0]); err != nil {
			return err
		}
		return pidex.Usagef("%s takes no arguments, got %q (a flag's value goes after its name, as --limit 5; see '%s --help')",
			cmd.Name(), args[0], cmd.CommandPath())
	}
	return nil
}

// oneSession: the command takes one SESSION.
func (a *app) oneSession(cmd *cobra.Command, args []string) error {
	switch {
	case len(args) == 1 && strings.TrimSpace(args[0]) == "":
		return pidex.Usagef("%s needs a SESSION, got an empty one: give its id, a unique prefix of one, its name or its file's path ('pidex list' shows them)",
			cmd.Name())
	case len(args) == 1:
		return nil
	case len(args) == 0:
		return pidex.Usagef("%s needs a SESSION: its id, a unique prefix of one, its name or its file's path ('pidex list' shows them); see '%s --help'",
			cmd.Name(), cmd.CommandPath())
	}
	for _, arg := range args {
		if err := a.strayValue(cmd, arg); err != nil {
			return err
		}
	}
	return pidex.Usagef("%s takes one SESSION (an id, a unique prefix of one, a name or a file path), got %d arguments; see '%s --help'",
		cmd.Name(), len(args), cmd.CommandPath())
}

// arrays are the commands whose --json is an array of objects.
var arrays = map[string]bool{"list": true, "search": true, "show": true, "path": true, "tree": true, "warnings": true}

// strayValue explains an argument that follows a flag taking no value
// (list --json id): the user meant it as the flag's value.
func (a *app) strayValue(cmd *cobra.Command, arg string) error {
	for i := 1; i < len(a.args); i++ {
		if a.args[i] != arg {
			continue
		}
		prev := a.args[i-1]
		var f *pflag.Flag
		switch {
		case strings.HasPrefix(prev, "--"):
			f = cmd.Flags().Lookup(strings.TrimPrefix(prev, "--"))
		case len(prev) == 2 && prev[0] == '-':
			f = cmd.Flags().ShorthandLookup(prev[1:])
		}
		if f == nil || f.Value.Type() != "bool" {
			continue
		}
		if f.Name == "json" {
			jq := "pick some with jq"
			if arrays[cmd.Name()] {
				jq = fmt.Sprintf("pick some with jq, as in pidex %s --json | jq '.[].%s'", cmd.Name(), arg)
			}
			return pidex.Usagef("--json takes no value, so %q is not a field to print: --json prints every field (%s); see '%s --help'",
				arg, jq, cmd.CommandPath())
		}
		return pidex.Usagef("--%s takes no value, so %q is an argument %s does not take; see '%s --help'", f.Name, arg, cmd.Name(), cmd.CommandPath())
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
