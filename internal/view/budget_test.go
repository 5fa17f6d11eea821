package view

import (
	"slices"
	"strings"
	"testing"

	"github.com/pidex-dev/pidex"
)

// doc is a document of n items [from, from+n) of a branch, each holding
// the given blocks.
func doc(from, n int, class string, blocks ...pidex.Block) *pidex.Document {
	d := &pidex.Document{From: from, To: from + n, Total: from + n + 10}
	for i := range n {
		d.Items = append(d.Items, pidex.DocItem{ID: string(rune('a' + i)), Class: class, Blocks: append([]pidex.Block(nil), blocks...)})
	}
	return d
}

// size measures an item as its blocks' text.
func size(it *pidex.DocItem) int {
	n := 10
	for _, b := range it.Blocks {
		n += len([]rune(b.Text))
		for _, in := range b.Inner {
			n += len([]rune(in.Text))
		}
	}
	return n
}

// One rule bounds every reading: classes, folds, cuts, a total.
func TestFit(t *testing.T) {
	prose := pidex.Block{Kind: pidex.BlockProse, Text: strings.Repeat("x", 500)}
	thinking := pidex.Block{Kind: pidex.BlockThinking, Text: "hmm, let me think"}
	output := pidex.Block{Kind: pidex.BlockOutput, Inner: []pidex.Block{{Kind: pidex.BlockPre, Text: "line 1\nline 2\nline 3\n"}}}
	tests := []struct {
		name  string
		doc   *pidex.Document
		b     pidex.Budget
		room  int
		items int
		cuts  pidex.Cuts
		check func(t *testing.T, d *pidex.Document)
	}{
		{"all fits", doc(0, 3, "user", prose), pidex.Budget{ItemChars: 1000}, 10000, 3, pidex.Cuts{}, nil},
		{"cut to the item budget", doc(0, 2, "user", prose), pidex.Budget{ItemChars: 100}, 10000, 2, pidex.Cuts{Cut: []string{"a", "b"}}, func(t *testing.T, d *pidex.Document) {
			if got := d.Items[0].Blocks[0].Text; !strings.HasPrefix(got, strings.Repeat("x", 100)+"… [cut: 400 more characters]") {
				t.Errorf("cut text %q", got)
			}
		}},
		{"stops at the total", doc(40, 5, "user", prose), pidex.Budget{ItemChars: 1000}, 1100, 2, pidex.Cuts{Stopped: true, Next: 42}, nil},
		{"keeps the first item past room", doc(0, 3, "user", prose), pidex.Budget{ItemChars: 1000}, 10, 1, pidex.Cuts{Stopped: true, Next: 1}, nil},
		{"filters classes", doc(0, 4, "tool", prose), pidex.Budget{ItemChars: 1000, Classes: []string{"user"}}, 10000, 0, pidex.Cuts{Filtered: 4}, nil},
		{"folds thinking and output", doc(0, 1, "assistant", thinking, output), pidex.Budget{ItemChars: 1000}, 10000, 1, pidex.Cuts{Thinking: 1, ToolOutput: 1}, func(t *testing.T, d *pidex.Document) {
			bs := d.Items[0].Blocks
			if bs[0].Text != "[thinking: 17 characters, folded]" || bs[1].Text != "[tool output: 3 lines, 21 characters, folded]" {
				t.Errorf("folds %q, %q", bs[0].Text, bs[1].Text)
			}
		}},
		{"shows what is asked", doc(0, 1, "assistant", thinking, output), pidex.Budget{ItemChars: 1000, Thinking: true, ToolOutput: true}, 10000, 1, pidex.Cuts{}, func(t *testing.T, d *pidex.Document) {
			if d.Items[0].Blocks[0].Kind != pidex.BlockThinking || d.Items[0].Blocks[1].Kind != pidex.BlockOutput {
				t.Errorf("blocks %+v", d.Items[0].Blocks)
			}
		}},
		{"numbers the branch's items", doc(7, 2, "user", prose), pidex.Budget{ItemChars: 1000}, 10000, 2, pidex.Cuts{}, func(t *testing.T, d *pidex.Document) {
			if d.Items[0].N != 8 || d.Items[1].N != 9 {
				t.Errorf("numbers %d, %d", d.Items[0].N, d.Items[1].N)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cuts := Fit(tc.doc, tc.b, tc.room, size)
			if len(tc.doc.Items) != tc.items {
				t.Errorf("%d items, want %d", len(tc.doc.Items), tc.items)
			}
			if strings.Join(cuts.Cut, ",") != strings.Join(tc.cuts.Cut, ",") || cuts.Filtered != tc.cuts.Filtered || cuts.Thinking != tc.cuts.Thinking ||
				cuts.ToolOutput != tc.cuts.ToolOutput || cuts.Stopped != tc.cuts.Stopped || cuts.Next != tc.cuts.Next {
				t.Errorf("cuts %+v, want %+v", cuts, tc.cuts)
			}
			if tc.check != nil {
				tc.check(t, tc.doc)
			}
		})
	}
}

// A cut tool call keeps its arguments as JSON, strings quoted.
func TestFitCutsArguments(t *testing.T) {
	call := pidex.Block{Kind: pidex.BlockToolCall, Name: "write", Args: []pidex.Arg{{Key: "content", Str: strings.Repeat("y", 300), IsStr: true, JSON: `"` + strings.Repeat("y", 300) + `"`}}}
	d := doc(0, 1, "assistant", call)
	Fit(d, pidex.Budget{ItemChars: 100, ToolOutput: true}, 10000, size)
	a := d.Items[0].Blocks[0].Args[0]
	if !strings.HasPrefix(a.JSON, `"yyy`) || !strings.HasSuffix(a.JSON, `characters]"`) || a.Str == strings.Repeat("y", 300) {
		t.Errorf("cut argument %q / %q", a.JSON, a.Str)
	}
}

func TestTake(t *testing.T) {
	tests := []struct {
		sizes []int
		room  int
		want  int
	}{
		{[]int{10, 10, 10}, 100, 3},
		{[]int{10, 10, 10}, 25, 2},
		{[]int{500, 10}, 25, 1}, // the first row always: a page moves forward
		{nil, 10, 0},
	}
	for _, tc := range tests {
		if got := Take(len(tc.sizes), tc.room, func(i int) int { return tc.sizes[i] }); got != tc.want {
			t.Errorf("Take(%v, %d) = %d, want %d", tc.sizes, tc.room, got, tc.want)
		}
	}
}

func TestShare(t *testing.T) {
	for _, tc := range []struct {
		room       int
		need, want []int
	}{
		{100, []int{10, 20, 30}, []int{10, 20, 30}},
		{100, []int{500, 10, 20}, []int{70, 10, 20}},
		{90, []int{500, 500, 10}, []int{40, 40, 10}},
		{30, []int{500, 500, 500}, []int{10, 10, 10}},
		{0, []int{5, 0}, []int{0, 0}},
		{-5, []int{5}, []int{0}},
		{10, nil, []int{}},
	} {
		if got := Share(tc.room, tc.need); !slices.Equal(got, tc.want) {
			t.Errorf("Share(%d, %v) = %v, want %v", tc.room, tc.need, got, tc.want)
		}
	}
}
