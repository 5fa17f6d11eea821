package web

import (
	"html"
	"html/template"
	"strings"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/htmlview"
)

// Highlighting a search's words in the conversation it opened: the
// engine's Marker (the snippets' rule: case and accents folded, code as
// typed, CJK inside running text) says which words match; here they are
// wrapped in <mark> in the HTML the page already made.

// markHTML marks the matches in the text of h, HTML made by this package
// (htmlview's Markdown renderer): its tags are left alone, each run of text
// between them is unescaped, marked and escaped again. It returns the
// number of matches too.
func markHTML(h template.HTML, mark pidex.Marker) (template.HTML, int) {
	src := string(h)
	var b strings.Builder
	n := 0
	for len(src) > 0 {
		lt := strings.IndexByte(src, '<')
		if lt < 0 {
			lt = len(src)
		}
		if lt > 0 {
			t, k := markText(html.UnescapeString(src[:lt]), mark)
			b.WriteString(t)
			n += k
		}
		src = src[lt:]
		if src == "" {
			break
		}
		gt := strings.IndexByte(src, '>')
		if gt < 0 {
			gt = len(src) - 1
		}
		b.WriteString(src[:gt+1]) // a tag this package wrote
		src = src[gt+1:]
	}
	return template.HTML(b.String()), n
}

// markText is text escaped for HTML with its matches in <mark>.
func markText(text string, mark pidex.Marker) (string, int) {
	var b strings.Builder
	n := 0
	for _, s := range mark(text) {
		if s.Hit {
			b.WriteString(`<mark class="q">` + htmlview.Escape(s.Text) + "</mark>")
			n++
		} else {
			b.WriteString(htmlview.Escape(s.Text))
		}
	}
	return b.String(), n
}

// markBlocks highlights the query in the blocks of an entry and opens the
// folds that hold a match; it returns how many it marked.
func markBlocks(bs []htmlview.Block, mark pidex.Marker) int {
	n := 0
	for i := range bs {
		b := &bs[i]
		switch b.Kind {
		case "md":
			var k int
			b.HTML, k = markHTML(b.HTML, mark)
			n += k
		case "line", "pre":
			t, k := markText(b.Text, mark)
			if k > 0 {
				b.HTML, n = template.HTML(t), n+k // markText escaped every piece
			}
		case "fold":
			if k := markBlocks(b.Inner, mark); k > 0 {
				b.Open, n = true, n+k
			}
		}
	}
	return n
}
