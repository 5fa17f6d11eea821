package render

import (
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/text"
)

// MarkdownOptions are how a session is written as Markdown (pidex export
// --format md, and the MCP server's hand-off).
type MarkdownOptions struct {
	Thinking bool // thinking text, not only its length
	// MaxOutput cuts tool output, tool arguments and system prompts to
	// this many bytes each (0: whole); the header says so.
	MaxOutput int
	// Resume is the command that continues the session ("": none known).
	Resume string
}

// Markdown writes a Document for a hand-off: a person or another agent
// reads the conversation on the branch (or the model context), with the
// session's name, project, model, cost and tokens on top. Conversation
// text is written as it is (it is Markdown already); tool output and code
// are fenced, with a fence longer than any run of backticks inside.
func Markdown(w io.Writer, doc *pidex.Document, info pidex.Session, o MarkdownOptions) error {
	m := &mdWriter{w: w, o: o}
	m.header(doc, info)
	for i := range doc.Items {
		m.item(doc, &doc.Items[i])
	}
	return m.err
}

type mdWriter struct {
	w   io.Writer
	o   MarkdownOptions
	err error
}

func (m *mdWriter) printf(format string, args ...any) {
	if m.err == nil {
		_, m.err = fmt.Fprintf(m.w, format, args...)
	}
}

func (m *mdWriter) header(doc *pidex.Document, info pidex.Session) {
	title := info.FirstMessage
	if info.Name != nil && *info.Name != "" {
		title = *info.Name
	}
	title = text.OneLine(text.Cut(title, 120))
	if title == "" {
		title = "Session " + info.ID
	}
	m.printf("# %s\n\n", title)
	m.printf("- **Session:** `%s`%s\n", info.ID, nameSuffix(info))
	m.printf("- **File:** %s\n", code(info.Path))
	m.printf("- **Project:** %s\n", code(info.Cwd))
	if info.Machine != "" {
		m.printf("- **Machine:** %s\n", info.Machine)
	}
	if info.Created != nil {
		m.printf("- **Created:** %s · **modified:** %s\n", info.Created.UTC().Format("2006-01-02 15:04 UTC"), info.Modified.UTC().Format("2006-01-02 15:04 UTC"))
	}
	model := doc.Model
	if model == "" {
		model = "none"
	}
	if doc.Thinking != "" {
		model += ", thinking " + doc.Thinking
	}
	m.printf("- **Model:** %s", model)
	if len(info.Models) > 1 {
		m.printf(" (used: %s)", strings.Join(info.Models, ", "))
	}
	m.printf("\n- **Cost:** %s · **tokens:** %s (input %s, output %s, cache read %s, cache write %s)\n", text.Money(info.Cost),
		text.Round(info.Tokens.Total), text.Round(info.Tokens.Input), text.Round(info.Tokens.Output), text.Round(info.Tokens.CacheRead), text.Round(info.Tokens.CacheWrite))
	switch {
	case doc.Leaf == "":
		m.printf("- **Branch:** none (the session has no entries)\n")
	case doc.Context:
		m.printf("- **Model context** at entry `%s`: the %d %s pi sends to the model when it resumes there\n", doc.Leaf, doc.Messages, text.Plural(doc.Messages, "message", "messages"))
	case doc.Current:
		m.printf("- **Branch:** the current one, %d %s to entry `%s`\n", doc.Entries, text.Plural(doc.Entries, "entry", "entries"), doc.Leaf)
	default:
		m.printf("- **Branch:** %d %s to entry `%s`, not the current leaf `%s`\n", doc.Entries, text.Plural(doc.Entries, "entry", "entries"), doc.Leaf, orEmpty(info.LeafID))
	}
	if m.o.Resume != "" {
		m.printf("- **Resume:** %s\n", code(m.o.Resume))
	}
	if m.o.MaxOutput > 0 {
		m.printf("- Tool output, tool arguments and system prompts are cut at %s each.\n", text.Bytes(int64(m.o.MaxOutput)))
	}
	if !m.o.Thinking {
		m.printf("- Thinking is shown as its length.\n")
	}
	m.printf("\n")
}

func nameSuffix(info pidex.Session) string {
	if info.Name == nil || *info.Name == "" {
		return ""
	}
	return fmt.Sprintf(" (%q)", *info.Name)
}

