package mcp

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/export"
	"github.com/pidex-dev/pidex/internal/redact"
	"github.com/pidex-dev/pidex/internal/text"
)

// export_session: a session as Markdown, for a hand-off.

type exportArgs struct {
	Session   string `json:"session" jsonschema:"the session: an id (as search_sessions and list_sessions give it), a unique prefix of one, a name, or a path"`
	Leaf      string `json:"leaf,omitempty" jsonschema:"the branch ending at this entry (get_session lists each branch's leaf); default: the current branch"`
	Context   bool   `json:"context,omitempty" jsonschema:"the model context pi rebuilds at the leaf instead of the branch's entries"`
	Thinking  bool   `json:"thinking,omitempty" jsonschema:"include the model's thinking text (default: its length only)"`
	Redact    bool   `json:"redact,omitempty" jsonschema:"replace secrets (API keys, tokens, private keys, passwords in URLs) with [REDACTED]"`
	MaxOutput *int   `json:"max_output,omitempty" jsonschema:"bytes kept of each tool output, tool argument and system prompt (0: whole)"`
	MaxChars  int    `json:"max_chars,omitempty" jsonschema:"character budget of the whole result: the Markdown is cut before the first entry that does not fit"`
	Machine   string `json:"machine,omitempty" jsonschema:"team catalog: the session's machine, when its id is on several"`
}

type exportResult struct {
	Session   sessionRef `json:"session"`
	Resume    *resumeOut `json:"resume,omitempty"`
	Markdown  string     `json:"markdown" jsonschema:"the session as Markdown: name, project, model, cost and resume command on top, then the conversation"`
	Chars     int        `json:"chars" jsonschema:"characters of the whole Markdown, before any cut"`
	Truncated string     `json:"truncated,omitempty" jsonschema:"what the budget left out and how to get it; absent when nothing was"`
}

// resumeOut is the command that continues a session in its agent.
type resumeOut struct {
	Command string   `json:"command" jsonschema:"the shell command that continues the session in the agent that wrote it (pidex resume); hand it to the user"`
	Notes   []string `json:"notes,omitempty" jsonschema:"what else to know: how to reach the leaf inside the agent, what the agent does to the file"`
}

const exportDesc = `A pi session as Markdown, to hand it on to a person or another agent: its name, project, model, cost and the command that resumes it, then the conversation on one branch (the current one, or leaf's) — messages, tool calls with their arguments and results cut to max_output bytes, compaction and branch summaries marked. context=true gives the model context pi rebuilds instead. Cut to max_chars at an entry boundary; read_session pages through the rest.`

func (s *Server) addExport() {
	addTool(s, toolSpec[exportArgs, exportResult]{
		name: "export_session", title: "Session as Markdown", desc: exportDesc, quotes: true,
		patch: func(sc *jsonschema.Schema) {
			bounds(sc, "max_chars", pidex.MinBudget, pidex.MaxBudget, pidex.DefaultBudget)
			bounds(sc, "max_output", 0, 1<<31-1, pidex.DefaultMaxOutput)
		},
		run: s.export,
	})
}

func (s *Server) export(ctx context.Context, in *exportArgs) (reply[exportResult], error) {
	var r reply[exportResult]
	budget, err := pidex.BudgetOptions{Chars: in.MaxChars}.Filter(s.cat.Vocabulary())
	if err != nil {
		return r, err
	}
	o := pidex.ExportOptions{Format: pidex.FormatMarkdown, Leaf: in.Leaf, Context: in.Context, Thinking: in.Thinking, Redact: in.Redact,
		MaxOutput: pidex.DefaultMaxOutput}
	if in.MaxOutput != nil {
		o.MaxOutput = *in.MaxOutput
	}
	ref, err := s.session(ctx, in.Session, s.machine(in.Machine))
	if err != nil {
		return r, err
	}
	var b bytes.Buffer
	if err := export.Write(ctx, s.cat, ref, o, &b); err != nil {
		return r, entryError(err, "leaf", in.Leaf, ref)
	}
	md := b.String()
	out := exportResult{Session: sessionRef{ID: s.handle(ctx, ref.SessionID, ref.Path, ref.Machine, map[string]string{}), Title: ref.Name, Path: ref.Path, Machine: ref.Machine},
		Chars: chars(md)}
	if res, err := s.cat.Resume(ctx, ref, pidex.ResumeOptions{Leaf: in.Leaf}); err == nil {
		out.Resume = resumeOf(res)
		if in.Redact { // a note quotes the leaf's text
			for i := range out.Resume.Notes {
				out.Resume.Notes[i], _ = redact.String(out.Resume.Notes[i])
			}
		}
	}
	room := budget.Chars - reserve
	if out.Chars > room {
		md = cutMarkdown(md, room)
		out.Truncated = fmt.Sprintf("the Markdown has %s characters; the first %s fit max_chars (cut before an entry): raise max_chars (up to %s), or read the rest with read_session session=%s%s",
			count(out.Chars), count(chars(md)), count(pidex.MaxBudget), quoted(out.Session.ID), onMachine(ref.Machine))
	}
	out.Markdown = md
	r.data, r.text = out, fmt.Sprintf("Session %s as Markdown, between the fences:\n\n%s", quoted(out.Session.ID), fenced(md))
	if out.Truncated != "" {
		r.text += "\n\n[" + out.Truncated + "]"
	}
	return r, nil
}

// cutMarkdown is the longest start of md within n characters that ends
// before an entry's heading (or, failing that, at a line's end).
func cutMarkdown(md string, n int) string {
	cut := text.Cut(md, n)
	cut = strings.TrimSuffix(cut, "…")
	if i := strings.LastIndex(cut, "\n## "); i > 0 {
		return cut[:i+1]
	}
	if i := strings.LastIndexByte(cut, '\n'); i > 0 {
		return cut[:i+1]
	}
	return cut
}

// resumeLines is a resume command in a result's text.
func resumeLines(r *pidex.Resume) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Resume: %s\n", r.Command)
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "  (%s)\n", n)
	}
	return b.String()
}

// resumeOf is a resume command as the tools give it.
func resumeOf(r *pidex.Resume) *resumeOut {
	return &resumeOut{Command: r.Command, Notes: r.Notes}
}
