package text

import (
	"regexp"
	"sync"
)

// LazyRegexp is a pattern compiled on first use: a package-level
// regexp.MustCompile runs at package initialisation, which every command
// pays for at start, whether it matches anything or not.
func LazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
