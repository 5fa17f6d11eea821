package htmlview

import (
	"html/template"
	"strconv"
	"strings"

	"github.com/pidex-dev/pidex/internal/text"
)

// Markdown for session text, rendered on the server by a deliberately
// small renderer: it escapes every character of the input itself and only
// ever adds its own fixed tags (and href values that are http, https or
// mailto URLs taken from the escaped text, where no quote survives). No
// raw HTML passes through, so a message that contains <script> shows the
// characters. The subset is what assistants write: paragraphs, headings,
// fenced code (highlighted), inline code, bold, italic, strikethrough,
// links, lists, quotes, tables and rules.

// Markdown renders src.
func Markdown(src string) template.HTML {
	var b strings.Builder
	renderBlocks(&b, strings.Split(strings.ReplaceAll(src, "\r\n", "\n"), "\n"), 0)
	return template.HTML(b.String())
}

// The block patterns, matched on raw lines; compiled on first use (only
// a page renders Markdown).
var (
	reFence   = text.LazyRegexp("^ {0,3}(```+|~~~+)\\s*([^`\\s]*)")
	reHeading = text.LazyRegexp(`^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$`)
	reRule    = text.LazyRegexp(`^ {0,3}(?:(?:-\s*){3,}|(?:\*\s*){3,}|(?:_\s*){3,})$`)
	reQuote   = text.LazyRegexp(`^ {0,3}> ?(.*)$`)
	reItem    = text.LazyRegexp(`^( *)([-*+]|\d{1,9}[.)])\s+(.*)$`)
	reTableSp = text.LazyRegexp(`^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$`)
)

// maxNesting bounds quotes and lists inside each other: a line of 10,000
// '>' must not recurse 10,000 times.
const maxNesting = 8

func renderBlocks(b *strings.Builder, lines []string, depth int) {
	for i := 0; i < len(lines); {
		l := lines[i]
		switch {
		case strings.TrimSpace(l) == "":
			i++
		case reFence().MatchString(l):
			i = fence(b, lines, i)
		case reHeading().MatchString(l):
			m := reHeading().FindStringSubmatch(l)
			n := strconv.Itoa(min(len(m[1])+2, 6)) // h1 in a message is a heading inside a page
			b.WriteString("<h" + n + ">" + inline(m[2]) + "</h" + n + ">\n")
			i++
		case reRule().MatchString(l):
			b.WriteString("<hr>\n")
			i++
		case reQuote().MatchString(l) && depth < maxNesting:
			var inner []string
			for ; i < len(lines) && reQuote().MatchString(lines[i]); i++ {
				inner = append(inner, reQuote().FindStringSubmatch(lines[i])[1])
			}
			b.WriteString("<blockquote>\n")
			renderBlocks(b, inner, depth+1)
			b.WriteString("</blockquote>\n")
		case reItem().MatchString(l) && depth < maxNesting:
			i = list(b, lines, i, depth)
		case i+1 < len(lines) && strings.Contains(l, "|") && reTableSp().MatchString(lines[i+1]) && strings.Contains(lines[i+1], "-"):
			i = table(b, lines, i)
		default:
			i = paragraph(b, lines, i)
		}
	}
}

// startsBlock: the line begins something other than paragraph text.
func startsBlock(l string) bool {
	return reFence().MatchString(l) || reHeading().MatchString(l) || reRule().MatchString(l) || reQuote().MatchString(l) || reItem().MatchString(l)
}

func paragraph(b *strings.Builder, lines []string, i int) int {
	var parts []string
	for ; i < len(lines) && strings.TrimSpace(lines[i]) != "" && (len(parts) == 0 || !startsBlock(lines[i])); i++ {
		parts = append(parts, inline(strings.TrimSpace(lines[i])))
	}
	// Chat text means its line breaks: keep them.
	b.WriteString("<p>" + strings.Join(parts, "<br>\n") + "</p>\n")
	return i
}

func fence(b *strings.Builder, lines []string, i int) int {
	m := reFence().FindStringSubmatch(lines[i])
	marker, lang := m[1], strings.ToLower(m[2])
	var code []string
	for i++; i < len(lines); i++ {
		if t := strings.TrimSpace(lines[i]); strings.HasPrefix(t, marker[:3]) && strings.Trim(t, marker[:1]) == "" && len(t) >= len(marker) {
			i++
			break
		}
		code = append(code, lines[i])
	}
	b.WriteString(`<pre class="code"`)
	if lang != "" {
		b.WriteString(` data-lang="` + Escape(lang) + `"`)
	}
	b.WriteString("><code>" + string(highlight(lang, strings.Join(code, "\n"))) + "</code></pre>\n")
	return i
}

