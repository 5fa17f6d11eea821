package view

import (
	"cmp"
	"slices"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/js"
	"github.com/pidex-dev/pidex/pi"
)

// OverviewParts are what the engine reads for a session's overview.
type OverviewParts struct {
	Info  pidex.Session
	Roots []*pidex.TreeNode
	// OnPath: the entries of the current root-to-leaf path, by id.
	OnPath map[string]bool
	// Previews of the entries OverviewNeeds named, by offset.
	Previews map[int64]string
	// Compactions: the compaction entries read back from the file, by
	// offset (for their token counts and first kept entry).
	Compactions map[int64]*pi.Entry
}

// OverviewNeeds lists the entries an overview shows (branch points, their
// children, labelled entries, compactions), in file order, and which of
// them are compactions: the engine reads only those from the file.
func OverviewNeeds(roots []*pidex.TreeNode) (shown, compactions []pidex.Entry) {
	seen := map[int64]bool{}
	add := func(n *pidex.TreeNode) {
		if !seen[n.Offset] {
			seen[n.Offset] = true
			shown = append(shown, n.Entry)
		}
	}
	Walk(roots, func(n *pidex.TreeNode) bool {
		if len(n.Children) > 1 {
			add(n)
			for _, c := range n.Children {
				add(c)
			}
		}
		if n.Label != nil {
			add(n)
		}
		if pi.KindOf(n.Type).Compaction {
			add(n)
			compactions = append(compactions, n.Entry)
		}
		return true
	})
	// Read back in file order: one forward pass over the file.
	slices.SortFunc(shown, func(a, b pidex.Entry) int { return cmp.Compare(a.Offset, b.Offset) })
	slices.SortFunc(compactions, func(a, b pidex.Entry) int { return cmp.Compare(a.Offset, b.Offset) })
	return shown, compactions
}

// Overview assembles a session's overview (the engine adds the cost of
// abandoned branches): branch points in file order with each branch's
// leaf, size and whether it is current; labels; compactions.
func Overview(p OverviewParts) *pidex.Overview {
	o := &pidex.Overview{Session: p.Info, Roots: len(p.Roots),
		BranchPoints: []pidex.BranchPoint{}, Labels: []pidex.LabelMark{}, Compactions: []pidex.CompactionMark{}}
	size, current := subtreeFacts(p.Roots)
	mark := func(n *pidex.TreeNode) pidex.EntryMark {
		m := pidex.EntryMark{ID: n.ID, Kind: n.Kind(), Line: n.Line, Preview: p.Previews[n.Offset]}
		if ms, ok := js.ParseDate(n.Timestamp); ok {
			t := pidex.Time(ms)
			m.Time = &t
		}
		return m
	}
	var nodes []*pidex.TreeNode
	Walk(p.Roots, func(n *pidex.TreeNode) bool {
		nodes = append(nodes, n)
		return true
	})
	// File order: the order the conversation was written.
	slices.SortFunc(nodes, func(a, b *pidex.TreeNode) int { return cmp.Compare(a.Offset, b.Offset) })
	for _, n := range nodes {
		if len(n.Children) > 1 {
			bp := pidex.BranchPoint{EntryMark: mark(n)}
			for _, c := range inFileOrder(n.Children) {
				bp.Branches = append(bp.Branches, pidex.Branch{EntryMark: mark(c), Leaf: BranchLeaf(c), Entries: size[c], Current: current[c]})
			}
			o.BranchPoints = append(o.BranchPoints, bp)
		}
		if n.Label != nil {
			o.Labels = append(o.Labels, pidex.LabelMark{EntryMark: mark(n), Label: *n.Label, OnBranch: p.OnPath[n.ID]})
		}
		if pi.KindOf(n.Type).Compaction {
			c := pidex.CompactionMark{EntryMark: mark(n), OnBranch: p.OnPath[n.ID]}
			if e := p.Compactions[n.Offset]; e != nil && e.Decoded != nil {
				c.TokensBefore, c.FirstKept = e.Decoded.TokensBefore, e.Decoded.FirstKeptEntryID
			}
			o.Compactions = append(o.Compactions, c)
		}
	}
	return o
}

// subtreeFacts counts the entries under every node (itself included) and
// marks the nodes above the current leaf. Iterative, children after
// parents: a conversation is as deep as it is long.
func subtreeFacts(roots []*pidex.TreeNode) (size map[*pidex.TreeNode]int, current map[*pidex.TreeNode]bool) {
	size, current = map[*pidex.TreeNode]int{}, map[*pidex.TreeNode]bool{}
	var order []*pidex.TreeNode // parents before children
	Walk(roots, func(n *pidex.TreeNode) bool {
		order = append(order, n)
		return true
	})
	for i := len(order) - 1; i >= 0; i-- {
		n := order[i]
		size[n]++
		current[n] = current[n] || n.Leaf
		for _, c := range n.Children {
			size[n] += size[c]
			current[n] = current[n] || current[c]
		}
	}
	return size, current
}
