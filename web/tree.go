package web

import (
	"html/template"

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
