package view

import (
	"sort"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/pi"
)

// TreeGroup is a run of entries, each the only child of the one before,
// and after its last one the branches that start there. A tree drawn this
// way keeps a thousand-entry conversation at one indentation: only a
// branch point indents its children.
type TreeGroup struct {
	Rows     []*pidex.TreeNode
	Branches []*TreeGroup
}

// Layout groups a session's tree for reading, children in the order they
// were written (pi's getTree, and --json, order them by timestamp; the two
// differ only where timestamps run backwards, as when a fork re-appends
// labels with their original times). Several roots are branches of an
// empty top group. Iterative: a conversation is as deep as it is long.
func Layout(roots []*pidex.TreeNode) *TreeGroup {
	type item struct {
		n *pidex.TreeNode
		g *TreeGroup
	}
	var stack []item
	branch := func(g *TreeGroup, nodes []*pidex.TreeNode) {
		nodes = inFileOrder(nodes)
		g.Branches = make([]*TreeGroup, len(nodes))
		for i := len(nodes) - 1; i >= 0; i-- {
			g.Branches[i] = &TreeGroup{}
			stack = append(stack, item{nodes[i], g.Branches[i]})
		}
	}
	top := &TreeGroup{}
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
			g.Rows = append(g.Rows, n)
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

// inFileOrder is nodes ordered as they were written.
func inFileOrder(nodes []*pidex.TreeNode) []*pidex.TreeNode {
	out := append([]*pidex.TreeNode(nil), nodes...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Offset < out[j].Offset })
	return out
}

// Find returns the node with id in a tree, nil if none.
func Find(roots []*pidex.TreeNode, id string) *pidex.TreeNode {
	var found *pidex.TreeNode
	Walk(roots, func(n *pidex.TreeNode) bool {
		if n.ID == id {
			found = n
			return false
		}
		return true
	})
	return found
}

// Walk visits every node, depth first, until visit says stop.
// Iterative: a conversation is as deep as it is long.
func Walk(roots []*pidex.TreeNode, visit func(*pidex.TreeNode) bool) {
	stack := append([]*pidex.TreeNode(nil), roots...)
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if !visit(n) {
			return
		}
		stack = append(stack, n.Children...)
	}
}

// BranchLeaf is the leaf of the branch through n that a reader expects
// when jumping to n (a search hit): the session's current leaf if it lies
// below n, else the newest-written continuation, last child at each step.
func BranchLeaf(n *pidex.TreeNode) string {
	return BranchEnds([]*pidex.TreeNode{n})[n].ID
}

// BranchEnds is BranchLeaf's node for every node of a tree at once, for a
// page that switches branches itself (the HTML export). Children before
// parents: each end is its children's, one pass, however long the
// conversation.
func BranchEnds(roots []*pidex.TreeNode) map[*pidex.TreeNode]*pidex.TreeNode {
	var order []*pidex.TreeNode // parents before children
	Walk(roots, func(n *pidex.TreeNode) bool {
		order = append(order, n)
		return true
	})
	ends := make(map[*pidex.TreeNode]*pidex.TreeNode, len(order))
	for i := len(order) - 1; i >= 0; i-- {
		n := order[i]
		if n.Leaf {
			ends[n] = n
			continue
		}
		var current, newest *pidex.TreeNode
		for _, c := range n.Children {
			if e := ends[c]; e.Leaf {
				current = e
			}
			if newest == nil || c.Offset > newest.Offset {
				newest = c
			}
		}
		switch {
		case current != nil:
			ends[n] = current
		case newest != nil:
			ends[n] = ends[newest]
		default:
			ends[n] = n
		}
	}
	return ends
}

// NodeClass is a tree node's reading class (pi.Class: user, assistant,
// tool, summary, …), which every face styles it by.
func NodeClass(n *pidex.TreeNode) string { return pi.Class(n.Type, n.Role) }
