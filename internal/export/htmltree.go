package export

import (
	"cmp"
	"encoding/json"
	"slices"
	"strings"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/redact"
	"github.com/pidex-dev/pidex/internal/text"
	"github.com/pidex-dev/pidex/internal/view"
)

// What the HTML export reads off the tree.

// treeOrder numbers the entries as the tree panel lists them (view.Layout:
// depth first, children in the order they were written), so that every
// branch's entries come in its order, parents first.
func treeOrder(roots []*pidex.TreeNode) map[string]int {
	order := map[string]int{}
	stack := []*view.TreeGroup{view.Layout(roots)}
	for len(stack) > 0 {
		g := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, n := range g.Rows {
			if _, ok := order[n.ID]; !ok {
				order[n.ID] = len(order)
			}
		}
		for i := len(g.Branches) - 1; i >= 0; i-- {
			stack = append(stack, g.Branches[i])
		}
	}
	return order
}

// kinds counts the entries of every branch by kind (a message's role, or
// the entry's type), most first: "12 user, 30 assistant, …".
func kinds(roots []*pidex.TreeNode) string {
	count := map[string]int{}
	var names []string
	view.Walk(roots, func(n *pidex.TreeNode) bool {
		k := n.Kind()
		if count[k] == 0 {
			names = append(names, k)
		}
		count[k]++
		return true
	})
	slices.SortStableFunc(names, func(a, b string) int { return cmp.Or(cmp.Compare(count[b], count[a]), cmp.Compare(a, b)) })
	parts := make([]string, len(names))
	for i, k := range names {
		parts[i] = text.Count(int64(count[k])) + " " + k
	}
	return strings.Join(parts, ", ")
}

// toolCalls counts the tool calls among blocks.
func toolCalls(bs []pidex.Block) int {
	n := 0
	for _, b := range bs {
		if b.Kind == pidex.BlockToolCall {
			n++
		}
	}
	return n
}

// redactPreviews is previews redacted, in a map of their own (the
// catalog keeps its map between calls).
func redactPreviews(previews map[int64]string) map[int64]string {
	out := make(map[int64]string, len(previews))
	for k, v := range previews {
		out[k], _ = redact.String(v)
	}
	return out
}

// redactLabels redacts the tree's labels (new strings: the nodes' own may
// be shared).
func redactLabels(roots []*pidex.TreeNode) {
	view.Walk(roots, func(n *pidex.TreeNode) bool {
		if n.Label != nil {
			l, _ := redact.String(*n.Label)
			n.Label = &l
		}
		return true
	})
}

// jsonString is s as a JSON string.
func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
