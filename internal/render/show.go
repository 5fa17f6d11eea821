package render

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/text"
	"github.com/pidex-dev/pidex/internal/view"
)

// ShowOptions are the reading options of `pidex show`.
type ShowOptions struct {
	Thinking bool // thinking text instead of "[thinking: N chars]"
	Full     bool // tool calls, tool output and system prompts unabridged
	// Terminal: the output is a terminal, where session text must not
	// drive it (control characters are shown escaped).
	Terminal bool
	// Colour: each item's title in the colour of its class, its label
	// and notes set apart (a terminal without NO_COLOR).
	Colour bool
	// Resume is the command that continues the session (nil: none known).
	Resume *pidex.Resume
	// Spawn: the session that started it, the subagents it started.
	Spawn Spawn
}

const showBodyIndent = "  "

// Show writes a Document for reading: every item (an entry, or a context
// message) is a header line "[LINE] TITLE · ID · TIME · DETAIL …" followed
// by its body indented by two spaces and a blank line.
func Show(w io.Writer, doc *pidex.Document, opts ShowOptions) error {
	raw := w
	if opts.Terminal {
		w = safeWriter{w}
	}
	r := &showRenderer{w: w, raw: raw, opts: opts}
	r.header(doc)
	for i := range doc.Items {
		r.item(doc, &doc.Items[i])
	}
	return r.err
}

type showRenderer struct {
	w    io.Writer
	raw  io.Writer // w without the escaping, for colour codes around escaped text
	opts ShowOptions
	err  error
	cut  bool // the item being written was read cut: its line count is not the line's
}

func (r *showRenderer) printf(format string, args ...any) {
	if r.err == nil {
		_, r.err = fmt.Fprintf(r.w, format, args...)
	}
}

// header describes the session, the leaf and pi's settings there.
func (r *showRenderer) header(doc *pidex.Document) {
	name := ""
	if doc.Session.Name != "" {
		name = "  " + strconv.Quote(doc.Session.Name)
	}
	r.printf("Session  %s%s\n", doc.Session.SessionID, name)
	r.printf("File     %s\n", doc.Session.Path)
	if doc.Leaf != "" {
		r.printf("Leaf     %s (line %d), %d %s on the path\n", doc.Leaf, doc.LeafLine, doc.Entries, text.Plural(doc.Entries, "entry", "entries"))
	} else {
		r.printf("Leaf     none (the session has no entries)\n")
	}
	model, level := doc.Model, doc.Thinking
	if model == "" {
		model = "none"
	}
	if level == "" {
		level = "?"
	}
	r.printf("Model    %s, thinking %s\n", model, level)
	if doc.Context {
		r.printf("Context  %d %s\n", doc.Messages, text.Plural(doc.Messages, "message", "messages"))
	}
	if res := r.opts.Resume; res != nil {
		r.printf("Resume   %s\n", res.Command)
		for _, n := range res.Notes {
			r.printf("         (%s)\n", n)
		}
	}
	if sp := r.opts.Spawn; sp.SpawnedBy != "" {
		r.printf("Subagent %s, started by %s\n", view.RunLabel(sp.Run), sp.SpawnedBy)
	}
	if sp := r.opts.Spawn; len(sp.Subagents) > 0 {
		r.printf("Started  %d %s: %s (pidex show ID opens one)\n", len(sp.Subagents), text.Plural(len(sp.Subagents), "subagent", "subagents"), sp.SubagentList())
	}
	r.printf("\n")
}

// item writes one item's header line and body.
func (r *showRenderer) item(doc *pidex.Document, it *pidex.DocItem) {
	head, body := r.itemLines(doc, it)
	if r.opts.Colour && r.opts.Terminal && r.err == nil {
		_, r.err = io.WriteString(r.raw, r.colourHead(doc, it)+"\n")
	} else {
		r.printf("%s\n", head)
	}
	for _, l := range body {
		if l == "" {
			r.printf("\n")
			continue
		}
		r.printf("%s%s\n", showBodyIndent, l)
	}
	r.printf("\n")
}

// colourHead is the header line of itemLines with the title in its
// class's colour, the label and the current leaf set apart, notes dimmed;
// every piece escaped for the terminal.
func (r *showRenderer) colourHead(doc *pidex.Document, it *pidex.DocItem) string {
	parts := r.headParts(doc, it)
	segs := make([]segment, 0, 2*len(parts))
	for i, p := range parts {
		if i > 0 {
			segs = append(segs, segment{" · ", styleDim})
		}
		segs = append(segs, segment{Safe(p.text), p.style})
	}
	return styled(segs, 0, true)
}

// headParts are the pieces of an item's header line, each with its style.
func (r *showRenderer) headParts(doc *pidex.Document, it *pidex.DocItem) []segment {
	title := classStyle(it.Class)
	if !doc.Context && doc.Current && it.ID == doc.Leaf {
		title = styleLeaf // where pi resumes
	}
	var parts []segment
	if doc.Context {
		parts = []segment{{fmt.Sprintf("#%d %s", it.N, it.Title), title}, {fmt.Sprintf("line %d %s", it.Line, it.ID), styleNone}, {it.Detail, styleNone}}
	} else {
		parts = []segment{{fmt.Sprintf("[%d] %s", it.Line, it.Title), title}, {it.ID, styleNone}, {showTime(it), styleNone}, {it.Detail, styleNone}}
		if it.Label != "" {
			parts = append(parts, segment{"label " + strconv.Quote(it.Label), styleLabel})
		}
	}
	if it.CutBytes > 0 {
		parts = append(parts, segment{fmt.Sprintf("(%s line, cut: --full reads it whole)", text.Bytes(it.CutBytes)), styleDim})
	}
	if it.Note != "" && !doc.Context {
		parts = append(parts, segment{"(" + it.Note + ")", styleDim})
	}
	keep := parts[:0]
	for _, p := range parts {
		if p.text != "" {
			keep = append(keep, p)
		}
	}
	return keep
}

