package web

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html/template"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/pidex-dev/pidex/pi"
	"github.com/pidex-dev/pidex/render"
	"github.com/pidex-dev/pidex/schema"
)

// How a session reads in the browser. What each entry says comes from
// package pi (pi.Show, as for `pidex show`); this file only decides how
// each part looks: Markdown for conversation text, folds for thinking,
// tool calls and output, images from the file.

// entryView is one entry of the conversation (or one context message).
type entryView struct {
	ID     string // the entry id ("" for none)
	Class  string // user, assistant, tool, summary, meta …: the look
	Title  string
	Detail string
	Line   int64
	Time   string // ISO 8601 UTC, "" when it does not parse
	Label  string
	Note   string // "compacted", "not in context", "edited by …"
	Target bool   // the entry a search hit or the URL points at
	Blocks []block
}

// block is one piece of an entry's body; Kind picks its template.
type block struct {
	Kind    string        // md | line | pre | fold | image
	HTML    template.HTML // md: rendered Markdown
	Text    string        // line, pre: text (escaped by the template); fold: its summary
	Src     template.URL  // image: a data: URL of a checked raster type
	Alt     string        // image: its type and size
	Inner   []block       // fold: what it hides
	Open    bool          // fold: shown open
	Cut     string        // pre: what was left out ("… 1,234 more lines")
	FoldCls string        // fold: thinking | tool | output | system
}

// Caps on what a page carries of tool output without ?full=1: the largest
// sessions hold megabytes of it, and the page must stay light.
const (
	foldLines = 60
	foldBytes = 16 << 10
)

type viewer struct {
	full bool
}

// entry builds the view of one path entry.
func (v viewer) entry(p *pi.PathItem, at pi.Where, editNote string) entryView {
	s := pi.Shown{Title: p.Type}
	if p.Line != nil {
		at.Object = p.Obj()
		s = pi.Show(p.Line, at)
	}
	e := entryView{ID: p.ID, Title: s.Title, Detail: s.Detail, Line: p.PathEntry.Line, Time: isoTime(p.Timestamp),
		Label: p.Label, Class: entryClass(p.Type, p.Role, s.Title)}
	carries := pi.KindOf(p.Type).Carries
	switch {
	case p.Cut:
		e.Note = size(p.Length) + " line, cut (full view reads it whole)"
	case p.EditedBy != "":
		e.Note = editNote
	case carries && p.Compacted:
		e.Note = "compacted"
	case carries && !p.InContext:
		e.Note = "not in context"
	}
	e.Blocks = v.body(s)
	return e
}

// message builds the view of one model-context message.
func (v viewer) message(n int, raw json.RawMessage, src *pi.PathItem) entryView {
	s := pi.ShowMessage(raw)
	var m struct {
		Role string `json:"role"`
	}
	_ = json.Unmarshal(raw, &m)
	return entryView{ID: src.ID, Title: fmt.Sprintf("#%d %s", n, s.Title), Detail: s.Detail, Line: src.PathEntry.Line,
		Time: isoTime(src.Timestamp), Class: entryClass("message", m.Role, s.Title), Blocks: v.body(s)}
}

// entryClass is the look of an entry: who speaks, or what it is.
func entryClass(typ, role, title string) string {
	switch {
	case role == "user" || role == "assistant":
		return role
	case role == "toolResult" || role == "bashExecution":
		return "tool"
	case role == "branchSummary" || role == "compactionSummary" || typ == schema.TypeCompaction || typ == "branch_summary":
		return "summary"
	case role == "custom" || typ == "custom_message":
		return "custom"
	case role == "system":
		return "system"
	case typ == "message":
		return "other"
	}
	return "meta"
}

func (v viewer) body(s pi.Shown) []block {
	var out []block
	for _, p := range s.Body {
		switch p.Kind {
		case pi.PartLines:
			if strings.TrimSpace(p.Text) != "" {
				out = append(out, block{Kind: "md", HTML: markdown(p.Text)})
			}
		case pi.PartLine:
			out = append(out, block{Kind: "line", Text: p.Text})
		case pi.PartOutput:
			if p.Text != "" {
				out = append(out, v.fold("output", "output", []block{v.pre(p.Text)}, p.Text))
			}
		case pi.PartContent:
			out = append(out, v.content(p.Content, false)...)
		case pi.PartToolContent:
			if inner := v.content(p.Content, true); len(inner) > 0 {
				out = append(out, v.fold("output", "output", inner, contentText(p.Content)))
			}
		case pi.PartSystem:
			text := v.systemText(p.Raw)
			out = append(out, v.fold("system", "system prompt", []block{v.pre(text)}, text))
		}
	}
	if len(out) == 0 && s.Empty != "" {
		out = []block{{Kind: "line", Text: s.Empty}}
	}
	return out
}

