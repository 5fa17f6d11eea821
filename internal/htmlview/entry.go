package htmlview

import (
	"fmt"
	"html/template"
	"strings"
	"unicode/utf8"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/text"
	"github.com/pidex-dev/pidex/internal/view"
)

// How a session reads in a browser: the HTML rendering of a
// pidex.Document (built by the engine, as for `pidex show`). Conversation
// text is Markdown, thinking, tool calls and output are folded, images
// come from the file. This file only decides how each block looks.

// Entry is one item of the Document, as a page shows it.
type Entry struct {
	pidex.DocItem
	Heading string // the title, numbered in the context view
	Time    string // ISO 8601 UTC, "" when it does not parse
	Notes   []string
	Blocks  []Block
	Marks   int // a search's words marked in it
}

// Block is one piece of an item's body; Kind picks its template.
type Block struct {
	Kind    string        // md | line | pre | fold | image
	HTML    template.HTML // md: rendered Markdown; line, pre: Text with a search's words marked, when any
	Open    bool          // fold: open, since it holds a search's words
	Text    string        // line, pre: text (escaped by the template); fold: its summary
	Src     template.URL  // image: a data: URL of a checked raster type
	Alt     string        // image: its type and size
	Inner   []Block       // fold: what it hides
	Cut     string        // pre: what was left out ("… 1,234 more lines")
	FoldCls string        // fold: thinking | tool | output | system
}

// Viewer makes the views. Full shows tool output whole; otherwise a
// long one is cut to the fold limits (view.FoldLines, view.FoldBytes).
type Viewer struct {
	Full bool
}

// Item is the page's view of a Document item.
func (v Viewer) Item(doc *pidex.Document, it pidex.DocItem) Entry {
	e := Entry{DocItem: it, Heading: it.Title, Blocks: v.Blocks(it.Blocks)}
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

// Blocks are the views of an item's blocks.
func (v Viewer) Blocks(bs []pidex.Block) []Block {
	var out []Block
	for _, b := range bs {
		out = append(out, v.block(b))
	}
	return out
}

func (v Viewer) block(b pidex.Block) Block {
	switch b.Kind {
	case pidex.BlockProse:
		return Block{Kind: "md", HTML: Markdown(b.Text)}
	case pidex.BlockLine:
		return Block{Kind: "line", Text: b.Text}
	case pidex.BlockPre:
		return v.pre(b.Text)
	case pidex.BlockOutput:
		return v.fold("output", "output", v.Blocks(b.Inner), outputText(b.Inner))
	case pidex.BlockThinking:
		if b.Redacted {
			return Block{Kind: "line", Text: "[thinking: redacted]"}
		}
		return Block{Kind: "fold", FoldCls: "thinking", Text: "thinking · " + text.Count(int64(utf8.RuneCountInString(b.Text))) + " chars",
			Inner: []Block{{Kind: "md", HTML: Markdown(b.Text)}}}
	case pidex.BlockToolCall:
		args := toolArgs(b)
		return v.fold("tool", "→ "+b.Name+"("+text.Cut(text.OneLine(args), 100)+")", []Block{v.pre(args)}, args)
	case pidex.BlockImage:
		return image(b)
	case pidex.BlockSystem:
		t := systemText(b)
		return v.fold("system", "system prompt", []Block{v.pre(t)}, t)
	}
	if b.Name != "" {
		return Block{Kind: "line", Text: "[" + b.Name + " block]"}
	}
	return v.pre(b.Text)
}

// fold hides inner behind a summary with the size of what it hides.
func (v Viewer) fold(class, summary string, inner []Block, t string) Block {
	if t != "" {
		n := strings.Count(t, "\n") + 1
		summary += fmt.Sprintf(" · %s %s, %s", text.Count(int64(n)), text.Plural(n, "line", "lines"), text.Bytes(int64(len(t))))
	}
	return Block{Kind: "fold", FoldCls: class, Text: summary, Inner: inner}
}

// pre is preformatted text, cut to the fold limits unless full.
func (v Viewer) pre(s string) Block {
	if v.Full || (len(s) <= view.FoldBytes && strings.Count(s, "\n") < view.FoldLines) {
		return Block{Kind: "pre", Text: s}
	}
	lines := strings.SplitAfter(s, "\n")
	keep, n := 0, 0
	for keep < len(lines) && keep < view.FoldLines && n+len(lines[keep]) <= view.FoldBytes {
		n += len(lines[keep])
		keep++
	}
	if keep == 0 { // one enormous line
		cut := text.Cut(s, view.FoldBytes)
		return Block{Kind: "pre", Text: cut, Cut: fmt.Sprintf("… %s more", text.Bytes(int64(len(s)-len(cut))))}
	}
	rest := len(lines) - keep
	return Block{Kind: "pre", Text: strings.Join(lines[:keep], ""),
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

func image(b pidex.Block) Block {
	alt := fmt.Sprintf("image %s, %s", b.Mime, text.Bytes(b.Size))
	if !imageTypes[b.Mime] || !isBase64(b.Data) {
		return Block{Kind: "line", Text: "[" + alt + "]"}
	}
	return Block{Kind: "image", Src: template.URL("data:" + b.Mime + ";base64," + b.Data), Alt: alt}
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
