package pi

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/js"
	"github.com/pidex-dev/pidex/schema"
)

// The meaning of every entry kind pi writes, one Kind each. Adding a kind
// is one more Register call here (its fields decoded from l.Raw if
// schema.Line lacks them). Message entries defer to the role table
// (roles.go).

// Usage sources: the names of the usage records' carriers, as cost
// reports tag and filter them.
const (
	sourceAssistant     = "assistant"      // an assistant message's usage
	sourceToolResult    = "toolResult"     // a tool result's usage (LLM work inside a tool)
	sourceCompaction    = "compaction"     // a compaction's usage
	sourceBranchSummary = "branch_summary" // a branch summary's usage
	sourceUsage         = "usage"          // usage entries
)

func init() {
	Register(Kind{
		Type:    schema.TypeMessage,
		Example: `{"type":"message","id":"a3","parentId":"a2","timestamp":"2026-05-01T10:00:05.000Z","message":{"role":"user","content":[{"type":"text","text":"fix the build"}],"timestamp":1777629605000}}`,
		Carries: true,
		Text: func(l *schema.Line) string {
			if l.Message == nil {
				return ""
			}
			return RoleOf(l.Message).Text(l.Message)
		},
		Preview: func(l *schema.Line) string {
			if l.Message == nil {
				return ""
			}
			return RoleOf(l.Message).Preview(l.Message)
		},
		Show: func(l *schema.Line, _ Where) Shown {
			if l.Message == nil { // null, missing, or not an object
				return Shown{Title: "message", Detail: "no message object"}
			}
			return RoleOf(l.Message).Show(l.Message, func() json.RawMessage { return js.Field(l.Raw, "message") })
		},
		Facts: func(l *schema.Line) Facts {
			if l.Message == nil {
				return Facts{}
			}
			return RoleOf(l.Message).Facts(l.Message)
		},
		Context:  messageContext,
		Settings: messageSettings,
	})
	Register(Kind{
		Type:      schema.TypeModelChange,
		Example:   `{"type":"model_change","id":"a1","parentId":null,"timestamp":"2026-05-01T10:00:00.100Z","provider":"anthropic","modelId":"claude-x"}`,
		SetsModel: true,
		Text:      noText,
		Preview:   modelChange,
		Show: func(l *schema.Line, _ Where) Shown {
			return Shown{Title: "model", Detail: modelChange(l)}
		},
		Facts: func(l *schema.Line) Facts {
			f := Facts{Provider: l.Provider, Model: l.ModelID}
			if l.ModelID == "" && l.Model != "" { // fork format: model "provider/id"
				f.Provider, f.Model, _ = strings.Cut(l.Model, "/")
			}
			return f
		},
		Context: noContext,
		Settings: func(o js.Object, s *Settings) {
			s.Model = &pidex.ContextModel{Provider: o.Get("provider"), ModelID: o.Get("modelId")}
		},
	})
	Register(Kind{
		Type:    schema.TypeThinkingLevelChange,
		Example: `{"type":"thinking_level_change","id":"a2","parentId":"a1","timestamp":"2026-05-01T10:00:00.100Z","thinkingLevel":"medium"}`,
		Text:    noText,
		Preview: func(l *schema.Line) string { return l.ThinkingLevel },
		Show: func(l *schema.Line, _ Where) Shown {
			return Shown{Title: "thinking level", Detail: l.ThinkingLevel}
		},
		Facts:    noFacts,
		Context:  noContext,
		Settings: func(o js.Object, s *Settings) { s.ThinkingLevel = o.Get("thinkingLevel") },
	})
	Register(Kind{
		Type:        schema.TypeCompaction,
		Example:     `{"type":"compaction","id":"c1","parentId":"a5","timestamp":"2026-05-01T11:00:00.000Z","summary":"Fixed the build; tests pass.","firstKeptEntryId":"a4","tokensBefore":52000,"usage":{"input":900,"output":120,"cacheRead":0,"cacheWrite":0,"totalTokens":1020,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0.02}}}`,
		Class:       "summary",
		Group:       "summary",
		UsageSource: sourceCompaction,
		Compaction:  true,
		Carries:     true,
		Text:        func(l *schema.Line) string { return l.Summary },
		Preview:     func(l *schema.Line) string { return l.Summary },
		Show:        showCompaction,
		Facts: func(l *schema.Line) Facts {
			return Facts{FirstKept: l.FirstKeptEntryID, FirstKeptIndex: l.FirstKeptEntryIndex,
				Usage: usageOf(sourceCompaction, l.Usage, "", "", "", "")}
		},
		Context:  compactionContext,
		Settings: noSettings,
	})
	Register(Kind{
		Type:        schema.TypeBranchSummary,
		Example:     `{"type":"branch_summary","id":"b1","parentId":"a3","timestamp":"2026-05-01T10:05:00.000Z","fromId":"a3","summary":"Tried make; it passed."}`,
		Class:       "summary",
		Group:       "summary",
		UsageSource: sourceBranchSummary,
		// Not marked by show: its detail says when it is empty (the one case
		// it stays out of the context); a compaction never covers it.
		Text:    func(l *schema.Line) string { return l.Summary },
		Preview: func(l *schema.Line) string { return l.Summary },
		Show: func(l *schema.Line, _ Where) Shown {
			detail := "from " + l.FromID
			if l.Summary == "" {
				detail += ", empty (not in context)"
			}
			return Shown{Title: "branch summary", Detail: detail, Body: []Part{lines(l.Summary)}}
		},
		Facts: func(l *schema.Line) Facts {
			return Facts{Usage: usageOf(sourceBranchSummary, l.Usage, "", "", "", "")}
		},
		Context:  branchSummaryContext,
		Settings: noSettings,
	})
	Register(Kind{
		Type:    schema.TypeCustomMessage,
		Example: `{"type":"custom_message","id":"m1","parentId":"a5","timestamp":"2026-05-01T10:06:00.000Z","customType":"todo","content":"Remember the Windows build","display":true}`,
		Class:   "custom",
		Carries: true,
		Text:    func(l *schema.Line) string { return ContentText(l.Content) },
		Preview: func(l *schema.Line) string { return l.CustomType + ": " + JoinedText(l.Content) },
		Show: func(l *schema.Line, _ Where) Shown {
			detail := l.CustomType
			if !l.Display {
				detail += ", hidden"
			}
			// Hidden ones are injected context (pi does not display them): abbreviated.
			return Shown{Title: "custom message", Detail: detail, Body: []Part{content(l.Content, !l.Display)}}
		},
		Facts:    noFacts,
		Context:  customMessageContext,
		Settings: noSettings,
	})
	Register(Kind{
		Type:    schema.TypeCustom,
		Example: `{"type":"custom","id":"x1","parentId":"a5","timestamp":"2026-05-01T10:07:00.000Z","customType":"todo-state","data":{"open":2}}`,
		Text:    noText, // extension state, not prose
		Preview: func(l *schema.Line) string { return l.CustomType },
		Show: func(l *schema.Line, _ Where) Shown {
			return Shown{Title: "custom entry", Detail: l.CustomType}
		},
		Facts:    noFacts,
		Context:  noContext,
		Settings: noSettings,
	})
	Register(Kind{
		Type:    schema.TypeLabel,
		Example: `{"type":"label","id":"l1","parentId":"a5","timestamp":"2026-05-01T10:08:00.000Z","targetId":"a3","label":"good idea"}`,
		Text:    func(l *schema.Line) string { return labelText(l) },
		Preview: func(l *schema.Line) string {
			if t := labelText(l); t != "" {
				return fmt.Sprintf("%q → %s", t, l.TargetID)
			}
			return "clear → " + l.TargetID
		},
		Show: func(l *schema.Line, _ Where) Shown {
			if t := labelText(l); t != "" {
				return Shown{Title: "label", Detail: strconv.Quote(t) + " → " + l.TargetID}
			}
			return Shown{Title: "label", Detail: "cleared on " + l.TargetID}
		},
		Facts: func(l *schema.Line) Facts {
			return Facts{Target: l.TargetID, Label: &LabelOp{Target: l.TargetID, Text: labelText(l)}}
		},
		Context:  noContext,
		Settings: noSettings,
	})
	Register(Kind{
		Type:    schema.TypeSessionInfo,
		Example: `{"type":"session_info","id":"n1","parentId":"l1","timestamp":"2026-05-01T10:09:00.000Z","name":" Build fix "}`,
		Text:    func(l *schema.Line) string { return sessionName(l) },
		Preview: func(l *schema.Line) string {
			if l.Name != nil {
				return fmt.Sprintf("name %q", *l.Name)
			}
			return ""
		},
		Show: func(l *schema.Line, _ Where) Shown {
			if n := sessionName(l); n != "" {
				return Shown{Title: "session name", Detail: strconv.Quote(n)}
			}
			return Shown{Title: "session name", Detail: "cleared"}
		},
		Facts: func(l *schema.Line) Facts {
			op := &NameOp{}
			if n := sessionName(l); n != "" {
				op.Name = &n
			}
			return Facts{Name: op}
		},
		Context:  noContext,
		Settings: noSettings,
	})
	Register(Kind{
		Type:        schema.TypeContextEdit,
		Example:     `{"type":"context_edit","id":"e1","parentId":"n1","timestamp":"2026-05-01T10:10:00.000Z","targetId":"a5","replacement":{"content":"(output trimmed)"}}`,
		ContextEdit: true,
		Text:        func(l *schema.Line) string { return ContentText(replacementContent(l)) },
		Preview:     func(l *schema.Line) string { return "edit → " + l.TargetID },
		Show: func(l *schema.Line, _ Where) Shown {
			if EditEffect(l) == "omitted" {
				return Shown{Title: "context edit", Detail: "omits " + l.TargetID}
			}
			return Shown{Title: "context edit", Detail: "replaces " + l.TargetID,
				Body: []Part{content(replacementContent(l), true)}}
		},
		Facts:    func(l *schema.Line) Facts { return Facts{Target: l.TargetID} },
		Context:  noContext,
		Settings: noSettings,
	})
	Register(Kind{
		Type:        schema.TypeUsage,
		Example:     `{"type":"usage","id":"u1","parentId":"e1","timestamp":"2026-05-01T10:11:00.000Z","kind":"cache_warm","provider":"anthropic","model":"claude-x","usage":{"input":5000,"output":1,"cacheRead":0,"cacheWrite":5000,"totalTokens":10001,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0.02,"total":0.02}},"note":"warmed the prompt cache"}`,
		UsageSource: sourceUsage,
		Text:        func(l *schema.Line) string { return l.Note },
		Preview:     func(l *schema.Line) string { return l.Kind + " " + pidex.ModelName(l.Provider, l.Model) },
		Show: func(l *schema.Line, _ Where) Shown {
			detail := l.Kind + " " + pidex.ModelName(l.Provider, l.Model)
			if l.Usage != nil {
				detail += fmt.Sprintf(", %s tokens, $%.4f", strconv.FormatFloat(TotalTokens(*l.Usage), 'f', -1, 64), l.Usage.Cost.Total)
			}
			return Shown{Title: "usage record", Detail: detail, Body: []Part{lines(l.Note)}}
		},
		Facts: func(l *schema.Line) Facts {
			return Facts{Provider: l.Provider, Model: l.Model,
				Usage: usageOf(sourceUsage, l.Usage, l.Provider, l.Model, l.Kind, "")}
		},
		Context:  noContext,
		Settings: noSettings,
	})
}

