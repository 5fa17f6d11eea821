package query

import (
	"context"
	"fmt"
	"math"
	"sort"

	"github.com/jmoiron/sqlx"

	"github.com/pidex-dev/pidex/pi"
	"github.com/pidex-dev/pidex/schema"
)

// TreeNode is one entry of a session's tree, like a node of pi's getTree():
// the entry's fields, its current label, and its children.
type TreeNode struct {
	schema.PathEntry
	Label          *string     `json:"label,omitempty"`
	LabelTimestamp *string     `json:"labelTimestamp,omitempty"`
	Leaf           bool        `json:"leaf,omitempty"` // the current leaf
	Children       []*TreeNode `json:"children"`
}

// Tree returns a session's entry tree with pi's getTree rules: one node per
// id (a later duplicate wins, as in pi's id map); an entry whose parent is
// null, itself or unknown is a root; children ordered by timestamp, file
// order breaking ties. Entries caught in a parent cycle are unreachable
// from any root and, as in pi, are not in the tree.
func Tree(ctx context.Context, db *sqlx.DB, fileID int64) ([]*TreeNode, error) {
	var rows []schema.PathEntry
	err := db.SelectContext(ctx, &rows, `SELECT en.id, en.parent_id, en.type, COALESCE(en.role, '') AS role, en.ts,
		en.offset, en.length, en.line
		FROM edges e JOIN entries en ON en.file_id = e.file_id AND en.offset = e.offset
		WHERE e.file_id = ? ORDER BY en.offset`, fileID)
	if err != nil {
		return nil, fmt.Errorf("load tree: %w", err)
	}
	labels, err := Labels(ctx, db, fileID)
	if err != nil {
		return nil, err
	}
	var leaf *string
	if err := db.GetContext(ctx, &leaf, "SELECT leaf_id FROM sessions WHERE file_id = ?", fileID); err != nil {
		return nil, fmt.Errorf("load leaf: %w", err)
	}
	return buildTree(rows, labels, leaf), nil
}

func buildTree(rows []schema.PathEntry, labels []Label, leaf *string) []*TreeNode {
	byID := make(map[string]*TreeNode, len(rows))
	nodes := make([]*TreeNode, len(rows))
	for i, r := range rows {
		nodes[i] = &TreeNode{PathEntry: r, Children: []*TreeNode{}}
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
	roots := []*TreeNode{}
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
func sortByTime(ns []*TreeNode) {
	if len(ns) < 2 {
		return
	}
	t := make(map[*TreeNode]float64, len(ns))
	for _, n := range ns {
		if ms, ok := pi.ParseDate(n.Timestamp); ok {
			t[n] = float64(ms)
		} else {
			t[n] = math.NaN()
		}
	}
	sort.SliceStable(ns, func(i, j int) bool { return t[ns[i]] < t[ns[j]] })
}
