package web

import (
	"strings"
	"testing"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/htmlview"
)

// word marks every "script" (a stand-in for the engine's Marker).
func word(text string) []pidex.Segment {
	var segs []pidex.Segment
	for {
		i := strings.Index(strings.ToLower(text), "script")
		if i < 0 {
			return append(segs, pidex.Segment{Text: text})
		}
		segs = append(segs, pidex.Segment{Text: text[:i]}, pidex.Segment{Text: text[i : i+6], Hit: true})
		text = text[i+6:]
	}
}

// Marks go around escaped text, never into tags or around markup: text
// that looks like a tag stays text.
func TestMarkHTML(t *testing.T) {
	h, n := markHTML(htmlview.Markdown("a <script>alert(1)</script> and **Script** in `script()`\n\n[script](https://example.com/script)"), word)
	got := string(h)
	for _, want := range []string{
		`a &lt;<mark class="q">script</mark>&gt;alert(1)&lt;/<mark class="q">script</mark>&gt;`,
		`<strong><mark class="q">Script</mark></strong>`,
		`<code><mark class="q">script</mark>()</code>`,
		`<a href="https://example.com/script" rel="noopener noreferrer"><mark class="q">script</mark></a>`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("marked HTML lacks %s:\n%s", want, got)
		}
	}
	if n != 5 || strings.Contains(got, "<script") {
		t.Errorf("%d marks:\n%s", n, got)
	}
	bs := []htmlview.Block{{Kind: "fold", Inner: []htmlview.Block{{Kind: "pre", Text: "<b>script</b>"}}}, {Kind: "line", Text: "nothing"}}
	if n := markBlocks(bs, word); n != 1 || !bs[0].Open || string(bs[0].Inner[0].HTML) != `&lt;b&gt;<mark class="q">script</mark>&lt;/b&gt;` || bs[1].HTML != "" {
		t.Errorf("blocks: %d marks, %+v", n, bs)
	}
}
