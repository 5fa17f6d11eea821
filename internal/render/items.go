package render

import "github.com/pidex-dev/pidex"

// ItemLines renders one item of a Document as Show writes it: its header
// line and its body lines (not indented), for a face that lays items out
// itself (the MCP server sizes and pages them one by one).
func ItemLines(doc *pidex.Document, it *pidex.DocItem, opts ShowOptions) (head string, body []string) {
	r := &showRenderer{opts: opts}
	return r.itemLines(doc, it)
}

// SafeText escapes the control characters of s other than newline and tab
// (see Safe), for text that a client may print on a terminal: an MCP
// client such as pi shows tool results in its terminal interface.
func SafeText(s string) string { return safeText(s) }
