package view

import (
	"testing"

	"github.com/pidex-dev/pidex"
)

// The branch through an entry ends at the session's current leaf when it
// lies below the entry, else at the newest-written continuation.
func TestBranchEnds(t *testing.T) {
	// r ─ a ─ b ─ c*        (c: the current leaf)
	//       └ d ─ e         (d written after b)
	//           └ f         (f written after e)
	// r ─ g                 (g written last)
	node := func(id string, off int64, leaf bool, kids ...*pidex.TreeNode) *pidex.TreeNode {
		return &pidex.TreeNode{Entry: pidex.Entry{ID: id, Offset: off}, Leaf: leaf, Children: kids}
	}
	c := node("c", 3, true)
	b := node("b", 2, false, c)
	e := node("e", 5, false)
	f := node("f", 6, false)
	d := node("d", 4, false, e, f)
	a := node("a", 1, false, b, d)
	g := node("g", 7, false)
	r := node("r", 0, false, a, g)
	ends := BranchEnds([]*pidex.TreeNode{r})
	for _, tc := range []struct {
		n    *pidex.TreeNode
		want string
	}{{r, "c"}, {a, "c"}, {b, "c"}, {c, "c"}, {d, "f"}, {e, "e"}, {f, "f"}, {g, "g"}} {
		if got := ends[tc.n].ID; got != tc.want {
			t.Errorf("BranchEnds: %s ends at %s, want %s", tc.n.ID, got, tc.want)
		}
		if got := BranchLeaf(tc.n); got != tc.want {
			t.Errorf("BranchLeaf(%s) = %s, want %s", tc.n.ID, got, tc.want)
		}
	}
	if len(ends) != 8 {
		t.Errorf("%d ends, want one for each of the 8 nodes", len(ends))
	}
}
