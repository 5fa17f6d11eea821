package htmlview

import (
	"html"
	"strings"
)

// Escape is s as HTML text (or a quoted attribute's value): & < > ' " as
// character references, as html.EscapeString writes them, and NUL as
// U+FFFD, as html/template writes it (an HTML parser would drop it or
// stop on it). Every piece of session text this package writes outside a
// template goes through it.
func Escape(s string) string {
	s = html.EscapeString(s)
	if strings.IndexByte(s, 0) >= 0 {
		s = strings.ReplaceAll(s, "\x00", "\uFFFD")
	}
	return s
}
