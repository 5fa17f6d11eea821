package pi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/js"
	"github.com/pidex-dev/pidex/internal/text"
	"github.com/pidex-dev/pidex/schema"
)

// Role is what one message role means, for message entries and for the
// messages of a rebuilt context. Its data fields mean what Kind's do.
type Role struct {
	Role string
	// Example is a message of this role as pi writes it (for the tests).
	Example string

	Class       string // look in a reading view ("": other)
	Group       string // search role group ("": none)
	UsageSource string // source of the usage record it carries ("": none)
	SetsModel   bool   // puts its model in effect on its path

	// Text is the message's searchable text.
	Text func(m *schema.Message) string
	// Preview is a one-line summary (not yet cut).
	Preview func(m *schema.Message) string
	// Show is what `pidex show` prints; raw returns the message's JSON,
	// which only roles with fields outside schema.Message need.
	Show func(m *schema.Message, raw func() json.RawMessage) Shown
	// Facts is what the catalog records of the message.
	Facts func(m *schema.Message) Facts
}

// roles is the registry of message roles.
var roles registry[Role]

// RegisterRole adds (or replaces) the meaning of a message role.
func RegisterRole(r Role) { roles.set(r.Role, r) }

// Roles returns every registered role, in registration order.
func Roles() []*Role { return roles.all() }

// RoleOf returns the meaning of m's role (v2's hookMessage read as
// custom); an unknown role shows its name and content.
func RoleOf(m *schema.Message) *Role {
	if r, ok := roles.get(RoleName(m)); ok {
		return r
	}
	return unknownRole
}

// RoleName is a message's role as pi v3 reads it: v2's hookMessage is
// custom.
func RoleName(m *schema.Message) string { return roleName(m.Role) }

func roleName(role string) string {
	if role == schema.RoleHookMessage {
		return schema.RoleCustom
	}
	return role
}

// ShowMessage is what `pidex show --context` prints for one context message.
func ShowMessage(raw json.RawMessage) Shown {
	var m schema.Message
	if err := json.Unmarshal(raw, &m); err != nil && m.Role == "" {
		return Shown{Title: "message", Body: []Part{line(text.Cut(string(raw), 200))}}
	}
	return RoleOf(&m).Show(&m, func() json.RawMessage { return raw })
}

var unknownRole = &Role{
	Text:    func(m *schema.Message) string { return ContentText(m.Content) },
	Preview: defaultPreview,
	Show: func(m *schema.Message, _ func() json.RawMessage) Shown {
		title := m.Role
		if title == "" {
			title = "message"
		}
		return Shown{Title: title, Body: []Part{content(m.Content, true)}}
	},
	Facts: func(*schema.Message) Facts { return Facts{} },
}

func noMessageFacts(*schema.Message) Facts { return Facts{} }

