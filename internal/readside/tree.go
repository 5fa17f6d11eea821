package readside

import (
	"math"
	"sort"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/js"
)

// BuildTree builds a session's entry tree with pi's getTree rules from
// its entries in file order (one per id: a later duplicate wins, as in
// pi's id map), its current labels and its leaf: an entry whose parent is
// null, itself or unknown is a root; children ordered by timestamp, file
// order breaking ties. Entries caught in a parent cycle are unreachable
// from any root and, as in pi, are not in the tree.
func BuildTree(rows []pidex.Entry, labels []pidex.Label, leaf *string) []*pidex.TreeNode {
	byID := make(map[string]*pidex.TreeNode, len(rows))
	nodes := make([]*pidex.TreeNode, len(rows))
	for i, r := range rows {
		nodes[i] = &pidex.TreeNode{Entry: r, Children: []*pidex.TreeNode{}}
		byID[r.ID] = nodes[i]
	}
	for _, l := range labels {
		if n := byID[l.TargetID]; n != nil {
			label, ts := l.Label, l.Timestamp
			n.Label, n.LabelTimestamp = &label, &ts
		}
	}
	if leaf != nil {
		if n := byID[*leaf]; n != nil {
			n.Leaf = true
		}
	}
	roots := []*pidex.TreeNode{}
	for _, n := range nodes {
		p := n.ParentID
		if p == nil || *p == n.ID || byID[*p] == nil {
			roots = append(roots, n)
			continue
		}
		byID[*p].Children = append(byID[*p].Children, n)
	}
	for _, n := range nodes {
		sortByTime(n.Children)
	}
	return roots
}

// sortByTime orders siblings by timestamp like pi's comparator; an
// unparsable timestamp compares equal to everything (JS: NaN), so a
// stable sort keeps file order.
func sortByTime(ns []*pidex.TreeNode) {
	if len(ns) < 2 {
		return
	}
	t := make(map[*pidex.TreeNode]float64, len(ns))
	for _, n := range ns {
		if ms, ok := js.ParseDate(n.Timestamp); ok {
			t[n] = float64(ms)
		} else {
			t[n] = math.NaN()
		}
	}
	sort.SliceStable(ns, func(i, j int) bool { return t[ns[i]] < t[ns[j]] })
}