// modelChange is a model_change as "provider/model" (forks write the
// joined form in `model`).
func modelChange(l *schema.Line) string {
	if l.ModelID == "" && l.Model != "" {
		return l.Model
	}
	return pidex.ModelName(l.Provider, l.ModelID)
}

func labelText(l *schema.Line) string {
	if l.Label == nil {
		return ""
	}
	return *l.Label
}

// sessionName is a session_info's name as pi reads it (≥ 2026-03-17):
// trimmed; empty clears.
func sessionName(l *schema.Line) string {
	if l.Name == nil {
		return ""
	}
	return strings.TrimSpace(*l.Name)
}

func replacementContent(l *schema.Line) schema.Content {
	var repl struct {
		Content schema.Content `json:"content"`
	}
	_ = json.Unmarshal(l.Replacement, &repl)
	return repl.Content
}

func usageOf(src string, u *schema.Usage, provider, model, kind, respID string) []UsageRecord {
	if u == nil {
		return nil
	}
	return []UsageRecord{{Source: src, Usage: *u, Provider: provider, Model: model, Kind: kind, ResponseID: respID}}
}

func showCompaction(l *schema.Line, at Where) Shown {
	detail := fmt.Sprintf("%d tokens before", l.TokensBefore)
	if fk := at.Object.Str("firstKeptEntryId"); fk != "" && at.Before(fk) {
		detail += ", keeps from " + fk
	} else {
		detail += ", keeps nothing before it"
	}
	if l.FromHook {
		detail += ", by an extension"
	}
	body := []Part{lines(l.Summary)}
	if l.SystemMessage != nil {
		body = append(body, line("[with a system message snapshot]"))
	}
	return Shown{Title: "compaction", Detail: detail, Body: body}
}
