package pi

import (
	"strings"
)

// Text helpers shared by previews and summaries.

// Cut shortens s to n runes, marking the cut with an ellipsis.
func Cut(s string, n int) string {
	if len(s) <= n { // bytes ≥ runes: nothing to cut
		return s
	}
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	if n < 2 {
		return string(r[:max(n, 0)])
	}
	return string(r[:n-1]) + "…"
}

// OneLine collapses every run of white space (newlines included) to one space.
func OneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// Lines splits text into lines, without trailing blank lines and trailing
// spaces; tabs inside are kept.
func Lines(s string) []string {
	s = strings.TrimRight(strings.ReplaceAll(s, "\r\n", "\n"), " \t\r\n")
	if s == "" {
		return nil
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t\r")
	}
	return lines
}

// FirstLine is the first line of s (trimmed), with " …" when more follow.
func FirstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

// joinText joins the non-empty parts with a newline.
func joinText(parts ...string) string {
	keep := parts[:0:0]
	for _, p := range parts {
		if p != "" {
			keep = append(keep, p)
		}
	}
	return strings.Join(keep, "\n")
}
