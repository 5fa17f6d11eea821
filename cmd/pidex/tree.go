package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pidex-dev/pidex/catalog"
	"github.com/pidex-dev/pidex/query"
	"github.com/pidex-dev/pidex/schema"
)

func (a *app) treeCmd() *cobra.Command {
	var pathOnly, flat bool
	cmd := &cobra.Command{
		Use:   "tree SESSION",
		Short: "Print a session's entry tree (like pi's /tree)",
		Long: `Print the whole entry tree of a session: one line per entry with its type or
role, a short preview, its label, and * on the current leaf. Children are in
file order (the order they were written); a linear run stays at one
indentation, branches indent.
--path-only prints just the root-to-leaf path. --json prints nested nodes
{id, parentId, type, role, timestamp, offset, length, line, label,
labelTimestamp, leaf, children: [...]} like pi's getTree(), children in pi's
order (by timestamp). A long conversation nests as deep as it is long, which
some JSON tools refuse (Python's json past ~1,000 levels, jq past 10,000):
--json --flat prints the same nodes as an array in depth-first order, each
with "depth" and without "children".`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			db, ref, err := a.session(ctx, args[0])
			if err != nil {
				return err
			}
			roots, err := query.Tree(ctx, db.DB, ref.FileID)
			if err != nil {
				return err
			}
			if pathOnly {
				roots = pathOnlyTree(roots)
			}
			if a.json && flat {
				return writeJSONLines(a.stdout, flatTree(roots))
			}
			if a.json {
				return writeTreeJSON(a.stdout, roots)
			}
			sortByFileOrder(roots)
			previews, err := a.previews(ctx, db, ref)
			if err != nil {
				return err
			}
			w := &treeWriter{out: a.stdout, previews: previews, width: terminalWidth(a.stdout), tty: isTerminal(a.stdout)}
			for i, r := range roots {
				w.node(r, "", i == len(roots)-1, len(roots) > 1)
			}
			return w.err
		},
	}
	cmd.Flags().BoolVar(&pathOnly, "path-only", false, "show only the path from the root to the current leaf")
	cmd.Flags().BoolVar(&flat, "flat", false, "with --json: one node per line in tree order, with depth instead of nesting")
	return cmd
}

// sortByFileOrder orders children as they were written. pi's getTree (and
// --json) orders them by timestamp; the two differ only where timestamps run
// backwards (a fork re-appends labels with their original times), and for
// reading, the order of writing is the one that makes sense.
func sortByFileOrder(ns []*query.TreeNode) {
	sort.SliceStable(ns, func(i, j int) bool { return ns[i].Offset < ns[j].Offset })
	for _, n := range ns {
		sortByFileOrder(n.Children)
	}
}

// pathOnlyTree keeps only the nodes on the way to the leaf.
func pathOnlyTree(roots []*query.TreeNode) []*query.TreeNode {
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

// treeWriter draws the tree. A node with one child continues on the same
// indentation, so a thousand-entry conversation does not march off the
// screen; only branch points indent their children.
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
		text = cut(text, w.width)
	}
	_, w.err = fmt.Fprintln(w.out, text)
}

// preview is a one-line summary of an entry for tree and path views.
func preview(e query.Entry) string {
	l := e.Line
	if l == nil {
		return ""
	}
	var s string
	switch l.Type {
	case schema.TypeMessage:
		s = messagePreview(l.Message)
	case schema.TypeModelChange:
		s = l.Provider + "/" + l.ModelID
		if l.ModelID == "" {
			s = l.Model
		}
	case schema.TypeThinkingLevelChange:
		s = l.ThinkingLevel
	case schema.TypeCompaction, schema.TypeBranchSummary:
		s = l.Summary
	case schema.TypeLabel:
		s = "→ " + l.TargetID
		if l.Label != nil && *l.Label != "" {
			s = fmt.Sprintf("%q %s", *l.Label, s)
		} else {
			s = "clear " + s
		}
	case schema.TypeSessionInfo:
		if l.Name != nil {
			s = fmt.Sprintf("name %q", *l.Name)
		}
	case schema.TypeCustom:
		s = l.CustomType
	case schema.TypeCustomMessage:
		s = l.CustomType + ": " + l.Content.Text()
	case schema.TypeContextEdit:
		s = "edit → " + l.TargetID
	case schema.TypeUsage:
		s = l.Kind + " " + l.Provider + "/" + l.Model
	}
	return oneLine(cut(s, 400))
}

func messagePreview(m *schema.Message) string {
	if m == nil {
		return ""
	}
	switch m.NormalizedRole() {
	case schema.RoleToolResult:
		return m.ToolName + ": " + firstLine(m.Content.Text())
	case schema.RoleBashExecution:
		return "$ " + m.Command
	case schema.RoleBranchSummary, schema.RoleCompactionSummary:
		return m.Summary
	}
	if t := m.Content.Text(); strings.TrimSpace(t) != "" {
		return t
	}
	bs, _ := m.Content.Blocks()
	var calls []string
	for _, b := range bs {
		if b.Type == schema.BlockToolCall {
			calls = append(calls, b.Name)
		}
	}
	if len(calls) > 0 {
		return "[tool: " + strings.Join(calls, ", ") + "]"
	}
	if m.ErrorMessage != "" {
		return "[error: " + m.ErrorMessage + "]"
	}
	return ""
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

// previews reads a session's lines back from its file and summarises each.
func (a *app) previews(ctx context.Context, db *catalog.DB, ref schema.SessionRef) (map[int64]string, error) {
	rows, err := query.Entries(ctx, db.DB, ref.FileID)
	if err != nil {
		return nil, err
	}
	es, err := query.Read(ref.Path, rows)
	if err != nil {
		return nil, err
	}
	out := make(map[int64]string, len(es))
	for _, e := range es {
		out[e.Offset] = preview(e)
	}
	return out, nil
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

// writeTreeJSON writes the nested tree compactly, without recursion or
// re-indentation: encoding/json's indenter stops at 10,000 levels and an
// indented 5,000-entry chain would be mostly spaces.
func writeTreeJSON(w io.Writer, roots []*query.TreeNode) error {
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

type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) bytes(b []byte) {
	if e.err == nil {
		_, e.err = e.w.Write(b)
	}
}

func (e *errWriter) str(s string) { e.bytes([]byte(s)) }

// flatNode is one line of --json --flat.
type flatNode struct {
	nodeFields
	Depth int `json:"depth"`
}

// flatTree lists the nodes depth-first, children in order.
func flatTree(roots []*query.TreeNode) []flatNode {
	var out []flatNode
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
		out = append(out, flatNode{fieldsOf(it.n), it.depth})
		for i := len(it.n.Children) - 1; i >= 0; i-- {
			stack = append(stack, item{it.n.Children[i], it.depth + 1})
		}
	}
	return out
}
