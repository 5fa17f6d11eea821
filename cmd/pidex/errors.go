package main

import (
	"errors"
	"strings"
	"unicode"

	"github.com/pidex-dev/pidex"
)

// describe is an error as the CLI says it: an option's value is named by
// its flag (--tz), which is the option's name in kebab case.
func describe(err error) string {
	var oe *pidex.OptionError
	if errors.As(err, &oe) {
		return oe.Named(flagName(oe.Option))
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
