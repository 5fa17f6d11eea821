package query

import (
	"context"
	"fmt"
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

// entryColumns are a pidex.Entry's columns of entries en, in the order
// scanEntries reads them.
const entryColumns = `en.id, en.parent_id, en.type, COALESCE(en.role, '') AS role, en.ts, en."offset", en.length, en.line`

// Tree is a session's entry tree, like pi's getTree(): children ordered
// by timestamp, file order breaking ties (see BuildTree).
func (rd *Reader) Tree(ctx context.Context, ref pidex.SessionRef, o pidex.TreeOptions) ([]*pidex.TreeNode, error) {
	roots, err := rd.tree(ctx, ref.FileID)
	if err != nil || !o.PathOnly {
		return roots, err
	}
	return pathOnly(roots), nil
}

func (rd *Reader) tree(ctx context.Context, fileID int64) ([]*pidex.TreeNode, error) {
	d := rd.backend().Dialect()
	rows, err := rd.entryRows(ctx, `SELECT `+entryColumns+`
		FROM edges ed JOIN entries en ON en.file_id = ed.file_id AND en."offset" = ed."offset"`+d.sameMachine("en", "ed")+`
		WHERE `+d.FileIs("ed")+` ORDER BY en."offset"`, fileID)
	if err != nil {
		return nil, fmt.Errorf("load tree: %w", err)
	}
	labels, err := rd.labels(ctx, fileID)
	if err != nil {
		return nil, err
	}
	var leaf *string
	db := rd.backend().Rows()
	if err := db.GetContext(ctx, &leaf, db.Rebind("SELECT leaf_id FROM sessions s WHERE "+d.FileIs("s")), fileID); err != nil {
		return nil, sessionError(fileID, err)
	}
	return BuildTree(rows, labels, leaf), nil
}

// entries are every entry of a session in file order (the catalog's
// rows, without their lines).
func (rd *Reader) entries(ctx context.Context, fileID int64) ([]pidex.Entry, error) {
	d := rd.backend().Dialect()
	es, err := rd.entryRows(ctx, `SELECT `+entryColumns+` FROM entries en WHERE `+d.FileIs("en")+` ORDER BY en."offset"`, fileID)
	if err != nil {
		return nil, fmt.Errorf("list entries: %w", err)
	}
	return es, nil
}

// labels are a session's current labels (pi's set/clear semantics).
func (rd *Reader) labels(ctx context.Context, fileID int64) ([]pidex.Label, error) {
	ls := []pidex.Label{}
	b := rd.backend()
	db := b.Rows()
	if err := db.SelectContext(ctx, &ls, db.Rebind(`SELECT target_id, label, ts FROM labels l WHERE `+b.Dialect().FileIs("l")+` ORDER BY "offset"`), fileID); err != nil {
		return nil, fmt.Errorf("list labels: %w", err)
	}
	return ls, nil
}

// entryRows runs a statement whose columns are entryColumns.
func (rd *Reader) entryRows(ctx context.Context, q string, args ...any) ([]pidex.Entry, error) {
	db := rd.backend().Rows()
	return Collect(ctx, db, "read entries", db.Rebind(q), args, func(e *pidex.Entry) []any {
		return []any{&e.ID, &e.ParentID, &e.Type, &e.Role, &e.Timestamp, &e.Offset, &e.Length, &e.Line}
	})
}

// pathOnly keeps only the nodes on the way to the leaf. Iterative: a
// conversation is as deep as it is long.
func pathOnly(roots []*pidex.TreeNode) []*pidex.TreeNode {
	keep := map[*pidex.TreeNode]bool{}
	parent := map[*pidex.TreeNode]*pidex.TreeNode{}
	stack := append([]*pidex.TreeNode(nil), roots...)
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if n.Leaf {
			for m := n; m != nil && !keep[m]; m = parent[m] {
				keep[m] = true
			}
		}
		for _, c := range n.Children {
			parent[c] = n
			stack = append(stack, c)
		}
	}
	prune := func(ns []*pidex.TreeNode) []*pidex.TreeNode {
		out := []*pidex.TreeNode{}
		for _, n := range ns {
			if keep[n] {
				out = append(out, n)
			}
		}
		return out
	}
	for n := range keep {
		n.Children = prune(n.Children)
	}
	return prune(roots)
}
