package web

import (
	"github.com/pidex-dev/pidex/pi"
	"github.com/pidex-dev/pidex/query"
	"github.com/pidex-dev/pidex/render"
)

// The tree panel: the whole entry tree drawn like `pidex tree` — a linear
// run of entries stays at one level, only a branch point indents its
// children — with each entry a link that shows the path to it (pi's /tree
// navigation, read-only).

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
	Leaf     bool // pi's current leaf
	OnPath   bool // on the path being shown
	Selected bool // the end of the path being shown
	Children int  // > 1 at a branch point
}

// treeView groups the tree (children in file order, as `pidex tree`
// draws them). Iterative: a conversation is as deep as it is long.
func treeView(roots []*query.TreeNode, previews map[int64]string, onPath map[string]bool, selected string) *treeGroup {
	render.SortByFileOrder(roots)
	type item struct {
		n *query.TreeNode
		g *treeGroup
	}
	var stack []item
	// branch gives each of nodes a group of its own under g, and queues them.
	branch := func(g *treeGroup, nodes []*query.TreeNode) {
		g.Branches = make([]*treeGroup, len(nodes))
		for i := len(nodes) - 1; i >= 0; i-- {
			g.Branches[i] = &treeGroup{}
			stack = append(stack, item{nodes[i], g.Branches[i]})
		}
	}
	top := &treeGroup{}
	if len(roots) == 1 {
		stack = append(stack, item{roots[0], top})
	} else {
		branch(top, roots)
	}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		n, g := it.n, it.g
		for {
			g.Rows = append(g.Rows, row(n, previews, onPath, selected))
			if len(n.Children) != 1 {
				break
			}
			n = n.Children[0]
		}
		if len(n.Children) > 1 {
			branch(g, n.Children)
		}
	}
	return top
}

func row(n *query.TreeNode, previews map[int64]string, onPath map[string]bool, selected string) treeRow {
	kind := n.Type
	if n.Role != "" {
		kind = n.Role
	}
	r := treeRow{ID: n.ID, Kind: kind, Preview: pi.Cut(previews[n.Offset], 120), Leaf: n.Leaf,
		OnPath: onPath[n.ID], Selected: n.ID == selected, Children: len(n.Children)}
	if n.Label != nil {
		r.Label = *n.Label
	}
	return r
}

// find returns the node with id, nil if none.
func find(roots []*query.TreeNode, id string) *query.TreeNode {
	var found *query.TreeNode
	walk(roots, func(n *query.TreeNode) {
		if n.ID == id && found == nil {
			found = n
		}
	})
	return found
}

// branchLeaf is the leaf of the branch through n that a reader expects
// when jumping to n (a search hit): the session's current leaf if it lies
// below n, else the newest-written continuation, last child at each step.
func branchLeaf(n *query.TreeNode) string {
	if l := findLeaf(n); l != "" {
		return l
	}
	for len(n.Children) > 0 {
		last := n.Children[0]
		for _, c := range n.Children[1:] {
			if c.Offset > last.Offset {
				last = c
			}
		}
		n = last
	}
	return n.ID
}

func findLeaf(n *query.TreeNode) string {
	stack := []*query.TreeNode{n}
	for len(stack) > 0 {
		m := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if m.Leaf {
			return m.ID
		}
		stack = append(stack, m.Children...)
	}
	return ""
}
