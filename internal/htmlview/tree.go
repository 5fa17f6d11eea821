package htmlview

import (
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

// TreePanel writes the panel's markup, the nested lists the stylesheet
// and the script expect, from the laid-out tree. It is written here
// rather than by a template: a session of 9,186 entries made
// html/template call its escapers through reflection some 55,000 times,
// 50 ms of every view of the page. Every value is escaped as text
// (Escape: & < > ' " and NUL), URLs included.
type TreePanel struct {
	Previews map[int64]string
	OnPath   map[string]bool // on the path being shown
	Selected string          // the end of the path being shown
	Link     func(id string) string
	// Ends, when set, gives each entry's link the id of the end of the
	// branch through it (data-end): what a page that switches branches
	// itself needs.
	Ends map[*pidex.TreeNode]*pidex.TreeNode
	b    strings.Builder
}

// HTML is the markup of g.
func (p *TreePanel) HTML(g *view.TreeGroup) template.HTML {
	p.group(g)
	return template.HTML(p.b.String()) // escaped as written
}

// group writes a run of entries and, after its last one, the branches
// that start there (groups nest as deep as the tree branches, not as it
// is long).
func (p *TreePanel) group(g *view.TreeGroup) {
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

func (p *TreePanel) node(n *pidex.TreeNode) {
	b := &p.b
	b.WriteString(`<li class="node`)
	if p.OnPath[n.ID] {
		b.WriteString(" onpath")
	}
	if n.ID == p.Selected {
		b.WriteString(" sel")
	}
	fork := len(n.Children) > 1
	if fork {
		b.WriteString(" bp")
	}
	b.WriteString("\">\n<a href=\"")
	b.WriteString(Escape(p.Link(n.ID)))
	b.WriteString(`" data-id="`)
	b.WriteString(Escape(n.ID))
	if end := p.Ends[n]; end != nil {
		b.WriteString(`" data-end="`)
		b.WriteString(Escape(end.ID))
	}
	b.WriteString(`"><span class="mark">`)
	if n.Leaf {
		b.WriteString("*")
	}
	b.WriteString(`</span><span class="k">`)
	b.WriteString(Escape(n.Kind()))
	b.WriteString(`</span>`)
	if n.Label != nil && *n.Label != "" {
		b.WriteString(` <span class="label">`)
		b.WriteString(Escape(*n.Label))
		b.WriteString(`</span>`)
	}
	b.WriteString(` <span class="p">`)
	b.WriteString(Escape(text.Cut(p.Previews[n.Offset], 120)))
	b.WriteString(`</span>`)
	if fork {
		b.WriteString(` <span class="fork">`)
		b.WriteString(strconv.Itoa(len(n.Children)))
		b.WriteString(` branches</span>`)
	}
	b.WriteString("</a></li>\n")
}