// list renders a run of items of one list; an item's further lines are
// the indented or plain lines after it, rendered as blocks (nested lists).
func list(b *strings.Builder, lines []string, i, depth int) int {
	first := reItem().FindStringSubmatch(lines[i])
	indent := len(first[1])
	ordered := first[2][0] >= '0' && first[2][0] <= '9'
	tag := "ul"
	if ordered {
		tag = "ol"
	}
	b.WriteString("<" + tag + ">\n")
	for i < len(lines) {
		m := reItem().FindStringSubmatch(lines[i])
		if m == nil || len(m[1]) != indent || (m[2][0] >= '0' && m[2][0] <= '9') != ordered {
			break
		}
		body := []string{m[3]}
		for i++; i < len(lines); i++ {
			l := lines[i]
			if strings.TrimSpace(l) == "" {
				// A blank line ends the item unless more indented text follows.
				if i+1 < len(lines) && leading(lines[i+1]) > indent {
					body = append(body, "")
					continue
				}
				break
			}
			if mm := reItem().FindStringSubmatch(l); mm != nil && len(mm[1]) <= indent {
				break
			}
			if leading(l) <= indent && startsBlock(l) {
				break
			}
			body = append(body, strings.TrimPrefix(l, strings.Repeat(" ", min(leading(l), indent+2))))
		}
		b.WriteString("<li>")
		if len(body) == 1 {
			b.WriteString(inline(strings.TrimSpace(body[0])))
		} else {
			renderBlocks(b, body, depth+1)
		}
		b.WriteString("</li>\n")
		for i < len(lines) && strings.TrimSpace(lines[i]) == "" && i+1 < len(lines) && reItem().MatchString(lines[i+1]) {
			i++ // a loose list: blank lines between items
		}
	}
	b.WriteString("</" + tag + ">\n")
	return i
}

func leading(l string) int { return len(l) - len(strings.TrimLeft(l, " ")) }

func table(b *strings.Builder, lines []string, i int) int {
	cells := func(l string) []string {
		l = strings.TrimSpace(l)
		l = strings.TrimPrefix(strings.TrimSuffix(l, "|"), "|")
		return strings.Split(l, "|")
	}
	b.WriteString("<table class=\"md\">\n<thead><tr>")
	for _, c := range cells(lines[i]) {
		b.WriteString("<th>" + inline(strings.TrimSpace(c)) + "</th>")
	}
	b.WriteString("</tr></thead>\n<tbody>\n")
	for i += 2; i < len(lines) && strings.Contains(lines[i], "|") && strings.TrimSpace(lines[i]) != ""; i++ {
		b.WriteString("<tr>")
		for _, c := range cells(lines[i]) {
			b.WriteString("<td>" + inline(strings.TrimSpace(c)) + "</td>")
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("</tbody></table>\n")
	return i
}

// Inline patterns, matched on escaped text (so a URL cannot carry a quote
// out of its attribute: Escape turned it into &#34;).
var (
	reLink   = text.LazyRegexp(`\[([^\]\n]+)\]\(((?:https?://|mailto:)(?:[^\s()<>&]|&amp;)+)\)|(https?://(?:[^\s<>&]|&amp;)+)`)
	reStrong = text.LazyRegexp(`\*\*([^\s*](?:[^*]*[^\s*])?)\*\*|__([^\s_](?:[^_]*[^\s_])?)__`)
	reEm     = text.LazyRegexp(`(^|[^\w*])\*([^\s*](?:[^*]*[^\s*])?)\*`)
	reDel    = text.LazyRegexp(`~~([^\s~](?:[^~]*[^\s~])?)~~`)
)

// inline renders one line's (or cell's) inline markup: code spans keep
// their content verbatim, the rest is escaped, then linked and emphasised.
func inline(s string) string {
	var b strings.Builder
	for s != "" {
		i := strings.IndexByte(s, '`')
		if i < 0 {
			b.WriteString(links(Escape(s)))
			break
		}
		n := len(s[i:]) - len(strings.TrimLeft(s[i:], "`"))
		tick := s[i : i+n]
		end := strings.Index(s[i+n:], tick)
		if end < 0 {
			b.WriteString(links(Escape(s[:i+n])))
			s = s[i+n:]
			continue
		}
		b.WriteString(links(Escape(s[:i])))
		b.WriteString("<code>" + Escape(strings.TrimSpace(s[i+n:i+n+end])) + "</code>")
		s = s[i+n+end+n:]
	}
	return b.String()
}

// links turns escaped text's links into anchors; the text around and
// inside them gets emphasis.
func links(s string) string {
	var b strings.Builder
	last := 0
	for _, m := range reLink().FindAllStringSubmatchIndex(s, -1) {
		b.WriteString(emphasis(s[last:m[0]]))
		if m[2] >= 0 {
			b.WriteString(`<a href="` + s[m[4]:m[5]] + `" rel="noopener noreferrer">` + emphasis(s[m[2]:m[3]]) + `</a>`)
			last = m[1]
			continue
		}
		// A bare URL: punctuation at its end belongs to the sentence.
		u := strings.TrimRight(s[m[6]:m[7]], ".,;:!?)]")
		b.WriteString(`<a href="` + u + `" rel="noopener noreferrer">` + u + `</a>`)
		last = m[6] + len(u)
	}
	b.WriteString(emphasis(s[last:]))
	return b.String()
}

func emphasis(s string) string {
	if !strings.ContainsAny(s, "*_~") {
		return s
	}
	s = reStrong().ReplaceAllString(s, "<strong>$1$2</strong>")
	s = reEm().ReplaceAllString(s, "$1<em>$2</em>")
	return reDel().ReplaceAllString(s, "<del>$1</del>")
}
