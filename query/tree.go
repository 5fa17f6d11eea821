package query

import (
	"context"
	"fmt"
	"math"
	"sort"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/js"
)

// Tree returns a session's entry tree with pi's getTree rules: one node per
// id (a later duplicate wins, as in pi's id map); an entry whose parent is
// null, itself or unknown is a root; children ordered by timestamp, file
// order breaking ties. Entries caught in a parent cycle are unreachable
// from any root and, as in pi, are not in the tree.
func (rd *Reader) Tree(ctx context.Context, fileID int64) ([]*pidex.TreeNode, error) {
	var rows []pidex.Entry
	err := rd.db.SelectContext(ctx, &rows, `SELECT en.id, en.parent_id, en.type, COALESCE(en.role, '') AS role, en.ts,
		en.offset, en.length, en.line
		FROM edges e JOIN entries en ON en.file_id = e.file_id AND en.offset = e.offset
		WHERE e.file_id = ? ORDER BY en.offset`, fileID)
	if err != nil {
		return nil, fmt.Errorf("load tree: %w", err)
	}
	labels, err := rd.Labels(ctx, fileID)
	if err != nil {
		return nil, err
	}
	var leaf *string
	if err := rd.db.GetContext(ctx, &leaf, "SELECT leaf_id FROM sessions WHERE file_id = ?", fileID); err != nil {
		return nil, sessionError(fileID, err)
	}
	return buildTree(rows, labels, leaf), nil
}

func buildTree(rows []pidex.Entry, labels []pidex.Label, leaf *string) []*pidex.TreeNode {
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
