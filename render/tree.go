package render

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"

	"github.com/pidex-dev/pidex/query"
	"github.com/pidex-dev/pidex/schema"
)

// TreeText draws a session's tree for reading: one line per entry with its
// leaf mark, id, type or role, label and preview (previews by entry
// offset), children in file order. A node with one child continues on the
// same indentation, so a thousand-entry conversation does not march off
// the screen; only branch points indent their children. On a terminal
// (tty) each line is cut to width.
func TreeText(w io.Writer, roots []*query.TreeNode, previews map[int64]string, tty bool, width int) error {
	SortByFileOrder(roots)
	if tty {
		w = safeWriter{w}
	}
	tw := &treeWriter{out: w, previews: previews, width: width, tty: tty}
	for i, r := range roots {
		tw.node(r, "", i == len(roots)-1, len(roots) > 1)
	}
	return tw.err
}

// SortByFileOrder orders children as they were written. pi's getTree (and
// --json) orders them by timestamp; the two differ only where timestamps run
// backwards (a fork re-appends labels with their original times), and for
// reading, the order of writing is the one that makes sense.
func SortByFileOrder(ns []*query.TreeNode) {
	sort.SliceStable(ns, func(i, j int) bool { return ns[i].Offset < ns[j].Offset })
	for _, n := range ns {
		SortByFileOrder(n.Children)
	}
}

// PathOnly keeps only the nodes on the way to the leaf.
func PathOnly(roots []*query.TreeNode) []*query.TreeNode {
	var keep func(n *query.TreeNode) bool
	keep = func(n *query.TreeNode) bool {
		var kept []*query.TreeNode
		for _, c := range n.Children {
			if keep(c) {
				kept = append(kept, c)
			}
		}
		n.Children = append([]*query.TreeNode{}, kept...)
		return n.Leaf || len(kept) > 0
	}
	out := []*query.TreeNode{}
	for _, r := range roots {
		if keep(r) {
			out = append(out, r)
		}
	}
	return out
}

type treeWriter struct {
	out      io.Writer
	previews map[int64]string
	width    int
	tty      bool
	err      error
}

func (w *treeWriter) node(n *query.TreeNode, prefix string, last, branch bool) {
	for {
		mark, cont := "", prefix
		if branch {
			mark, cont = prefix+"├─ ", prefix+"│  "
			if last {
				mark, cont = prefix+"└─ ", prefix+"   "
			}
		} else {
			mark = prefix
		}
		w.line(mark, n)
		switch len(n.Children) {
		case 0:
			return
		case 1:
			n, prefix, branch = n.Children[0], cont, false
			continue
		}
		for i, c := range n.Children {
			w.node(c, cont, i == len(n.Children)-1, true)
		}
		return
	}
}

func (w *treeWriter) line(mark string, n *query.TreeNode) {
	if w.err != nil {
		return
	}
	leaf := " "
	if n.Leaf {
		leaf = "*"
	}
	kind := n.Type
	if n.Role != "" {
		kind = n.Role
	}
	text := fmt.Sprintf("%s%s %s %s", mark, leaf, n.ID, kind)
	if n.Label != nil {
		text += " [" + *n.Label + "]"
	}
	if p := w.previews[n.Offset]; p != "" {
		text += "  " + p
	}
	if w.tty {
		text = Cut(text, w.width)
	}
	_, w.err = fmt.Fprintln(w.out, text)
}

// nodeFields is a tree node without its children, for JSON.
type nodeFields struct {
	schema.PathEntry
	Label          *string `json:"label,omitempty"`
	LabelTimestamp *string `json:"labelTimestamp,omitempty"`
	Leaf           bool    `json:"leaf,omitempty"`
}

func fieldsOf(n *query.TreeNode) nodeFields {
	return nodeFields{n.PathEntry, n.Label, n.LabelTimestamp, n.Leaf}
}

// TreeJSON writes the nested tree compactly, without recursion or
// re-indentation: encoding/json's indenter stops at 10,000 levels and an
// indented 5,000-entry chain would be mostly spaces.
func TreeJSON(w io.Writer, roots []*query.TreeNode) error {
	type frame struct {
		nodes []*query.TreeNode
		i     int
	}
	bw := &errWriter{w: w}
	bw.str("[")
	stack := []frame{{nodes: roots}}
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		if top.i == len(top.nodes) {
			stack = stack[:len(stack)-1]
			if len(stack) > 0 {
				bw.str("]}") // close the children array and the node
			}
			continue
		}
		n := top.nodes[top.i]
		if top.i > 0 {
			bw.str(",")
		}
		top.i++
		b, err := json.Marshal(fieldsOf(n))
		if err != nil {
			return err
		}
		bw.bytes(b[:len(b)-1]) // the object, still open
		bw.str(`,"children":[`)
		stack = append(stack, frame{nodes: n.Children})
	}
	bw.str("]\n")
	return bw.err
}

// FlatNode is one line of `tree --json --flat`.
type FlatNode struct {
	nodeFields
	Depth int `json:"depth"`
}

// FlatTree lists the nodes depth-first, children in order.
func FlatTree(roots []*query.TreeNode) []FlatNode {
	var out []FlatNode
	type item struct {
		n     *query.TreeNode
		depth int
	}
	stack := make([]item, 0, len(roots))
	for i := len(roots) - 1; i >= 0; i-- {
		stack = append(stack, item{roots[i], 0})
	}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		out = append(out, FlatNode{fieldsOf(it.n), it.depth})
		for i := len(it.n.Children) - 1; i >= 0; i-- {
			stack = append(stack, item{it.n.Children[i], it.depth + 1})
		}
	}
	return out
}