func init() {
	RegisterRole(Role{
		Role:    schema.RoleUser,
		Example: `{"role":"user","content":[{"type":"text","text":"Fix the failing test in parse_header"}],"timestamp":1777629605000}`,
		Class:   "user",
		Group:   "user",
		Text:    func(m *schema.Message) string { return ContentText(m.Content) },
		Preview: defaultPreview,
		Show: func(m *schema.Message, _ func() json.RawMessage) Shown {
			return Shown{Title: "user", Body: []Part{content(m.Content, false)}, Empty: "(empty)"}
		},
		Facts: noMessageFacts,
	})
	RegisterRole(Role{
		Role:        schema.RoleAssistant,
		Example:     `{"role":"assistant","content":[{"type":"thinking","thinking":"The header check is off by one."},{"type":"text","text":"Found it."},{"type":"toolCall","id":"t1","name":"edit","arguments":{"path":"src/parse.go"}}],"provider":"anthropic","model":"claude-x","usage":{"input":10,"output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":15,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0.01}},"stopReason":"toolUse","timestamp":1777629606000}`,
		Class:       "assistant",
		Group:       "assistant",
		UsageSource: sourceAssistant,
		SetsModel:   true,
		Text:        func(m *schema.Message) string { return joinText(ContentText(m.Content), m.ErrorMessage) },
		Preview:     defaultPreview,
		Show: func(m *schema.Message, _ func() json.RawMessage) Shown {
			detail := pidex.ModelName(m.Provider, m.Model)
			switch m.StopReason {
			case "", "stop", "toolUse":
			default:
				detail += ", " + m.StopReason
			}
			body := []Part{content(m.Content, false)}
			if m.ErrorMessage != "" {
				body = append(body, line("[error: "+m.ErrorMessage+"]"))
			}
			return Shown{Title: "assistant", Detail: detail, Body: body, Empty: "(empty)"}
		},
		Facts: func(m *schema.Message) Facts {
			return Facts{Provider: m.Provider, Model: m.Model, ToolCalls: toolCalls(m.Content),
				Usage:      usageOf(sourceAssistant, m.Usage, m.Provider, m.Model, "", m.ResponseID),
				StopReason: m.StopReason, Error: ErrorLine(m.ErrorMessage)}
		},
	})
	RegisterRole(Role{
		Role:        schema.RoleToolResult,
		Example:     `{"role":"toolResult","toolCallId":"t1","toolName":"bash","content":[{"type":"text","text":"ok\n2 tests passed"}],"isError":false,"timestamp":1777629607000}`,
		Class:       "tool",
		Group:       "tool",
		UsageSource: sourceToolResult,
		Text: func(m *schema.Message) string {
			return joinText(m.ToolName, ContentText(m.Content), m.Output)
		},
		Preview: func(m *schema.Message) string { return m.ToolName + ": " + text.FirstLine(JoinedText(m.Content)) },
		Show: func(m *schema.Message, _ func() json.RawMessage) Shown {
			detail := m.ToolName
			if m.IsError {
				detail += ", error"
			}
			body := content(m.Content, true)
			if m.Content.IsNull() && m.Output != "" { // before 2025-11-12
				body = output(m.Output)
			}
			return Shown{Title: "tool result", Detail: detail, Body: []Part{body}, Empty: "(no output)"}
		},
		Facts: func(m *schema.Message) Facts {
			f := Facts{Usage: usageOf(sourceToolResult, m.Usage, "", "", "", ""),
				ToolResult: &ToolResult{CallID: m.ToolCallID, Tool: m.ToolName, IsError: m.IsError, Size: resultSize(m)}}
			if u := subagentUsage(m); u != nil {
				f.Usage = append(f.Usage, UsageRecord{Source: "subagent", Usage: *u, TotalsOnly: true})
			}
			return f
		},
	})
	RegisterRole(Role{
		Role:    schema.RoleBashExecution,
		Example: `{"role":"bashExecution","command":"go test ./...","output":"ok  \tpidex/query\t0.7s","exitCode":0,"cancelled":false,"truncated":false,"timestamp":1777629608000}`,
		Class:   "tool",
		Group:   "tool",
		Text:    func(m *schema.Message) string { return joinText(m.Command, m.Output) },
		Preview: func(m *schema.Message) string { return "$ " + m.Command },
		Show:    showBash,
		Facts:   func(m *schema.Message) Facts { return Facts{Command: CommandWord(m.Command)} },
	})
	RegisterRole(Role{
		Role:    schema.RoleCustom,
		Example: `{"role":"custom","customType":"todo","content":"Remember the Windows build","display":true,"timestamp":1777629609000}`,
		Class:   "custom",
		Text:    func(m *schema.Message) string { return ContentText(m.Content) },
		Preview: defaultPreview,
		Show: func(m *schema.Message, _ func() json.RawMessage) Shown {
			detail := m.CustomType
			if !m.Display {
				detail += ", hidden"
			}
			return Shown{Title: "custom message", Detail: strings.TrimPrefix(detail, ", "),
				Body: []Part{content(m.Content, !m.Display)}}
		},
		Facts: noMessageFacts,
	})
	RegisterRole(Role{
		Role:    schema.RoleSystem,
		Example: `{"role":"system","content":"You are a coding agent.","timestamp":1777629600000}`,
		Class:   "system",
		Text:    func(m *schema.Message) string { return ContentText(m.Content) },
		Preview: defaultPreview,
		Show: func(m *schema.Message, raw func() json.RawMessage) Shown {
			return Shown{Title: "system", Body: []Part{{Kind: PartSystem, Raw: raw()}}}
		},
		Facts: noMessageFacts,
	})
	// oh-my-pi's roles
	RegisterRole(Role{
		Role:    schema.RoleDeveloper,
		Example: `{"role":"developer","content":"Use the repository's lint rules.","timestamp":1777629600000}`,
		Class:   "system",
		Text:    func(m *schema.Message) string { return ContentText(m.Content) },
		Preview: defaultPreview,
		Show: func(m *schema.Message, _ func() json.RawMessage) Shown {
			return Shown{Title: "developer", Body: []Part{content(m.Content, true)}}
		},
		Facts: noMessageFacts,
	})
	RegisterRole(Role{
		Role:    schema.RolePythonExecution,
		Example: `{"role":"pythonExecution","code":"print(2+2)","output":"4","exitCode":0,"cancelled":false,"truncated":false,"timestamp":1777629608000}`,
		Class:   "tool",
		Group:   "tool",
		Text: func(m *schema.Message) string {
			return joinText(m.Code, m.Output)
		},
		Preview: func(m *schema.Message) string { return ">>> " + text.FirstLine(m.Code) },
		Show: func(m *schema.Message, _ func() json.RawMessage) Shown {
			s := Shown{Title: "python", Body: []Part{lines(m.Code), output(m.Output)}}
			if m.ExcludeFromContext {
				s.Detail = "not sent to the model"
			}
			return s
		},
		Facts: noMessageFacts,
	})
	RegisterRole(Role{
		Role:    schema.RoleBranchSummary,
		Example: `{"role":"branchSummary","summary":"Tried make; it passed.","fromId":"a3","timestamp":1777629610000}`,
		Class:   "summary",
		Group:   "summary",
		Text:    func(m *schema.Message) string { return m.Summary },
		Preview: func(m *schema.Message) string { return m.Summary },
		Show: func(m *schema.Message, _ func() json.RawMessage) Shown {
			return Shown{Title: "branch summary", Detail: "from " + m.FromID, Body: []Part{lines(m.Summary)}}
		},
		Facts: noMessageFacts,
	})
	RegisterRole(Role{
		Role:    schema.RoleCompactionSummary,
		Example: `{"role":"compactionSummary","summary":"Fixed the header parser.","tokensBefore":52000,"timestamp":1777629611000}`,
		Class:   "summary",
		Group:   "summary",
		Text:    func(m *schema.Message) string { return m.Summary },
		Preview: func(m *schema.Message) string { return m.Summary },
		Show: func(m *schema.Message, _ func() json.RawMessage) Shown {
			return Shown{Title: "compaction summary", Detail: fmt.Sprintf("%d tokens before", m.TokensBefore),
				Body: []Part{lines(m.Summary)}}
		},
		Facts: noMessageFacts,
	})
}

