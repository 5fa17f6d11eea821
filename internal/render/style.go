package render

import (
	"strings"

	"github.com/pidex-dev/pidex/internal/text"
)

// Colour on a terminal: roles and kinds by their reading class (the same
// classes the web page colours), labels, the current leaf, notes dimmed.
// Only when the output is a terminal and NO_COLOR is not set (the
// IOStreams say so); files and pipes get the text exactly. ANSI's basic
// colours, which every terminal theme maps to something readable.

// style is an SGR sequence ("" for none).
type style string

const (
	styleNone  style = ""
	styleBold  style = "\x1b[1m"
	styleDim   style = "\x1b[2m"
	styleLabel style = "\x1b[1;35m" // bold magenta
	styleLeaf  style = "\x1b[1;32m" // bold green: where pi resumes
	sgrReset         = "\x1b[0m"
)

// classStyles colour a reading class (pi.Class: user, assistant, tool,
// summary, system, custom, meta, other).
var classStyles = map[string]style{
	"user":      "\x1b[1;36m", // bold cyan
	"assistant": "\x1b[32m",   // green
	"tool":      "\x1b[33m",   // yellow
	"summary":   "\x1b[35m",   // magenta
	"system":    "\x1b[34m",   // blue
	"custom":    "\x1b[34m",
	"meta":      styleDim,
	"other":     styleDim,
}

func classStyle(class string) style { return classStyles[class] }

// segment is a piece of a line in one style.
type segment struct {
	text  string
	style style
}

// styled writes segments as one line: cut to width cells (0: no limit)
// across the segments, with their styles when colour is on. The text of
// each segment must be safe for a terminal already (Safe).
func styled(segs []segment, width int, colour bool) string {
	var b strings.Builder
	left := width
	for _, s := range segs {
		t := s.text
		if width > 0 {
			if left <= 0 {
				break
			}
			if w := text.Width(t); w > left {
				t = text.CutWidth(t, left)
				left = 0
			} else {
				left -= w
			}
		}
		if t == "" {
			continue
		}
		if colour && s.style != styleNone {
			b.WriteString(string(s.style) + t + sgrReset)
		} else {
			b.WriteString(t)
		}
	}
	return b.String()
}