func orEmpty(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// item writes one entry (or context message): a heading for the
// conversation's items, one italic line for the others.
func (m *mdWriter) item(doc *pidex.Document, it *pidex.DocItem) {
	var where []string
	if t := mdTime(it); t != "" {
		where = append(where, t)
	}
	where = append(where, "entry `"+it.ID+"`", fmt.Sprintf("line %d", it.Line))
	if it.Label != "" {
		where = append(where, fmt.Sprintf("label %q", it.Label))
	}
	if it.Note != "" && !doc.Context {
		where = append(where, it.Note)
	}
	if it.CutBytes > 0 {
		where = append(where, fmt.Sprintf("a %s line, read cut", text.Bytes(it.CutBytes)))
	}
	title := capital(it.Title)
	if it.Detail != "" {
		title += " · " + it.Detail
	}
	if it.Class == "meta" || it.Class == "other" {
		m.printf("*%s — %s*\n\n", mdInline(title), strings.Join(where, " · "))
		m.blocks(it.Blocks)
		return
	}
	if doc.Context {
		title = fmt.Sprintf("%d. %s", it.N, title)
	}
	m.printf("## %s\n\n*%s*\n\n", mdInline(title), strings.Join(where, " · "))
	if it.Class == "summary" { // a compaction or branch summary stands in for entries: set it apart
		var b strings.Builder
		sub := &mdWriter{w: &b, o: m.o}
		sub.blocks(it.Blocks)
		m.printf("%s\n", quote(b.String()))
		return
	}
	m.blocks(it.Blocks)
}

func (m *mdWriter) blocks(bs []pidex.Block) {
	for _, b := range bs {
		m.block(b)
	}
}

func (m *mdWriter) block(b pidex.Block) {
	switch b.Kind {
	case pidex.BlockProse:
		m.printf("%s\n\n", strings.TrimRight(b.Text, "\n"))
	case pidex.BlockLine:
		m.printf("%s\n\n", mdInline(b.Text))
	case pidex.BlockPre:
		m.fence("", b.Text)
	case pidex.BlockOutput:
		m.output(b.Inner)
	case pidex.BlockThinking:
		m.thinking(b)
	case pidex.BlockToolCall:
		m.toolCall(b)
	case pidex.BlockImage:
		m.printf("*%s*\n\n", imageLine(b))
	case pidex.BlockSystem:
		m.system(b)
	default:
		if b.Name != "" {
			m.printf("*[%s block]*\n\n", mdInline(b.Name))
		} else {
			m.fence("json", b.Text)
		}
	}
}

// output is tool output: its text in one fence, images apart.
func (m *mdWriter) output(inner []pidex.Block) {
	var parts []string
	for _, b := range inner {
		switch b.Kind {
		case pidex.BlockImage:
			m.printf("*%s*\n\n", imageLine(b))
		case pidex.BlockPre, pidex.BlockLine, pidex.BlockProse:
			parts = append(parts, b.Text)
		default:
			m.block(b)
		}
	}
	if len(parts) > 0 {
		m.fence("", strings.Join(parts, "\n"))
	}
}

func (m *mdWriter) thinking(b pidex.Block) {
	switch {
	case b.Redacted:
		m.printf("*[thinking: redacted]*\n\n")
	case !m.o.Thinking:
		m.printf("*[thinking: %d chars]*\n\n", utf8.RuneCountInString(b.Text))
	default:
		m.printf("%s\n", quote("**Thinking**\n\n"+strings.TrimRight(b.Text, "\n")+"\n\n"))
	}
}

// toolCall is "**→ name**" and its arguments: short ones inline, a string
// over one line fenced.
func (m *mdWriter) toolCall(b pidex.Block) {
	m.printf("**→ %s**\n\n", mdInline(b.Name))
	if b.Text != "" {
		m.fence("json", b.Text)
		return
	}
	for _, a := range b.Args {
		v := a.Text()
		if strings.Contains(v, "\n") || len(v) > 200 {
			m.printf("- %s:\n\n", mdInline(a.Key))
			m.fence("", v)
			continue
		}
		m.printf("- %s: %s\n", mdInline(a.Key), code(v))
	}
	if len(b.Args) > 0 {
		m.printf("\n")
	}
}

func (m *mdWriter) system(b pidex.Block) {
	var all strings.Builder
	all.WriteString(b.Text)
	for _, a := range b.Args {
		all.WriteString("\n\n## " + a.Key + "\n" + a.Text())
	}
	m.printf("**System prompt** (%d chars", utf8.RuneCountInString(all.String()))
	if len(b.Tools) > 0 {
		m.printf("; tools %s", strings.Join(b.Tools, ", "))
	}
	m.printf(")\n\n")
	m.fence("", strings.TrimLeft(all.String(), "\n"))
}

// fence writes s as a fenced block, cut to MaxOutput with the cut said.
func (m *mdWriter) fence(lang, s string) {
	s = strings.TrimRight(s, "\n")
	note := ""
	if n := m.o.MaxOutput; n > 0 && len(s) > n {
		for n > 0 && !utf8.RuneStart(s[n]) { // not inside a character
			n--
		}
		cut := s[:n]
		note = fmt.Sprintf("*(cut: the first %s of %s)*\n\n", text.Bytes(int64(len(cut))), text.Bytes(int64(len(s))))
		s = cut
	}
	f := strings.Repeat("`", max(3, longestRun(s, '`')+1))
	m.printf("%s%s\n%s\n%s\n\n%s", f, lang, s, f, note)
}

// longestRun is the length of the longest run of c in s.
func longestRun(s string, c byte) int {
	n, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			run++
			n = max(n, run)
		} else {
			run = 0
		}
	}
	return n
}

// code is s as inline code, with backticks around it longer than any run
// inside (and a space where s starts or ends with one).
func code(s string) string {
	s = text.OneLine(s)
	f := strings.Repeat("`", longestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return f + s + f
}

// quote prefixes every line of s with "> ".
func quote(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight("> "+l, " ")
	}
	return strings.Join(lines, "\n") + "\n"
}

// mdInline escapes the characters that would make a one-line label
// Markdown (emphasis, links, headings, HTML).
func mdInline(s string) string {
	r := strings.NewReplacer(`\`, `\\`, "*", `\*`, "_", `\_`, "`", "\\`", "[", `\[`, "]", `\]`, "<", `&lt;`, "#", `\#`)
	return r.Replace(text.OneLine(s))
}

func capital(s string) string {
	if s == "" {
		return s
	}
	r, n := utf8.DecodeRuneInString(s)
	return strings.ToUpper(string(r)) + s[n:]
}

// mdTime is an item's time, UTC to the second.
func mdTime(it *pidex.DocItem) string {
	if it.Time == nil {
		return it.Stamp
	}
	return it.Time.UTC().Format(time.DateTime) + " UTC"
}