// itemLines is an item's header line ("[LINE] TITLE · ID · TIME · DETAIL
// …") and its body lines, not yet indented.
func (r *showRenderer) itemLines(doc *pidex.Document, it *pidex.DocItem) (string, []string) {
	parts := r.headParts(doc, it)
	texts := make([]string, len(parts))
	for i, p := range parts {
		texts[i] = p.text
	}
	r.cut = it.CutBytes > 0
	return strings.Join(texts, " · "), r.lines(it.Blocks)
}

// lines renders blocks as lines of text.
func (r *showRenderer) lines(bs []pidex.Block) []string {
	var out []string
	for _, b := range bs {
		out = append(out, r.block(b)...)
	}
	return out
}

func (r *showRenderer) block(b pidex.Block) []string {
	switch b.Kind {
	case pidex.BlockProse, pidex.BlockPre:
		return text.Lines(b.Text)
	case pidex.BlockLine:
		return []string{b.Text}
	case pidex.BlockOutput:
		return r.abbreviate(r.lines(b.Inner))
	case pidex.BlockThinking:
		return r.thinking(b)
	case pidex.BlockToolCall:
		return r.toolCall(b)
	case pidex.BlockImage:
		return []string{imageLine(b)}
	case pidex.BlockSystem:
		return r.system(b)
	}
	if b.Name != "" {
		return []string{"[" + b.Name + " block]"}
	}
	return []string{text.Cut(b.Text, view.PreviewRunes)}
}

func (r *showRenderer) thinking(b pidex.Block) []string {
	switch {
	case b.Redacted:
		return []string{"[thinking: redacted]"}
	case !r.opts.Thinking:
		return []string{fmt.Sprintf("[thinking: %d chars]", utf8.RuneCountInString(b.Text))}
	}
	out := []string{"[thinking]"}
	for _, l := range text.Lines(b.Text) {
		out = append(out, "> "+l)
	}
	return out
}

// toolCall renders "→ name(key: value, …)", each value cut short, or
// with --full the name and one "key: value" line per argument, multi-line
// strings as an indented block.
func (r *showRenderer) toolCall(b pidex.Block) []string {
	if !r.opts.Full {
		var parts []string
		for _, a := range b.Args {
			parts = append(parts, a.Key+": "+text.Cut(a.JSON, view.ArgRunes))
		}
		if b.Text != "" {
			parts = append(parts, text.Cut(b.Text, view.ArgRunes))
		}
		return []string{text.Cut("→ "+b.Name+"("+strings.Join(parts, ", ")+")", view.CallRunes)}
	}
	out := []string{"→ " + b.Name}
	if b.Text != "" {
		return append(out, "    "+b.Text)
	}
	for _, a := range b.Args {
		if a.IsStr && strings.Contains(a.Str, "\n") {
			out = append(out, "    "+a.Key+": |")
			for _, l := range text.Lines(a.Str) {
				out = append(out, "      "+l)
			}
			continue
		}
		out = append(out, "    "+a.Key+": "+a.JSON)
	}
	return out
}

// system renders a system prompt: folded to its size, or with --full its
// content, sections and tools.
func (r *showRenderer) system(b pidex.Block) []string {
	if !r.opts.Full {
		n := utf8.RuneCountInString(b.Text)
		var names []string
		for _, a := range b.Args {
			n += utf8.RuneCountInString(a.Str)
			names = append(names, a.Key)
		}
		line := fmt.Sprintf("[system prompt: %d chars", n)
		if len(names) > 0 {
			line += "; sections " + strings.Join(names, ", ")
		}
		if len(b.Tools) > 0 {
			line += "; tools " + strings.Join(b.Tools, ", ")
		}
		return []string{line + "]"}
	}
	out := text.Lines(b.Text)
	for _, a := range b.Args {
		out = append(out, "## "+a.Key)
		out = append(out, text.Lines(a.Text())...)
	}
	if len(b.Tools) > 0 {
		out = append(out, "[tools: "+strings.Join(b.Tools, ", ")+"]")
	}
	return out
}

// abbreviate keeps the first lines of tool output, each cut short.
func (r *showRenderer) abbreviate(lines []string) []string {
	if r.opts.Full {
		return lines
	}
	out := make([]string, 0, min(len(lines), view.PreviewLines+1))
	for i, l := range lines {
		if i == view.PreviewLines {
			more := fmt.Sprintf("… %d more %s", len(lines)-i, text.Plural(len(lines)-i, "line", "lines"))
			if r.cut {
				more = "… more lines" // a cut copy does not know how many
			}
			out = append(out, more)
			break
		}
		out = append(out, text.Cut(l, view.PreviewRunes))
	}
	return out
}

// imageLine is "[image image/png, 12.0 KiB]".
func imageLine(b pidex.Block) string {
	mime := b.Mime
	if mime == "" {
		mime = "unknown type"
	}
	return fmt.Sprintf("[image %s, %s]", mime, text.Bytes(b.Size))
}

// showTime formats an item's time as "2006-01-02 15:04:05" UTC (as
// written when JavaScript cannot parse it).
func showTime(it *pidex.DocItem) string {
	if it.Time == nil {
		return it.Stamp
	}
	return it.Time.UTC().Format(time.DateTime)
}
