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

// treeGroup is a run of entries and, after its last one, the branches
// that start there.
type treeGroup struct {
	Rows     []treeRow
	Branches []*treeGroup
}

type treeRow struct {
	ID       string
	Kind     string // role, else type
	Preview  string
	Label    string
	Leaf     bool         // pi's current leaf
	OnPath   bool         // on the path being shown
	Selected bool         // the end of the path being shown
	Children int          // > 1 at a branch point
	URL      template.URL // the page with the branch through the node
}

// treeView is the panel's rows, group by group (groups nest as deep as
// the tree branches, not as it is long).
func treeView(g *view.TreeGroup, previews map[int64]string, onPath map[string]bool, selected string, link func(id string) template.URL) *treeGroup {
	out := &treeGroup{Rows: make([]treeRow, len(g.Rows))}
	for i, n := range g.Rows {
		out.Rows[i] = row(n, previews, onPath, selected)
		out.Rows[i].URL = link(n.ID)
	}
	for _, b := range g.Branches {
		out.Branches = append(out.Branches, treeView(b, previews, onPath, selected, link))
	}
	return out
}

func row(n *pidex.TreeNode, previews map[int64]string, onPath map[string]bool, selected string) treeRow {
	r := treeRow{ID: n.ID, Kind: n.Kind(), Preview: text.Cut(previews[n.Offset], 120), Leaf: n.Leaf,
		OnPath: onPath[n.ID], Selected: n.ID == selected, Children: len(n.Children)}
	if n.Label != nil {
		r.Label = *n.Label
	}
	return r
}

// HTML is the tree panel's markup, the nested lists the stylesheet and
// the script expect. It is written here rather than by a template: a
// session of 9,186 entries made html/template call its escapers through
// reflection some 55,000 times, 50 ms of every view of the page. Every
// value is escaped as text (html.EscapeString: & < > ' "), URLs included,
// which are built escaped (sessionURL, url.QueryEscape).
func (g *treeGroup) HTML() template.HTML {
	var b strings.Builder
	g.write(&b)
	return template.HTML(b.String()) // escaped as written
}

func (g *treeGroup) write(b *strings.Builder) {
	b.WriteString(`<ul class="run">`)
	for i := range g.Rows {
		g.Rows[i].write(b)
	}
	for _, br := range g.Branches {
		b.WriteString(`<li class="branch">`)
		br.write(b)
		b.WriteString("</li>\n")
	}
	b.WriteString(`</ul>`)
}

func (r *treeRow) write(b *strings.Builder) {
	b.WriteString(`<li class="node`)
	if r.OnPath {
		b.WriteString(" onpath")
	}
	if r.Selected {
		b.WriteString(" sel")
	}
	fork := r.Children > 1
	if fork {
		b.WriteString(" bp")
	}
	b.WriteString("\">\n<a href=\"")
	b.WriteString(html.EscapeString(string(r.URL)))
	b.WriteString(`" data-id="`)
	b.WriteString(html.EscapeString(r.ID))
	b.WriteString(`"><span class="mark">`)
	if r.Leaf {
		b.WriteString("*")
	}
	b.WriteString(`</span><span class="k">`)
	b.WriteString(html.EscapeString(r.Kind))
	b.WriteString(`</span>`)
	if r.Label != "" {
		b.WriteString(` <span class="label">`)
		b.WriteString(html.EscapeString(r.Label))
		b.WriteString(`</span>`)
	}
	b.WriteString(` <span class="p">`)
	b.WriteString(html.EscapeString(r.Preview))
	b.WriteString(`</span>`)
	if fork {
		b.WriteString(` <span class="fork">`)
		b.WriteString(strconv.Itoa(r.Children))
		b.WriteString(` branches</span>`)
	}
	b.WriteString("</a></li>\n")
}
