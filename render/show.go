package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/pidex-dev/pidex/pi"
	"github.com/pidex-dev/pidex/schema"
)

// ShowOptions are the reading options of `pidex show`.
type ShowOptions struct {
	Thinking bool // thinking text instead of "[thinking: N chars]"
	Full     bool // tool calls, tool output and system prompts unabridged
	Context  bool // the model context instead of the whole branch
	// Terminal: the output is a terminal, where session text must not
	// drive it (control characters are shown escaped).
	Terminal bool
}

// Abbreviation limits of `pidex show` without --full.
const (
	showToolLines  = 8   // lines of tool output, bash output, replacement content
	showLineRunes  = 200 // runes per abbreviated line
	showArgRunes   = 60  // runes per tool-call argument value
	showCallRunes  = 200 // runes per tool-call line
	showBodyIndent = "  "
)

// Show writes a session's branch (or, with opts.Context, its model
// context) for reading. Every entry (or context message) is a header line
// "[LINE] KIND · ID · TIME · DETAIL" followed by its body indented by two
// spaces and a blank line. What each entry says comes from package pi.
func Show(w io.Writer, ref schema.SessionRef, sc *pi.SessionContext, opts ShowOptions) error {
	if opts.Terminal {
		w = safeWriter{w}
	}
	r := &showRenderer{w: w, opts: opts}
	r.header(ref, sc)
	if opts.Context {
		r.context(sc)
	} else {
		r.path(sc)
	}
	return r.err
}

type showRenderer struct {
	w    io.Writer
	opts ShowOptions
	err  error
	cut  bool // the entry being written was read cut: its line count is not the line's
}

func (r *showRenderer) printf(format string, args ...any) {
	if r.err == nil {
		_, r.err = fmt.Fprintf(r.w, format, args...)
	}
}

// block writes a header line built from the non-empty parts, the body
// lines indented, and a blank line.
func (r *showRenderer) block(parts []string, body []string) {
	var keep []string
	for _, p := range parts {
		if p != "" {
			keep = append(keep, p)
		}
	}
	r.printf("%s\n", strings.Join(keep, " · "))
	for _, l := range body {
		if l == "" {
			r.printf("\n")
			continue
		}
		r.printf("%s%s\n", showBodyIndent, l)
	}
	r.printf("\n")
}

