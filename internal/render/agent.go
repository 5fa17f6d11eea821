package render

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Text for a model (pidex mcp). Session text is anyone's input, and a
// model reads characters a person does not see: besides the control
// characters a terminal obeys (escaped as Safe escapes them), the
// bidirectional controls that make text read other than it shows
// ("Trojan Source": U+202E and its kin), the line and paragraph
// separators some readers break lines at, and the tag characters
// (U+E0000–U+E007F), which carry ASCII no one sees. ForAgent writes each
// of them as an escape (\e, \x9b, \u202e, \U000e0041); newline and tab
// stay, for text whose lines are wanted.

// ForAgent is s with the characters a model must not be handed raw
// escaped: every control character but newline and tab, the
// bidirectional controls, U+2028 and U+2029, and the tag characters.
func ForAgent(s string) string {
	if !hasHidden(s) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case isControl(r):
			b.WriteString(escapeControls(string(r), false))
		case hidden(r) && r > 0xffff:
			fmt.Fprintf(&b, `\U%08x`, r)
		case hidden(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// ForAgentLen is how many characters ForAgent(s) has, without making it.
func ForAgentLen(s string) int {
	n := 0
	for _, r := range s {
		switch {
		case r == '\n' || r == '\t':
			n++
		case isControl(r):
			n += utf8.RuneCountInString(escapeControls(string(r), false))
		case hidden(r) && r > 0xffff:
			n += 10
		case hidden(r):
			n += 6
		default:
			n++
		}
	}
	return n
}

// hidden: a character that changes how text reads without showing.
func hidden(r rune) bool {
	switch {
	case r == 0x061c, r == 0x200e, r == 0x200f: // Arabic letter mark, LRM, RLM
		return true
	case r >= 0x202a && r <= 0x202e: // LRE, RLE, PDF, LRO, RLO
		return true
	case r >= 0x2066 && r <= 0x2069: // LRI, RLI, FSI, PDI
		return true
	case r == 0x2028, r == 0x2029: // line and paragraph separators
		return true
	case r >= 0xe0000 && r <= 0xe007f: // tags
		return true
	}
	return false
}

// hasHidden reports whether ForAgent would change s.
func hasHidden(s string) bool {
	for _, r := range s {
		if (r != '\n' && r != '\t' && isControl(r)) || hidden(r) {
			return true
		}
	}
	return false
}
