package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/pidex-dev/pidex"
)

// A long conversation is a chain as deep as it is long; the tree JSON must
// not hit encoding/json's 10,000-level limit or recurse.
func TestTreeJSONDeepChain(t *testing.T) {
	const n = 25000
	nodes := make([]*pidex.TreeNode, n)
	for i := range nodes {
		nodes[i] = &pidex.TreeNode{Entry: pidex.Entry{ID: "e" + Itoa(int64(i)), Line: int64(i + 2)}, Children: []*pidex.TreeNode{}}
		if i > 0 {
			nodes[i-1].Children = []*pidex.TreeNode{nodes[i]}
		}
	}
	nodes[n-1].Leaf = true
	var b bytes.Buffer
	if err := TreeJSON(&b, nodes[:1]); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.Count(out, "{") != n || strings.Count(out, "}") != n ||
		strings.Count(out, "[") != n+1 || strings.Count(out, "]") != n+1 {
		t.Fatalf("unbalanced JSON for a %d-deep chain", n)
	}
	if !strings.HasPrefix(out, `[{"id":"e0",`) || !strings.HasSuffix(out, `"leaf":true,"children":[`+strings.Repeat("]}", n)+"]\n") {
		t.Fatalf("unexpected framing: %.80s … %.80s", out, out[len(out)-80:])
	}
	flat := FlatTree(nodes[:1])
	if len(flat) != n || flat[n-1].Depth != n-1 || !flat[n-1].Leaf {
		t.Fatalf("flat: %d nodes, last %+v", len(flat), flat[len(flat)-1])
	}
}