// subagentUsage is the summed usage of the subagents an omp task tool
// ran (details.usage of its result), nil for any other result.
func subagentUsage(m *schema.Message) *schema.Usage {
	if m.ToolName != "task" || len(m.Details) == 0 {
		return nil
	}
	raw := js.Field(m.Details, "usage")
	if raw == nil {
		return nil
	}
	var u schema.Usage
	if json.Unmarshal(raw, &u) != nil {
		return nil
	}
	return &u
}

func showBash(m *schema.Message, _ func() json.RawMessage) Shown {
	s := Shown{Title: "bash", Body: []Part{line("$ " + m.Command), output(m.Output)}}
	if m.ExcludeFromContext {
		s.Detail = "not sent to the model"
	}
	switch {
	case m.Cancelled:
		s.Body = append(s.Body, line("[cancelled]"))
	case m.ExitCode != nil && *m.ExitCode != 0:
		s.Body = append(s.Body, line(fmt.Sprintf("[exit code %d]", *m.ExitCode)))
	}
	if m.Truncated && m.FullOutputPath != "" {
		s.Body = append(s.Body, line("[output truncated, full output: "+m.FullOutputPath+"]"))
	}
	return s
}

// defaultPreview is the text, else the tool calls, else the error.
func defaultPreview(m *schema.Message) string {
	if t := JoinedText(m.Content); strings.TrimSpace(t) != "" {
		return t
	}
	bs, _ := m.Content.Blocks()
	var calls []string
	for _, b := range bs {
		if b.Type == schema.BlockToolCall {
			calls = append(calls, b.Name)
		}
	}
	if len(calls) > 0 {
		return "[tool: " + strings.Join(calls, ", ") + "]"
	}
	if m.ErrorMessage != "" {
		return "[error: " + m.ErrorMessage + "]"
	}
	return ""
}

// ContentText is the searchable text of message content: text and
// thinking blocks, and tool calls as their name and arguments; images are
// not text.
func ContentText(c schema.Content) string {
	if c.IsString() {
		return JoinedText(c)
	}
	bs, err := c.Blocks()
	if err != nil {
		return ""
	}
	parts := make([]string, 0, len(bs))
	for _, b := range bs {
		switch b.Type {
		case schema.BlockText:
			parts = append(parts, b.Text)
		case schema.BlockThinking:
			parts = append(parts, b.Thinking)
		case schema.BlockToolCall:
			parts = append(parts, joinText(b.Name, ArgumentsText(b.Arguments)))
		}
	}
	return joinText(parts...)
}

// ArgumentsText is the searchable text of a tool call's arguments: their
// names and values, strings decoded. The compacted JSON kept its escapes,
// so a word after a newline or tab in a command ("ps aux\ndocker ps") was
// indexed glued to the escape's letter ("ndocker") and never found.
func ArgumentsText(args json.RawMessage) string {
	var b strings.Builder
	js.Scalars(args, func(s string) {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(s)
	})
	return b.String()
}

// toolCalls lists the toolCall blocks of message content. It splits the
// content with the byte scanner of ParseObject instead of decoding it
// (assistant content is most of a session's bytes: decoding it with
// encoding/json cost a fifth of a cold index).
func toolCalls(c schema.Content) []ToolCall {
	if c.IsNull() || c.IsString() || !bytes.Contains(c, []byte(`"toolCall"`)) {
		return nil
	}
	var out []ToolCall
	i := 0
	js.EachElement(json.RawMessage(c), func(el json.RawMessage) {
		if o, ok := js.ParseObject(el); ok && o.Str("type") == schema.BlockToolCall {
			c := ToolCall{Index: i, ID: o.Str("id"), Name: o.Str("name")}
			if c.Name == "bash" {
				if args, ok := js.ParseObject(o.Get("arguments")); ok {
					c.Command = CommandWord(args.Str("command"))
				}
			}
			out = append(out, c)
		}
		i++
	})
	return out
}