// content renders message content: text as Markdown (tool output as it
// is), thinking and tool calls folded, images shown.
func (v viewer) content(c schema.Content, tool bool) []block {
	if c.IsNull() {
		return nil
	}
	text := func(s string) []block {
		switch {
		case strings.TrimSpace(s) == "":
			return nil
		case tool:
			return []block{v.pre(s)}
		}
		return []block{{Kind: "md", HTML: markdown(s)}}
	}
	if c.IsString() {
		return text(c.Text())
	}
	var raws []json.RawMessage
	if err := json.Unmarshal(c, &raws); err != nil {
		return []block{v.pre(string(c))}
	}
	var out []block
	for _, raw := range raws {
		var b schema.Block
		_ = json.Unmarshal(raw, &b) // a field of an odd type is left empty
		switch b.Type {
		case schema.BlockText:
			out = append(out, text(b.Text)...)
		case schema.BlockThinking:
			if b.Redacted {
				out = append(out, block{Kind: "line", Text: "[thinking: redacted]"})
				continue
			}
			n := utf8.RuneCountInString(b.Thinking)
			out = append(out, block{Kind: "fold", FoldCls: "thinking", Text: fmt.Sprintf("thinking · %s chars", comma(int64(n))),
				Inner: []block{{Kind: "md", HTML: markdown(b.Thinking)}}})
		case schema.BlockImage:
			out = append(out, image(b.MimeType, b.Data))
		case schema.BlockToolCall:
			args := toolArgs(b.Arguments)
			summary := "→ " + b.Name + "(" + render.Cut(pi.OneLine(args), 100) + ")"
			out = append(out, v.fold("tool", summary, []block{v.pre(args)}, args))
		default:
			out = append(out, block{Kind: "line", Text: "[" + b.Type + " block]"})
		}
	}
	return out
}

// fold hides inner behind a summary with the size of what it hides.
func (v viewer) fold(class, summary string, inner []block, text string) block {
	if text != "" {
		n := strings.Count(text, "\n") + 1
		summary += fmt.Sprintf(" · %s %s, %s", comma(int64(n)), plural(n, "line", "lines"), size(int64(len(text))))
	}
	return block{Kind: "fold", FoldCls: class, Text: summary, Inner: inner}
}

// pre is preformatted text, cut to the page caps unless full.
func (v viewer) pre(s string) block {
	if v.full || (len(s) <= foldBytes && strings.Count(s, "\n") < foldLines) {
		return block{Kind: "pre", Text: s}
	}
	lines := strings.SplitAfter(s, "\n")
	keep, n := 0, 0
	for keep < len(lines) && keep < foldLines && n+len(lines[keep]) <= foldBytes {
		n += len(lines[keep])
		keep++
	}
	if keep == 0 { // one enormous line
		cut := render.Cut(s, foldBytes)
		return block{Kind: "pre", Text: cut, Cut: fmt.Sprintf("… %s more", size(int64(len(s)-len(cut))))}
	}
	rest := len(lines) - keep
	return block{Kind: "pre", Text: strings.Join(lines[:keep], ""), Cut: fmt.Sprintf("… %s more %s (%s)", comma(int64(rest)), plural(rest, "line", "lines"), size(int64(len(s)-n)))}
}

// contentText is the text of content, for sizing a fold.
func contentText(c schema.Content) string {
	if c.IsString() {
		return c.Text()
	}
	var bs []schema.Block
	_ = json.Unmarshal(c, &bs)
	var parts []string
	for _, b := range bs {
		if b.Type == schema.BlockText {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// toolArgs writes a tool call's arguments one per line, multi-line
// strings as blocks (as `pidex show --full` does).
func toolArgs(args json.RawMessage) string {
	members, ok := pi.ParseObject(args)
	if !ok {
		return pi.Compact(args)
	}
	var b strings.Builder
	for i, m := range members {
		if i > 0 {
			b.WriteString("\n")
		}
		if s, isStr := pi.StringValue(m.Val); isStr {
			if strings.Contains(s, "\n") {
				b.WriteString(m.Key + ":\n" + s)
				continue
			}
			b.WriteString(m.Key + ": " + s)
			continue
		}
		b.WriteString(m.Key + ": " + pi.Compact(m.Val))
	}
	return b.String()
}

func (v viewer) systemText(raw json.RawMessage) string {
	var s struct {
		Content  schema.Content  `json:"content"`
		Sections json.RawMessage `json:"sections"`
	}
	_ = json.Unmarshal(raw, &s)
	parts := []string{s.Content.Text()}
	sections, _ := pi.ParseObject(s.Sections)
	for _, m := range sections {
		val, ok := pi.StringValue(m.Val)
		if !ok {
			val = pi.Compact(m.Val)
		}
		parts = append(parts, "## "+m.Key+"\n"+val)
	}
	return strings.TrimSpace(strings.Join(parts, "\n\n"))
}

// imageTypes are the raster types shown inline; anything else (SVG can
// carry script) is described, not shown.
var imageTypes = map[string]bool{"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true}

func image(mime, data string) block {
	alt := fmt.Sprintf("image %s, %s", mime, size(int64(base64.StdEncoding.DecodedLen(len(data)))))
	if !imageTypes[mime] || !isBase64(data) {
		return block{Kind: "line", Text: "[" + alt + "]"}
	}
	return block{Kind: "image", Src: template.URL("data:" + mime + ";base64," + data), Alt: alt}
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

// isoTime is an entry timestamp as ISO 8601 UTC ("" when it does not parse).
func isoTime(ts string) string {
	if ms, ok := pi.ParseDate(ts); ok {
		return pi.FormatDate(ms)
	}
	return ""
}

func comma(n int64) string { return render.GroupDigits(strconv.FormatInt(n, 10)) }

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// size is a byte count for people (1.2 KB).
func size(n int64) string { return render.HumanBytes(n) }

// displayTime is a UTC time for the page before its script shows it in
// the browser's zone.
func displayTime(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") }
