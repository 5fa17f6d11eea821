package render

import (
	"fmt"
	"io"
	"strings"
)

// Session text is untrusted: a name, a message or a cwd can hold escape
// sequences (clear the screen, set the title, OSC-8 links, backspaces)
// that a terminal would obey. On a terminal every control character is
// shown escaped instead: \e for ESC, \t \n \r, \xHH for the rest (C0, DEL
// and the C1 controls, which some terminals also obey). Piped TSV escapes
// tab, newline, carriage return and backslash so that a row stays one
// line. JSON is exact: encoding/json escapes control characters itself.

// Safe returns s with every control character escaped, for a terminal.
func Safe(s string) string { return escapeControls(s, false) }

// safeText is Safe for text whose line breaks and tabs are wanted (show
// bodies): only the other control characters are escaped.
func safeText(s string) string { return escapeControls(s, true) }

func escapeControls(s string, keepBreaks bool) string {
	if !hasControl(s) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case keepBreaks && (r == '\n' || r == '\t'), !isControl(r):
			b.WriteRune(r)
		case r == 0x1b:
			b.WriteString(`\e`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		default:
			fmt.Fprintf(&b, `\x%02x`, r)
		}
	}
	return b.String()
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) }

func hasControl(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c == 0x7f {
			return true
		}
		if c == 0xc2 && i+1 < len(s) && s[i+1] >= 0x80 && s[i+1] < 0xa0 { // C1 in UTF-8
			return true
		}
	}
	return false
}

// tsvEscape keeps one row on one line: tab, newline, carriage return and
// backslash are written \t, \n, \r and \\.
func tsvEscape(s string) string { return string(appendTSV(nil, s)) }

// appendTSV appends s to b as tsvEscape escapes it, without a copy of s
// when nothing in it needs escaping (a piped listing writes megabytes of
// first messages: a strings.Replacer and a Join per row were a fifth of
// `pidex list`).
func appendTSV(b []byte, s string) []byte {
	start := 0
	for i := 0; i < len(s); i++ {
		var esc string
		switch s[i] {
		case '\\':
			esc = `\\`
		case '\t':
			esc = `\t`
		case '\n':
			esc = `\n`
		case '\r':
			esc = `\r`
		default:
			continue
		}
		b = append(append(b, s[start:i]...), esc...)
		start = i + 1
	}
	return append(b, s[start:]...)
}

// safeWriter escapes control characters other than newline and tab in
// everything written through it (a terminal's reading views).
type safeWriter struct{ w io.Writer }

// SafeWriter is w with control characters other than newline and tab
// escaped in everything written through it, each Write whole: for the
// messages of a terminal's stderr, which quote session names and paths.
func SafeWriter(w io.Writer) io.Writer { return safeWriter{w} }

func (s safeWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(s.w, safeText(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}
