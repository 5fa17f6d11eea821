package indexer

// pathTracker follows a file read from its start (or, after an append,
// its stored entries: lastPaths), so that its last batch can say which
// usage records lie on the current path, and which entries off it,
// without the SQL walk (seconds over a whole cold index; here a map
// lookup per entry).
// The rules are the edges table's: an id's latest entry wins, the leaf is
// the last entry, a loop ends the walk.
type pathTracker struct {
	node    map[string]pathNode
	usage   []int64 // offsets of entries with usage records, file order
	entries []int64 // offsets of every entry, file order
}

type pathNode struct {
	parent *string
	offset int64
}

func newPathTracker() *pathTracker { return &pathTracker{node: map[string]pathNode{}} }

func (t *pathTracker) add(row *entryRow, hasUsage bool) {
	t.node[row.ID] = pathNode{parent: row.ParentID, offset: row.Offset}
	t.entries = append(t.entries, row.Offset)
	if hasUsage && (len(t.usage) == 0 || t.usage[len(t.usage)-1] != row.Offset) {
		t.usage = append(t.usage, row.Offset)
	}
}

// offsets are the offsets of the entries on the path from leaf to the
// root.
func (t *pathTracker) offsets(leaf *string) map[int64]bool {
	path := map[int64]bool{}
	seen := map[string]bool{}
	for id := leaf; id != nil && !seen[*id]; {
		seen[*id] = true
		n, ok := t.node[*id]
		if !ok {
			break
		}
		path[n.offset] = true
		id = n.parent
	}
	return path
}

// paths walks the path from leaf to the root once and returns it (its
// entries' offsets), the usage-bearing entries on it (usage.on_path) and
// the entries off it (off_path, migration 00023): the entries of
// abandoned branches, and an id's earlier entries, which the latest one
// hides.
func (t *pathTracker) paths(leaf *string) (path map[int64]bool, onPath, offPath []int64) {
	path = t.offsets(leaf)
	onPath, offPath = []int64{}, []int64{}
	for _, off := range t.usage {
		if path[off] {
			onPath = append(onPath, off)
		}
	}
	for _, off := range t.entries {
		if !path[off] {
			offPath = append(offPath, off)
		}
	}
	return path, onPath, offPath
}
