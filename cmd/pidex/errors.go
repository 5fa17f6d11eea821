package main

import (
	"errors"
	"fmt"
	"strings"
	"unicode"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/text"
)

// describe is an error as the CLI says it, in the user's words and with
// what to do: an option's value is named by its flag (--tz), which is the
// option's name in kebab case; a reference that matches nothing says
// where the right one is found.
func describe(err error) string {
	var oe *pidex.OptionError
	var nf *pidex.NotFoundError
	var se *pidex.StatementError
	switch {
	case errors.As(err, &oe):
		return oe.Named(flagName(oe.Option))
	case errors.As(err, &nf) && nf.Entry != "":
		return err.Error() + fmt.Sprintf("; 'pidex tree %s' lists its entries", nf.Session)
	case errors.As(err, &nf):
		return err.Error() + " (name a session by its id or the handle 'pidex list' shows, a unique prefix of an id, its name or its file's path)"
	case errors.As(err, &se) && (strings.Contains(se.Error(), "no such table") || strings.Contains(se.Error(), "no such column")):
		return err.Error() + "; 'pidex schema' lists the views and their columns"
	}
	return err.Error()
}

// flagName is the flag of a domain option: "sessionsOnly" is
// --sessions-only.
func flagName(option string) string {
	var b strings.Builder
	b.WriteString("--")
	for _, r := range option {
		if unicode.IsUpper(r) {
			b.WriteByte('-')
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// pflag's messages, which name Go's parsers (strconv.ParseBool: parsing
// "id": invalid syntax): flagError says them again in the user's words.
// Compiled on first use (text.LazyRegexp), as every regexp of the CLI.
var (
	invalidArgument = text.LazyRegexp(`^invalid argument "(.*)" for "(?:-\S, )?(--[^"]+)" flag: (.*)$`)
	needsArgument   = text.LazyRegexp(`^flag needs an argument: (?:'(\S)' in -\S+|(--\S+))$`)
	unknownFlag     = text.LazyRegexp(`^unknown (?:shorthand )?flag: (?:'(\S)' in -\S+|(--\S+))$`)
)

// flagError makes a flag mistake a usage error in the user's words that
// points to the help.
func flagError(cmd *cobra.Command, err error) error {
	help := fmt.Sprintf("see '%s --help'", cmd.CommandPath())
	msg := err.Error()
	if m := invalidArgument().FindStringSubmatch(msg); m != nil {
		value, flag, why := m[1], m[2], m[3]
		switch {
		case strings.HasPrefix(why, "strconv.ParseBool"):
			return pidex.Usagef("%s takes no value (got %s=%s): write %s alone; %s", flag, flag, value, flag, help)
		case strings.HasPrefix(why, "strconv.Parse"), strings.HasPrefix(why, "strconv.Atoi"):
			if strings.Contains(why, "out of range") {
				return pidex.Usagef("%s %q: the number is too large; %s", flag, value, help)
			}
			return pidex.Usagef("%s %q: want a whole number, as in %s 20; %s", flag, value, flag, help)
		case strings.HasPrefix(why, "time: "):
			return pidex.Usagef("%s %q: want a duration with its unit, as in %s 5s, 2m or 1h; %s", flag, value, flag, help)
		}
		return pidex.Usagef("%s %q: %s; %s", flag, value, why, help)
	}
	if m := needsArgument().FindStringSubmatch(msg); m != nil {
		flag := longName(cmd, m[1], m[2])
		return pidex.Usagef("%s needs a value, as in %s VALUE or %s=VALUE; %s", flag, flag, flag, help)
	}
	if m := unknownFlag().FindStringSubmatch(msg); m != nil {
		flag := m[2]
		if m[1] != "" {
			flag = "-" + m[1]
		}
		hint := ""
		if s := suggestFlag(cmd, strings.TrimLeft(flag, "-")); s != "" {
			hint = " (did you mean " + s + "?)"
		}
		return pidex.Usagef("%s has no flag %s%s; '%s --help' lists its flags", cmd.CommandPath(), flag, hint, cmd.CommandPath())
	}
	return pidex.Usagef("%v; %s", err, help)
}

// longName is a flag by its long name (-f is --file).
func longName(cmd *cobra.Command, short, long string) string {
	if long != "" {
		return long
	}
	if f := cmd.Flags().ShorthandLookup(short); f != nil {
		return "--" + f.Name
	}
	return "-" + short
}

// suggestFlag is the command's flag closest to name, if one is close.
func suggestFlag(cmd *cobra.Command, name string) string {
	// A short name is close to too many: only one edit away counts there.
	best, dist := "", 3
	if len(name) <= 3 {
		dist = 2
	}
	visit := func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		if d := pidex.EditDistance(name, f.Name); d < dist || (strings.HasPrefix(f.Name, name) && len(name) >= 3 && dist > 0) {
			best, dist = f.Name, min(d, 1)
		}
	}
	cmd.Flags().VisitAll(visit)
	cmd.InheritedFlags().VisitAll(visit)
	if best == "" {
		return ""
	}
	return "--" + best
}
