package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/pidex-dev/pidex"
)

// Colour only on a terminal that takes it: NO_COLOR (any value) and
// TERM=dumb turn it off, a file or pipe never has it.
func TestColourFor(t *testing.T) {
	tests := []struct {
		tty  bool
		env  map[string]string
		want bool
	}{
		{true, nil, true},
		{true, map[string]string{"NO_COLOR": "1"}, false},
		{true, map[string]string{"NO_COLOR": "true"}, false},
		{true, map[string]string{"TERM": "dumb"}, false},
		{true, map[string]string{"TERM": "xterm-256color"}, true},
		{false, nil, false},
	}
	for _, tt := range tests {
		if got := ColourFor(tt.tty, func(k string) string { return tt.env[k] }); got != tt.want {
			t.Errorf("ColourFor(%v, %v) = %v, want %v", tt.tty, tt.env, got, tt.want)
		}
	}
}

// With colour, a tree's kinds take their class's colour, labels and the
// current leaf stand out, and session text still cannot drive the
// terminal; without it, the same text exactly.
func TestTreeColour(t *testing.T) {
	label := "fix\x1b[2J"
	user := &pidex.TreeNode{Entry: pidex.Entry{ID: "u1", Type: "message", Role: "user", Offset: 1}, Label: &label}
	asst := &pidex.TreeNode{Entry: pidex.Entry{ID: "a1", Type: "message", Role: "assistant", Offset: 2}, Leaf: true}
	user.Children = []*pidex.TreeNode{asst}
	previews := map[int64]string{1: "hello", 2: "done"}
	draw := func(o TreeOptions) string {
		var b bytes.Buffer
		if err := TreeText(&b, []*pidex.TreeNode{user}, previews, o); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	plain := draw(TreeOptions{Terminal: true, Width: 80})
	if plain != "  u1 user [fix\\e[2J]  hello\n* a1 assistant  done\n" {
		t.Errorf("plain tree:\n%q", plain)
	}
	colour := draw(TreeOptions{Terminal: true, Width: 80, Colour: true})
	for _, want := range []string{
		string(classStyle("user")) + "user" + sgrReset,
		string(styleLabel) + `[fix\e[2J]` + sgrReset,
		string(styleLeaf) + "*" + sgrReset,
		string(styleLeaf) + "assistant" + sgrReset,
	} {
		if !strings.Contains(colour, want) {
			t.Errorf("coloured tree lacks %q:\n%q", want, colour)
		}
	}
	if strings.Contains(colour, "\x1b[2J") {
		t.Errorf("the label's escape reached the terminal: %q", colour)
	}
}

// show's item headers: the title in its class's colour, the label set
// apart, notes dimmed; the body as without colour.
func TestShowColour(t *testing.T) {
	doc := &pidex.Document{Session: pidex.SessionRef{SessionID: "s"}, Leaf: "a1", Current: true, Items: []pidex.DocItem{
		{ID: "u1", Line: 2, Title: "user", Class: "user", Label: "start", Blocks: []pidex.Block{{Kind: pidex.BlockProse, Text: "hi"}}},
		{ID: "a1", Line: 3, Title: "assistant", Class: "assistant", Note: "compacted", Blocks: []pidex.Block{{Kind: pidex.BlockProse, Text: "yo"}}},
	}}
	var plain, colour bytes.Buffer
	if err := Show(&plain, doc, ShowOptions{Terminal: true}); err != nil {
		t.Fatal(err)
	}
	if err := Show(&colour, doc, ShowOptions{Terminal: true, Colour: true}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain.String(), "\x1b") {
		t.Errorf("plain show has escape codes:\n%q", plain.String())
	}
	for _, want := range []string{
		string(classStyle("user")) + "[2] user" + sgrReset,
		string(styleLabel) + `label "start"` + sgrReset,
		string(styleLeaf) + "[3] assistant" + sgrReset, // the current leaf
		string(styleDim) + "(compacted)" + sgrReset,
		"\n  hi\n",
	} {
		if !strings.Contains(colour.String(), want) {
			t.Errorf("coloured show lacks %q:\n%q", want, colour.String())
		}
	}
	if stripSGR(colour.String()) != plain.String() {
		t.Errorf("colour changed the text:\n%q\n%q", stripSGR(colour.String()), plain.String())
	}
}

func stripSGR(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '[' {
			j := i + 2
			for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == ';') {
				j++
			}
			i = j
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
