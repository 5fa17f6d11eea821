package web

import (
	"html"
	"html/template"
	"strconv"
	"strings"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/text"
	"github.com/pidex-dev/pidex/internal/view"
)

// The tree panel: the whole entry tree laid out as `pidex tree` draws it
// (view.Layout: a run of entries stays at one level, only a branch point
// indents its children), each entry a link that shows the path to it
// (pi's /tree navigation, read-only).

// treePanel writes the panel's markup, the nested lists the stylesheet
// and the script expect, from the laid-out tree. It is written here
// rather than by a template: a session of 9,186 entries made
// html/template call its escapers through reflection some 55,000 times,
// 50 ms of every view of the page. Every value is escaped as text
// (html.EscapeString: & < > ' "), URLs included.
type treePanel struct {
	previews map[int64]string
	onPath   map[string]bool // on the path being shown
	selected string          // the end of the path being shown
	link     func(id string) string
	b        strings.Builder
}

// html is the markup of g.
func (p *treePanel) html(g *view.TreeGroup) template.HTML {
	p.group(g)
	return template.HTML(p.b.String()) // escaped as written
}

// group writes a run of entries and, after its last one, the branches
// that start there (groups nest as deep as the tree branches, not as it
// is long).
func (p *treePanel) group(g *view.TreeGroup) {
	p.b.WriteString(`<ul class="run">`)
	for _, n := range g.Rows {
		p.node(n)
	}
	for _, br := range g.Branches {
		p.b.WriteString(`<li class="branch">`)
		p.group(br)
		p.b.WriteString("</li>\n")
	}
	p.b.WriteString(`</ul>`)
}

func (p *treePanel) node(n *pidex.TreeNode) {
	b := &p.b
	b.WriteString(`<li class="node`)
	if p.onPath[n.ID] {
		b.WriteString(" onpath")
	}
	if n.ID == p.selected {
		b.WriteString(" sel")
	}
	fork := len(n.Children) > 1
	if fork {
		b.WriteString(" bp")
	}
	b.WriteString("\">\n<a href=\"")
	b.WriteString(html.EscapeString(p.link(n.ID)))
	b.WriteString(`" data-id="`)
	b.WriteString(html.EscapeString(n.ID))
	b.WriteString(`"><span class="mark">`)
	if n.Leaf {
		b.WriteString("*")
	}
	b.WriteString(`</span><span class="k">`)
	b.WriteString(html.EscapeString(n.Kind()))
	b.WriteString(`</span>`)
	if n.Label != nil && *n.Label != "" {
		b.WriteString(` <span class="label">`)
		b.WriteString(html.EscapeString(*n.Label))
		b.WriteString(`</span>`)
	}
	b.WriteString(` <span class="p">`)
	b.WriteString(html.EscapeString(text.Cut(p.previews[n.Offset], 120)))
	b.WriteString(`</span>`)
	if fork {
		b.WriteString(` <span class="fork">`)
		b.WriteString(strconv.Itoa(len(n.Children)))
		b.WriteString(` branches</span>`)
	}
	b.WriteString("</a></li>\n")
}
