package view

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/text"
)

// Coverage is what a search says while the text pass lags behind the
// metadata ("" when all the text is indexed).
func Coverage(indexed, total int64) string {
	if indexed >= total {
		return ""
	}
	return fmt.Sprintf("%.0f%% of the session text is indexed so far (%s of %s)",
		100*float64(indexed)/float64(total), text.Bytes(indexed), text.Bytes(total))
}

// Title is what a session is called: its name, else its first message on
// one line, cut to n characters.
func Title(name *string, firstMessage string, n int) string {
	if name != nil && *name != "" {
		return *name
	}
	return text.Cut(text.OneLine(text.Cut(firstMessage, 4*n)), n) // cut first: messages can be megabytes
}

// SessionTitle is Title of a listing row.
func SessionTitle(s *pidex.Session, n int) string { return Title(s.Name, s.FirstMessage, n) }

// Project is what a session's working directory is called, by every face:
// its last element (a Windows path's too, as sessions written on Windows
// carry), "-" without one.
func Project(cwd string) string {
	if cwd == "" {
		return "-"
	}
	return filepath.Base(strings.ReplaceAll(cwd, `\`, "/"))
}