// header describes the session, the leaf and pi's settings there.
func (r *showRenderer) header(ref schema.SessionRef, sc *pi.SessionContext) {
	name := ""
	if ref.Name != "" {
		name = "  " + strconv.Quote(ref.Name)
	}
	r.printf("Session  %s%s\n", ref.SessionID, name)
	r.printf("File     %s\n", ref.Path)
	if n := len(sc.Path); n > 0 {
		leaf := sc.Path[n-1]
		r.printf("Leaf     %s (line %d), %d %s on the path\n", leaf.ID, leaf.PathEntry.Line, n, plural(n, "entry", "entries"))
	} else {
		r.printf("Leaf     none (the session has no entries)\n")
	}
	model := "none"
	if sc.Model != nil {
		model = sc.Model.String()
	}
	level := sc.Level()
	if level == "" {
		level = "?"
	}
	r.printf("Model    %s, thinking %s\n", model, level)
	if r.opts.Context {
		r.printf("Context  %d %s\n", len(sc.Messages), plural(len(sc.Messages), "message", "messages"))
	}
	r.printf("\n")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// path writes every entry of the branch in order.
func (r *showRenderer) path(sc *pi.SessionContext) {
	before := map[string]bool{} // ids of the entries printed so far
	byID := map[string]string{} // context_edit id -> "edited" / "omitted"
	for _, p := range sc.Path {
		if p.Type == schema.TypeContextEdit && p.Line != nil {
			byID[p.ID] = pi.EditEffect(p.Line)
		}
	}
	at := pi.Where{Before: func(id string) bool { return before[id] }}
	for _, p := range sc.Path {
		s := pi.Shown{Title: p.Type}
		if p.Line != nil {
			at.Object = p.Obj()
			s = pi.Show(p.Line, at)
		}
		before[p.ID] = true
		parts := []string{fmt.Sprintf("[%d] %s", p.PathEntry.Line, s.Title), p.ID, showTime(p.Timestamp), s.Detail}
		if p.Label != "" {
			parts = append(parts, "label "+strconv.Quote(p.Label))
		}
		parts = append(parts, cutNote(p.Entry))
		// Only entries that can carry messages are marked: settings before a
		// compaction still apply, labels and the like never join the context.
		carries := pi.KindOf(p.Type).Carries
		switch {
		case p.EditedBy != "":
			parts = append(parts, fmt.Sprintf("(%s by %s)", byID[p.EditedBy], p.EditedBy))
		case carries && p.Compacted:
			parts = append(parts, "(compacted)")
		case carries && !p.InContext:
			parts = append(parts, "(not in context)")
		}
		r.cut = p.Cut
		r.block(parts, r.body(s))
	}
}

// context writes the model context message by message, each with the
// entry it comes from.
func (r *showRenderer) context(sc *pi.SessionContext) {
	n := 0
	for _, ce := range sc.Entries {
		src := sc.Path[ce.Index]
		r.cut = src.Cut
		for _, m := range ce.Messages {
			n++
			s := pi.ShowMessage(m)
			r.block([]string{fmt.Sprintf("#%d %s", n, s.Title), fmt.Sprintf("line %d %s", src.PathEntry.Line, src.ID), s.Detail, cutNote(src.Entry)}, r.body(s))
		}
	}
}

// cutNote says that an entry's line was too long to read whole ("" when
// it was read whole): what follows is its beginning.
func cutNote(e pi.Entry) string {
	if !e.Cut {
		return ""
	}
	return fmt.Sprintf("(%s line, cut: --full reads it whole)", showSize(e.Length))
}

// body renders the parts of a shown entry as lines.
func (r *showRenderer) body(s pi.Shown) []string {
	var out []string
	for _, p := range s.Body {
		switch p.Kind {
		case pi.PartLines:
			out = append(out, pi.Lines(p.Text)...)
		case pi.PartLine:
			out = append(out, p.Text)
		case pi.PartOutput:
			out = append(out, r.abbreviate(pi.Lines(p.Text))...)
		case pi.PartContent:
			out = append(out, r.content(p.Content, false)...)
		case pi.PartToolContent:
			out = append(out, r.content(p.Content, true)...)
		case pi.PartSystem:
			out = append(out, r.system(p.Raw)...)
		}
	}
	if len(out) == 0 && s.Empty != "" {
		out = []string{s.Empty}
	}
	return out
}

// content renders message content: text in full, thinking folded, tool
// calls and images as one line each. tool abbreviates it like tool output.
func (r *showRenderer) content(c schema.Content, tool bool) []string {
	if c.IsNull() {
		return nil
	}
	var lines []string
	if c.IsString() {
		lines = pi.Lines(c.Text())
	} else {
		var blocks []json.RawMessage
		if err := json.Unmarshal(c, &blocks); err != nil {
			return []string{Cut(string(c), showLineRunes)}
		}
		for _, raw := range blocks {
			lines = append(lines, r.contentBlock(raw)...)
		}
	}
	if tool {
		return r.abbreviate(lines)
	}
	return lines
}

func (r *showRenderer) contentBlock(raw json.RawMessage) []string {
	var b schema.Block
	_ = json.Unmarshal(raw, &b) // a field of an odd type is left empty
	switch b.Type {
	case schema.BlockText:
		return pi.Lines(b.Text)
	case schema.BlockThinking:
		switch {
		case b.Redacted:
			return []string{"[thinking: redacted]"}
		case !r.opts.Thinking:
			return []string{fmt.Sprintf("[thinking: %d chars]", utf8.RuneCountInString(b.Thinking))}
		}
		out := []string{"[thinking]"}
		for _, l := range pi.Lines(b.Thinking) {
			out = append(out, "> "+l)
		}
		return out
	case schema.BlockImage:
		return []string{showImage(b.MimeType, b.Data)}
	case schema.BlockToolCall:
		return r.toolCall(b.Name, b.Arguments)
	}
	if b.Type == "" {
		return []string{Cut(string(raw), showLineRunes)}
	}
	return []string{"[" + b.Type + " block]"}
}

// toolCall renders "→ name(key: value, …)", each value cut short, or
// with --full the name and one "key: value" line per argument, multi-line
// strings as an indented block.
func (r *showRenderer) toolCall(name string, args json.RawMessage) []string {
	members, ok := pi.ParseObject(args)
	if !r.opts.Full {
		var parts []string
		for _, m := range members {
			parts = append(parts, m.Key+": "+Cut(pi.Compact(m.Val), showArgRunes))
		}
		if !ok && len(bytes.TrimSpace(args)) > 0 {
			parts = append(parts, Cut(pi.Compact(args), showArgRunes))
		}
		return []string{Cut("→ "+name+"("+strings.Join(parts, ", ")+")", showCallRunes)}
	}
	out := []string{"→ " + name}
	if !ok && len(bytes.TrimSpace(args)) > 0 {
		return append(out, "    "+pi.Compact(args))
	}
	for _, m := range members {
		if s, isStr := pi.StringValue(m.Val); isStr && strings.Contains(s, "\n") {
			out = append(out, "    "+m.Key+": |")
			for _, l := range pi.Lines(s) {
				out = append(out, "      "+l)
			}
			continue
		}
		out = append(out, "    "+m.Key+": "+pi.Compact(m.Val))
	}
	return out
}

// system renders a system message: folded to its size, or with --full its
// content, sections and tools.
func (r *showRenderer) system(raw json.RawMessage) []string {
	var s struct {
		Content    schema.Content          `json:"content"`
		Sections   json.RawMessage         `json:"sections"`
		ToolsAdded []struct{ Name string } `json:"toolsAdded"`
	}
	_ = json.Unmarshal(raw, &s)
	text := s.Content.Text()
	sections, _ := pi.ParseObject(s.Sections)
	var tools []string
	for _, t := range s.ToolsAdded {
		tools = append(tools, t.Name)
	}
	if !r.opts.Full {
		n := utf8.RuneCountInString(text)
		var names []string
		for _, m := range sections {
			v, _ := pi.StringValue(m.Val)
			n += utf8.RuneCountInString(v)
			names = append(names, m.Key)
		}
		line := fmt.Sprintf("[system prompt: %d chars", n)
		if len(names) > 0 {
			line += "; sections " + strings.Join(names, ", ")
		}
		if len(tools) > 0 {
			line += "; tools " + strings.Join(tools, ", ")
		}
		return []string{line + "]"}
	}
	out := pi.Lines(text)
	for _, m := range sections {
		v, ok := pi.StringValue(m.Val)
		if !ok {
			v = pi.Compact(m.Val)
		}
		out = append(out, "## "+m.Key)
		out = append(out, pi.Lines(v)...)
	}
	if len(tools) > 0 {
		out = append(out, "[tools: "+strings.Join(tools, ", ")+"]")
	}
	return out
}

// abbreviate keeps the first lines of tool output, each cut short.
func (r *showRenderer) abbreviate(lines []string) []string {
	if r.opts.Full {
		return lines
	}
	out := make([]string, 0, min(len(lines), showToolLines+1))
	for i, l := range lines {
		if i == showToolLines {
			more := fmt.Sprintf("… %d more %s", len(lines)-i, plural(len(lines)-i, "line", "lines"))
			if r.cut {
				more = "… more lines" // a cut copy does not know how many
			}
			out = append(out, more)
			break
		}
		out = append(out, Cut(l, showLineRunes))
	}
	return out
}

// showImage is "[image image/png, 12 KB]" (the decoded size).
func showImage(mime, data string) string {
	n := len(data) / 4 * 3
	if rem := len(data) % 4; rem > 1 {
		n += rem - 1
	}
	n -= strings.Count(data[max(0, len(data)-2):], "=")
	if mime == "" {
		mime = "unknown type"
	}
	return fmt.Sprintf("[image %s, %s]", mime, showSize(int64(max(n, 0))))
}

func showSize(n int64) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d B", n)
	case n < 1024*1024:
		return fmt.Sprintf("%d KB", (n+512)/1024)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/(1024*1024))
}

// showTime formats an entry's timestamp as "2006-01-02 15:04:05" UTC (as
// written when JavaScript cannot parse it).
func showTime(ts string) string {
	if ms, ok := pi.ParseDate(ts); ok {
		return time.UnixMilli(ms).UTC().Format("2006-01-02 15:04:05")
	}
	return ts
}
