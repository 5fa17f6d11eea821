package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/pidex-dev/pidex/query"
	"github.com/pidex-dev/pidex/schema"
)

// showOptions are the reading options of `pidex show`.
type showOptions struct {
	thinking bool // thinking text instead of "[thinking: N chars]"
	full     bool // tool calls, tool output and system prompts unabridged
}

// Abbreviation limits of `pidex show` without --full.
const (
	showToolLines  = 8   // lines of tool output, bash output, replacement content
	showLineRunes  = 200 // runes per abbreviated line
	showArgRunes   = 60  // runes per tool-call argument value
	showCallRunes  = 200 // runes per tool-call line
	showBodyIndent = "  "
)

// showRenderer writes a session's branch or context for reading. Every
// entry (or context message) is a header line "[LINE] KIND · ID · TIME ·
// DETAIL" followed by its body indented by two spaces and a blank line.
type showRenderer struct {
	w    io.Writer
	opts showOptions
	err  error
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
func (r *showRenderer) header(ref schema.SessionRef, sc *query.SessionContext, context bool) {
	name := ""
	if ref.Name != "" {
		name = "  " + strconv.Quote(ref.Name)
	}
	r.printf("Session  %s%s\n", ref.SessionID, name)
	r.printf("File     %s\n", ref.Path)
	if n := len(sc.Path); n > 0 {
		leaf := sc.Path[n-1]
		r.printf("Leaf     %s (line %d), %d %s on the path\n", leaf.ID, leaf.PathEntry.Line, n, showPlural(n, "entry", "entries"))
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
	if context {
		r.printf("Context  %d %s\n", len(sc.Messages), showPlural(len(sc.Messages), "message", "messages"))
	}
	r.printf("\n")
}

func showPlural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// path writes every entry of the branch in order.
func (r *showRenderer) path(sc *query.SessionContext) {
	before := map[string]bool{} // ids of the entries printed so far
	byID := map[string]string{} // context_edit id -> "edited" / "omitted"
	for _, p := range sc.Path {
		if p.Type == schema.TypeContextEdit && p.Line != nil {
			if schema.Content(p.Line.Replacement).IsNull() {
				byID[p.ID] = "omitted"
			} else {
				byID[p.ID] = "edited"
			}
		}
	}
	for _, p := range sc.Path {
		kind, detail, body := r.entry(p, before)
		before[p.ID] = true
		parts := []string{fmt.Sprintf("[%d] %s", p.PathEntry.Line, kind), p.ID, showTime(p.Timestamp), detail}
		if p.Label != "" {
			parts = append(parts, "label "+strconv.Quote(p.Label))
		}
		// Only entries that can carry messages are marked: settings before a
		// compaction still apply, labels and the like never join the context.
		carries := p.Type == schema.TypeMessage || p.Type == schema.TypeCustomMessage || p.Type == schema.TypeCompaction
		switch {
		case p.EditedBy != "":
			parts = append(parts, fmt.Sprintf("(%s by %s)", byID[p.EditedBy], p.EditedBy))
		case carries && p.Compacted:
			parts = append(parts, "(compacted)")
		case carries && !p.InContext:
			parts = append(parts, "(not in context)")
		}
		r.block(parts, body)
	}
}

// context writes the model context message by message, each with the
// entry it comes from.
func (r *showRenderer) context(sc *query.SessionContext) {
	n := 0
	for _, ce := range sc.Entries {
		src := sc.Path[ce.Index]
		for _, m := range ce.Messages {
			n++
			kind, detail, body := r.message(m)
			r.block([]string{fmt.Sprintf("#%d %s", n, kind), fmt.Sprintf("line %d %s", src.PathEntry.Line, src.ID), detail}, body)
		}
	}
}

// entry renders one path entry: its kind, a one-line detail and its body.
// before holds the ids of the entries before it on the path.
func (r *showRenderer) entry(p query.PathItem, before map[string]bool) (kind, detail string, body []string) {
	l := p.Line
	if l == nil {
		return p.Type, "", nil
	}
	switch l.Type {
	case schema.TypeMessage:
		if l.Message == nil { // null, missing, or not an object
			return "message", "no message object", nil
		}
		return r.decoded(l.Message, func() json.RawMessage { return showField(p.Raw, "message") })
	case schema.TypeModelChange:
		m := l.Provider + "/" + l.ModelID
		if l.ModelID == "" && l.Model != "" {
			m = l.Model
		}
		return "model", m, nil
	case schema.TypeThinkingLevelChange:
		return "thinking level", l.ThinkingLevel, nil
	case schema.TypeCompaction:
		detail = fmt.Sprintf("%d tokens before", l.TokensBefore)
		if fk := showString(showField(p.Object, "firstKeptEntryId")); fk != "" && before[fk] {
			detail += ", keeps from " + fk
		} else {
			detail += ", keeps nothing before it"
		}
		if l.FromHook {
			detail += ", by an extension"
		}
		body = showLines(l.Summary)
		if l.SystemMessage != nil {
			body = append(body, "[with a system message snapshot]")
		}
		return "compaction", detail, body
	case schema.TypeBranchSummary:
		detail = "from " + l.FromID
		if l.Summary == "" {
			detail += ", empty (not in context)"
		}
		return "branch summary", detail, showLines(l.Summary)
	case schema.TypeCustomMessage:
		detail = l.CustomType
		if !l.Display {
			detail += ", hidden"
		}
		// Hidden ones are injected context (pi does not display them): abbreviated.
		return "custom message", detail, r.content(l.Content, !l.Display)
	case schema.TypeCustom:
		return "custom entry", l.CustomType, nil
	case schema.TypeLabel:
		if l.Label != nil && *l.Label != "" {
			return "label", strconv.Quote(*l.Label) + " → " + l.TargetID, nil
		}
		return "label", "cleared on " + l.TargetID, nil
	case schema.TypeSessionInfo:
		if l.Name != nil && strings.TrimSpace(*l.Name) != "" {
			return "session name", strconv.Quote(strings.TrimSpace(*l.Name)), nil
		}
		return "session name", "cleared", nil
	case schema.TypeContextEdit:
		if schema.Content(l.Replacement).IsNull() {
			return "context edit", "omits " + l.TargetID, nil
		}
		var repl struct {
			Content schema.Content `json:"content"`
		}
		_ = json.Unmarshal(l.Replacement, &repl)
		return "context edit", "replaces " + l.TargetID, r.content(repl.Content, true)
	case schema.TypeUsage:
		detail = l.Kind + " " + l.Provider + "/" + l.Model
		if l.Usage != nil {
			detail += fmt.Sprintf(", %d tokens, $%.4f", l.Usage.Total(), l.Usage.Cost.Total)
		}
		return "usage record", detail, showLines(l.Note)
	}
	return l.Type, "", nil
}

// message renders one AgentMessage.
func (r *showRenderer) message(raw json.RawMessage) (kind, detail string, body []string) {
	var m schema.Message
	if err := json.Unmarshal(raw, &m); err != nil && m.Role == "" {
		return "message", "", []string{cut(string(raw), showLineRunes)}
	}
	return r.decoded(&m, func() json.RawMessage { return raw })
}

// decoded renders a decoded AgentMessage; raw returns its JSON, which only
// system messages need (their sections are not in schema.Message).
func (r *showRenderer) decoded(m *schema.Message, raw func() json.RawMessage) (kind, detail string, body []string) {
	switch m.NormalizedRole() {
	case schema.RoleUser:
		body = r.content(m.Content, false)
		if len(body) == 0 {
			body = []string{"(empty)"}
		}
		return "user", "", body
	case schema.RoleAssistant:
		detail = m.Provider + "/" + m.Model
		switch m.StopReason {
		case "", "stop", "toolUse":
		default:
			detail += ", " + m.StopReason
		}
		body = r.content(m.Content, false)
		if m.ErrorMessage != "" {
			body = append(body, "[error: "+m.ErrorMessage+"]")
		}
		if len(body) == 0 {
			body = []string{"(empty)"}
		}
		return "assistant", detail, body
	case schema.RoleToolResult:
		detail = m.ToolName
		if m.IsError {
			detail += ", error"
		}
		if m.Content.IsNull() && m.Output != "" { // before 2025-11-12
			body = r.abbreviate(showLines(m.Output))
		} else {
			body = r.content(m.Content, true)
		}
		if len(body) == 0 {
			body = []string{"(no output)"}
		}
		return "tool result", detail, body
	case schema.RoleBashExecution:
		if m.ExcludeFromContext {
			detail = "not sent to the model"
		}
		body = append([]string{"$ " + m.Command}, r.abbreviate(showLines(m.Output))...)
		switch {
		case m.Cancelled:
			body = append(body, "[cancelled]")
		case m.ExitCode != nil && *m.ExitCode != 0:
			body = append(body, fmt.Sprintf("[exit code %d]", *m.ExitCode))
		}
		if m.Truncated && m.FullOutputPath != "" {
			body = append(body, "[output truncated, full output: "+m.FullOutputPath+"]")
		}
		return "bash", detail, body
	case schema.RoleCustom:
		detail = m.CustomType
		if !m.Display {
			detail += ", hidden"
		}
		return "custom message", strings.TrimPrefix(detail, ", "), r.content(m.Content, !m.Display)
	case schema.RoleSystem:
		return "system", "", r.system(raw())
	case schema.RoleBranchSummary:
		return "branch summary", "from " + m.FromID, showLines(m.Summary)
	case schema.RoleCompactionSummary:
		return "compaction summary", fmt.Sprintf("%d tokens before", m.TokensBefore), showLines(m.Summary)
	}
	kind = m.Role
	if kind == "" {
		kind = "message"
	}
	return kind, "", r.content(m.Content, true)
}

// content renders message content: text in full, thinking folded, tool
// calls and images as one line each. tool abbreviates it like tool output.
func (r *showRenderer) content(c schema.Content, tool bool) []string {
	if c.IsNull() {
		return nil
	}
	var lines []string
	if c.IsString() {
		lines = showLines(c.Text())
	} else {
		var blocks []json.RawMessage
		if err := json.Unmarshal(c, &blocks); err != nil {
			return []string{cut(string(c), showLineRunes)}
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
		return showLines(b.Text)
	case schema.BlockThinking:
		switch {
		case b.Redacted:
			return []string{"[thinking: redacted]"}
		case !r.opts.thinking:
			return []string{fmt.Sprintf("[thinking: %d chars]", utf8.RuneCountInString(b.Thinking))}
		}
		out := []string{"[thinking]"}
		for _, l := range showLines(b.Thinking) {
			out = append(out, "> "+l)
		}
		return out
	case schema.BlockImage:
		return []string{showImage(b.MimeType, b.Data)}
	case schema.BlockToolCall:
		return r.toolCall(b.Name, b.Arguments)
	}
	if b.Type == "" {
		return []string{cut(string(raw), showLineRunes)}
	}
	return []string{"[" + b.Type + " block]"}
}

// toolCall renders "→ name(key: value, …)", each value cut short, or
// with --full the name and one "key: value" line per argument, multi-line
// strings as an indented block.
func (r *showRenderer) toolCall(name string, args json.RawMessage) []string {
	members, ok := showMembers(args)
	if !r.opts.full {
		var parts []string
		for _, m := range members {
			parts = append(parts, m.key+": "+cut(showCompact(m.val), showArgRunes))
		}
		if !ok && len(bytes.TrimSpace(args)) > 0 {
			parts = append(parts, cut(showCompact(args), showArgRunes))
		}
		return []string{cut("→ "+name+"("+strings.Join(parts, ", ")+")", showCallRunes)}
	}
	out := []string{"→ " + name}
	if !ok && len(bytes.TrimSpace(args)) > 0 {
		return append(out, "    "+showCompact(args))
	}
	for _, m := range members {
		if s, isStr := showStringOf(m.val); isStr && strings.Contains(s, "\n") {
			out = append(out, "    "+m.key+": |")
			for _, l := range showLines(s) {
				out = append(out, "      "+l)
			}
			continue
		}
		out = append(out, "    "+m.key+": "+showCompact(m.val))
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
	sections, _ := showMembers(s.Sections)
	var tools []string
	for _, t := range s.ToolsAdded {
		tools = append(tools, t.Name)
	}
	if !r.opts.full {
		n := utf8.RuneCountInString(text)
		var names []string
		for _, m := range sections {
			v, _ := showStringOf(m.val)
			n += utf8.RuneCountInString(v)
			names = append(names, m.key)
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
	out := showLines(text)
	for _, m := range sections {
		v, ok := showStringOf(m.val)
		if !ok {
			v = showCompact(m.val)
		}
		out = append(out, "## "+m.key)
		out = append(out, showLines(v)...)
	}
	if len(tools) > 0 {
		out = append(out, "[tools: "+strings.Join(tools, ", ")+"]")
	}
	return out
}

// abbreviate keeps the first lines of tool output, each cut short.
func (r *showRenderer) abbreviate(lines []string) []string {
	if r.opts.full {
		return lines
	}
	out := make([]string, 0, min(len(lines), showToolLines+1))
	for i, l := range lines {
		if i == showToolLines {
			out = append(out, fmt.Sprintf("… %d more %s", len(lines)-i, showPlural(len(lines)-i, "line", "lines")))
			break
		}
		out = append(out, cut(l, showLineRunes))
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

// showTime formats an entry's ISO timestamp as "2006-01-02 15:04:05" UTC
// (as written when it does not parse).
func showTime(ts string) string {
	if ms, ok := schema.ParseTime(ts); ok {
		return time.UnixMilli(ms).UTC().Format("2006-01-02 15:04:05")
	}
	return ts
}

// showLines splits text into lines, without trailing blank lines and
// trailing spaces, tabs kept.
func showLines(s string) []string {
	s = strings.TrimRight(strings.ReplaceAll(s, "\r\n", "\n"), " \t\r\n")
	if s == "" {
		return nil
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t\r")
	}
	return lines
}

// ---- small JSON helpers ----

type showMember struct {
	key string
	val json.RawMessage
}

// showMembers decodes a JSON object keeping its key order.
func showMembers(raw json.RawMessage) ([]showMember, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil {
		return nil, false
	}
	var out []showMember
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return out, false
		}
		k, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return out, false
		}
		out = append(out, showMember{k, v})
	}
	return out, true
}

// showField returns one top-level field of a JSON object (nil if absent).
func showField(raw json.RawMessage, key string) json.RawMessage {
	ms, _ := showMembers(raw)
	var v json.RawMessage
	for _, m := range ms {
		if m.key == key {
			v = m.val // the last duplicate wins, as in JSON.parse
		}
	}
	return v
}

func showStringOf(raw json.RawMessage) (string, bool) {
	var s string
	if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

func showString(raw json.RawMessage) string {
	s, _ := showStringOf(raw)
	return s
}

// showCompact is raw on one line, without HTML escaping.
func showCompact(raw json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}
