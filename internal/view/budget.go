package view

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/js"
	"github.com/pidex-dev/pidex/internal/text"
)

// Budgets: how a reading is bounded for a model's context window. One
// rule for every face that hands a Document to an agent: items outside
// the budget's classes are dropped, thinking and tool output are folded
// unless asked for, each item's text is cut to the item budget, and the
// items stop when the total is spent, with Cuts saying what was left out.

// Fit bounds doc by b, in place. room is what the items may take in all
// (the face has measured its own header); measure is the size of an item
// as the face renders it, after folding and cutting. The first item kept
// is kept even past room (it is already within the item budget), so a
// page always moves forward. Every item's N is its number in the branch
// (or the context), from 1, so that a filtered page still says where its
// items are.
func Fit(doc *pidex.Document, b pidex.Budget, room int, measure func(*pidex.DocItem) int) pidex.Cuts {
	var cuts pidex.Cuts
	kept := doc.Items[:0]
	used := 0
	for i := range doc.Items {
		it := doc.Items[i]
		if !doc.Context {
			it.N = doc.From + i + 1 // the items left are numbered as on the branch
		}
		if !b.Keeps(it.Class) {
			cuts.Filtered++
			continue
		}
		if foldItem(&it, b, &cuts) {
			cuts.Cut = append(cuts.Cut, it.ID)
		}
		size := measure(&it)
		if len(kept) > 0 && used+size > room {
			cuts.Stopped, cuts.Next = true, doc.From+i
			break
		}
		used += size
		kept = append(kept, it)
	}
	doc.Items = kept
	return cuts
}

// Take is how many of n rows fit in room characters, size(i) being the
// characters row i takes: at least one, so a page always moves forward.
func Take(n, room int, size func(i int) int) int {
	used := 0
	for i := range n {
		used += size(i)
		if i > 0 && used > room {
			return i
		}
	}
	return n
}

// foldItem folds what b does not show and cuts the item's text to
// b.ItemChars; it reports whether text was cut.
func foldItem(it *pidex.DocItem, b pidex.Budget, cuts *pidex.Cuts) bool {
	c := cutter{left: b.ItemChars}
	out := make([]pidex.Block, 0, len(it.Blocks))
	for _, bl := range it.Blocks {
		switch {
		case bl.Kind == pidex.BlockThinking && !bl.Redacted && !b.Thinking:
			cuts.Thinking++
			bl = pidex.Block{Kind: pidex.BlockLine, Text: fmt.Sprintf("[thinking: %s characters, folded]", text.Count(int64(utf8.RuneCountInString(bl.Text))))}
		case bl.Kind == pidex.BlockOutput && !b.ToolOutput:
			cuts.ToolOutput++
			bl = pidex.Block{Kind: pidex.BlockLine, Text: "[" + outputSize(bl.Inner) + ", folded]"}
		}
		out = append(out, c.block(bl, b.ToolOutput))
	}
	it.Blocks = out
	return c.cut
}

// outputSize describes folded tool output: "tool output: 48 lines, 3,210
// characters" (and its images).
func outputSize(inner []pidex.Block) string {
	var lines, chars, images int
	for _, b := range inner {
		switch b.Kind {
		case pidex.BlockImage:
			images++
		default:
			if b.Text != "" {
				lines += strings.Count(strings.TrimRight(b.Text, "\n"), "\n") + 1
				chars += utf8.RuneCountInString(b.Text)
			}
		}
	}
	s := fmt.Sprintf("tool output: %s %s, %s characters", text.Count(int64(lines)), text.Plural(lines, "line", "lines"), text.Count(int64(chars)))
	if images > 0 {
		s += fmt.Sprintf(", %d %s", images, text.Plural(images, "image", "images"))
	}
	return s
}

// cutter cuts the text of an item's blocks to what is left of its budget.
type cutter struct {
	left int
	cut  bool
}

func (c *cutter) block(b pidex.Block, whole bool) pidex.Block {
	b.Text = c.str(b.Text)
	switch b.Kind {
	case pidex.BlockOutput:
		inner := make([]pidex.Block, len(b.Inner))
		for i, in := range b.Inner {
			inner[i] = c.block(in, whole)
		}
		b.Inner = inner
	case pidex.BlockToolCall, pidex.BlockSystem:
		if !whole && b.Kind == pidex.BlockToolCall {
			break // shown abbreviated (view.ArgRunes a value) by every renderer
		}
		args := make([]pidex.Arg, len(b.Args))
		for i, a := range b.Args {
			if a.IsStr {
				a.Str = c.str(a.Str)
				a.JSON = string(js.JSONString(a.Str))
			} else {
				a.JSON = c.str(a.JSON)
			}
			args[i] = a
		}
		b.Args = args
	}
	return b
}

// str keeps what is left of the budget of s, saying how much it cut.
func (c *cutter) str(s string) string {
	if s == "" {
		return s
	}
	n := utf8.RuneCountInString(s)
	if n <= c.left {
		c.left -= n
		return s
	}
	c.cut = true
	out, _ := CutChars(s, max(c.left, 0))
	c.left = 0
	return out
}

// CutChars keeps the first n characters of s, saying how many more it
// had ("… [cut: 1,234 more characters]"); cut reports that it cut.
func CutChars(s string, n int) (out string, cut bool) {
	total := utf8.RuneCountInString(s)
	if total <= n {
		return s, false
	}
	r := []rune(s)
	return string(r[:n]) + fmt.Sprintf("… [cut: %s more characters]", text.Count(int64(total-n))), true
}

// Share divides room among parts that need need[i] each: a part that
// needs less than an even share takes what it needs, and what it leaves
// goes to the others, evenly (a report's lists share a budget so that
// one long list does not crowd out the rest).
func Share(room int, need []int) []int {
	got := make([]int, len(need))
	open := make([]int, 0, len(need))
	for i := range need {
		open = append(open, i)
	}
	for len(open) > 0 {
		share := max(0, room) / len(open)
		var still []int
		for _, i := range open {
			if need[i] <= share {
				got[i] = need[i]
				room -= need[i]
			} else {
				still = append(still, i)
			}
		}
		if len(still) == len(open) {
			for _, i := range still {
				got[i] = share
			}
			break
		}
		open = still
	}
	return got
}
