package render

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/view"
)

// TreeOptions say how a tree is drawn for reading.
type TreeOptions struct {
	// Terminal: the output is a terminal: each line is cut to Width and
	// session text cannot drive it (control characters shown escaped).
	Terminal bool
	Width    int
	// Colour: kinds by their class, labels and the current leaf in
	// colour (a terminal without NO_COLOR).
	Colour bool
}

// TreeText draws a session's tree for reading (laid out by view.Layout):
// one line per entry with its leaf mark, id, type or role, label and
// preview (previews by entry offset). A run stays on one indentation, so a
// thousand-entry conversation does not march off the screen; branches
// indent, marked ├─ and └─. On a terminal each line is cut to the width.
func TreeText(w io.Writer, roots []*pidex.TreeNode, previews map[int64]string, o TreeOptions) error {
	tw := &treeWriter{out: w, previews: previews, opts: o}
	tw.group(view.Layout(roots), "", "")
	return tw.err
}

type treeWriter struct {
	out      io.Writer
	previews map[int64]string
	opts     TreeOptions
	err      error
}

// group draws a run, its first row marked mark and the others prefixed
// with cont, then the branches after it, each under cont.
func (w *treeWriter) group(g *view.TreeGroup, mark, cont string) {
	for i, n := range g.Rows {
		if i == 0 {
			w.line(mark, n)
		} else {
			w.line(cont, n)
		}
	}
	for i, b := range g.Branches {
		if i == len(g.Branches)-1 {
			w.group(b, cont+"└─ ", cont+"   ")
		} else {
			w.group(b, cont+"├─ ", cont+"│  ")
		}
	}
}

func (w *treeWriter) line(mark string, n *pidex.TreeNode) {
	if w.err != nil {
		return
	}
	safe := func(s string) string { return s }
	if w.opts.Terminal {
		safe = Safe
	}
	leaf := segment{" ", styleNone}
	kind := segment{safe(n.Kind()), classStyle(view.NodeClass(n))}
	if n.Leaf {
		leaf, kind.style = segment{"*", styleLeaf}, styleLeaf
	}
	segs := []segment{{mark, styleDim}, leaf, {" " + safe(n.ID) + " ", styleNone}, kind}
	if n.Label != nil {
		segs = append(segs, segment{" ", styleNone}, segment{"[" + safe(*n.Label) + "]", styleLabel})
	}
	if p := w.previews[n.Offset]; p != "" {
		segs = append(segs, segment{"  " + safe(p), styleNone})
	}
	width := 0
	if w.opts.Terminal {
		width = w.opts.Width
	}
	_, w.err = fmt.Fprintln(w.out, styled(segs, width, w.opts.Colour))
}

// nodeFields is a tree node without its children, for JSON.
type nodeFields struct {
	pidex.Entry
	Label          *string `json:"label,omitempty"`
	LabelTimestamp *string `json:"labelTimestamp,omitempty"`
	Leaf           bool    `json:"leaf,omitempty"`
}

func fieldsOf(n *pidex.TreeNode) nodeFields {
	return nodeFields{n.Entry, n.Label, n.LabelTimestamp, n.Leaf}
}

// TreeJSON writes the nested tree compactly, without recursion or
// re-indentation: encoding/json's indenter stops at 10,000 levels and an
// indented 5,000-entry chain would be mostly spaces.
func TreeJSON(w io.Writer, roots []*pidex.TreeNode) error {
	type frame struct {
		nodes []*pidex.TreeNode
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
func FlatTree(roots []*pidex.TreeNode) []FlatNode {
	var out []FlatNode
	type item struct {
		n     *pidex.TreeNode
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
