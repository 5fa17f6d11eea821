package web

import (
	"fmt"
	"html/template"
	"strings"
	"unicode/utf8"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/text"
	"github.com/pidex-dev/pidex/internal/view"
)

// How a session reads in the browser: the HTML rendering of a
// pidex.Document (built by the engine, as for `pidex show`). Conversation
// text is Markdown, thinking, tool calls and output are folded, images
// come from the file. This file only decides how each block looks.

// entryView is one item of the Document, as the page shows it.
type entryView struct {
	pidex.DocItem
	Heading string // the title, numbered in the context view
	Time    string // ISO 8601 UTC, "" when it does not parse
	Notes   []string
	Blocks  []block
	Marks   int // a search's words marked in it
}

// block is one piece of an item's body; Kind picks its template.
type block struct {
	Kind    string        // md | line | pre | fold | image
	HTML    template.HTML // md: rendered Markdown; line, pre: Text with a search's words marked, when any
	Open    bool          // fold: open, since it holds a search's words
	Text    string        // line, pre: text (escaped by the template); fold: its summary
	Src     template.URL  // image: a data: URL of a checked raster type
	Alt     string        // image: its type and size
	Inner   []block       // fold: what it hides
	Cut     string        // pre: what was left out ("… 1,234 more lines")
	FoldCls string        // fold: thinking | tool | output | system
}

type viewer struct {
	full bool
}

// item is the page's view of a Document item.
func (v viewer) item(doc *pidex.Document, it pidex.DocItem) entryView {
	e := entryView{DocItem: it, Heading: it.Title, Blocks: v.blocks(it.Blocks)}
	if doc.Context {
		e.Heading = fmt.Sprintf("#%d %s", it.N, it.Title)
	}
	if it.Time != nil {
		e.Time = it.Time.String()
	}
	if it.CutBytes > 0 {
		e.Notes = append(e.Notes, text.Bytes(it.CutBytes)+" line, cut (full view reads it whole)")
	}
	if it.Note != "" && !doc.Context {
		e.Notes = append(e.Notes, it.Note)
	}
	return e
}

func (v viewer) blocks(bs []pidex.Block) []block {
	var out []block
	for _, b := range bs {
		out = append(out, v.block(b))
	}
	return out
}

func (v viewer) block(b pidex.Block) block {
	switch b.Kind {
	case pidex.BlockProse:
		return block{Kind: "md", HTML: markdown(b.Text)}
	case pidex.BlockLine:
		return block{Kind: "line", Text: b.Text}
	case pidex.BlockPre:
		return v.pre(b.Text)
	case pidex.BlockOutput:
		return v.fold("output", "output", v.blocks(b.Inner), outputText(b.Inner))
	case pidex.BlockThinking:
		if b.Redacted {
			return block{Kind: "line", Text: "[thinking: redacted]"}
		}
		return block{Kind: "fold", FoldCls: "thinking", Text: "thinking · " + text.Count(int64(utf8.RuneCountInString(b.Text))) + " chars",
			Inner: []block{{Kind: "md", HTML: markdown(b.Text)}}}
	case pidex.BlockToolCall:
		args := toolArgs(b)
		return v.fold("tool", "→ "+b.Name+"("+text.Cut(text.OneLine(args), 100)+")", []block{v.pre(args)}, args)
	case pidex.BlockImage:
		return image(b)
	case pidex.BlockSystem:
		t := systemText(b)
		return v.fold("system", "system prompt", []block{v.pre(t)}, t)
	}
	if b.Name != "" {
		return block{Kind: "line", Text: "[" + b.Name + " block]"}
	}
	return v.pre(b.Text)
}

// fold hides inner behind a summary with the size of what it hides.
func (v viewer) fold(class, summary string, inner []block, t string) block {
	if t != "" {
		n := strings.Count(t, "\n") + 1
		summary += fmt.Sprintf(" · %s %s, %s", text.Count(int64(n)), text.Plural(n, "line", "lines"), text.Bytes(int64(len(t))))
	}
	return block{Kind: "fold", FoldCls: class, Text: summary, Inner: inner}
}

// pre is preformatted text, cut to the fold limits unless full.
func (v viewer) pre(s string) block {
	if v.full || (len(s) <= view.FoldBytes && strings.Count(s, "\n") < view.FoldLines) {
		return block{Kind: "pre", Text: s}
	}
	lines := strings.SplitAfter(s, "\n")
	keep, n := 0, 0
	for keep < len(lines) && keep < view.FoldLines && n+len(lines[keep]) <= view.FoldBytes {
		n += len(lines[keep])
		keep++
	}
	if keep == 0 { // one enormous line
		cut := text.Cut(s, view.FoldBytes)
		return block{Kind: "pre", Text: cut, Cut: fmt.Sprintf("… %s more", text.Bytes(int64(len(s)-len(cut))))}
	}
	rest := len(lines) - keep
	return block{Kind: "pre", Text: strings.Join(lines[:keep], ""),
		Cut: fmt.Sprintf("… %s more %s (%s)", text.Count(int64(rest)), text.Plural(rest, "line", "lines"), text.Bytes(int64(len(s)-n)))}
}

// outputText is the text of tool output, for sizing its fold.
func outputText(bs []pidex.Block) string {
	var parts []string
	for _, b := range bs {
		if b.Kind == pidex.BlockPre {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// toolArgs writes a tool call's arguments one per line, multi-line
// strings as blocks.
func toolArgs(b pidex.Block) string {
	if b.Text != "" {
		return b.Text
	}
	var sb strings.Builder
	for i, a := range b.Args {
		if i > 0 {
			sb.WriteString("\n")
		}
		sep := ": "
		if a.IsStr && strings.Contains(a.Str, "\n") {
			sep = ":\n"
		}
		sb.WriteString(a.Key + sep + a.Text())
	}
	return sb.String()
}

// systemText is a system prompt's content and sections.
func systemText(b pidex.Block) string {
	parts := []string{b.Text}
	for _, a := range b.Args {
		parts = append(parts, "## "+a.Key+"\n"+a.Text())
	}
	return strings.TrimSpace(strings.Join(parts, "\n\n"))
}

// imageTypes are the raster types shown inline; anything else (SVG can
// carry script) is described, not shown.
var imageTypes = map[string]bool{"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true}

func image(b pidex.Block) block {
	alt := fmt.Sprintf("image %s, %s", b.Mime, text.Bytes(b.Size))
	if !imageTypes[b.Mime] || !isBase64(b.Data) {
		return block{Kind: "line", Text: "[" + alt + "]"}
	}
	return block{Kind: "image", Src: template.URL("data:" + b.Mime + ";base64," + b.Data), Alt: alt}
}

// isBase64: only the base64 alphabet, so the data: URL is exactly what it
// claims to be.
func isBase64(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '=') {
			return false
		}
	}
	return s != ""
}
