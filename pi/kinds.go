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
	sourceModelUsage    = "model_usage"    // omp's model_usage entries: LLM calls outside the transcript
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
		Preview: thinkingLevel,
		Show: func(l *schema.Line, _ Where) Shown {
			return Shown{Title: "thinking level", Detail: thinkingLevel(l)}
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
		Text:        func(l *schema.Line) string { return joinText(rawStr(l, "shortSummary"), l.Summary) },
		Preview:     func(l *schema.Line) string { return l.Summary },
		Show:        showCompaction,
		Facts: func(l *schema.Line) Facts {
			f := Facts{FirstKept: l.FirstKeptEntryID, FirstKeptIndex: l.FirstKeptEntryIndex,
				Usage: usageOf(sourceCompaction, l.Usage, "", "", "", "")}
			if l.TokensBefore > 0 {
				f.TokensBefore = &l.TokensBefore
			}
			return f
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

	// ---- oh-my-pi's kinds (@oh-my-pi/pi-coding-agent 18.2.3,
	// session-entries.ts; testdata/gen/omp/README.md §4) ----
	Register(Kind{
		Type:        schema.TypeModelUsage,
		Example:     `{"type":"model_usage","id":"mu1","parentId":"a1","timestamp":"2026-10-05T09:14:09.605Z","purpose":"auto-thinking","role":"tiny","api":"anthropic-messages","provider":"anthropic","model":"claude-haiku-4-5","usage":{"input":412,"output":9,"cacheRead":0,"cacheWrite":0,"totalTokens":421,"cost":{"input":0.000412,"output":0.000045,"cacheRead":0,"cacheWrite":0,"total":0.000457}},"stopReason":"stop"}`,
		UsageSource: sourceModelUsage,
		Text:        func(l *schema.Line) string { return rawStr(l, "errorMessage") },
		Preview:     modelUsage,
		Show: func(l *schema.Line, _ Where) Shown {
			detail := modelUsage(l)
			if l.Usage != nil {
				detail += fmt.Sprintf(", %s tokens, $%.4f", strconv.FormatFloat(TotalTokens(*l.Usage), 'f', -1, 64), l.Usage.Cost.Total)
			}
			s := Shown{Title: "model call", Detail: detail}
			if e := rawStr(l, "errorMessage"); e != "" {
				s.Body = []Part{line("[error: " + e + "]")}
			}
			return s
		},
		Facts: func(l *schema.Line) Facts {
			return Facts{Provider: l.Provider, Model: l.Model,
				Usage: usageOf(sourceModelUsage, l.Usage, l.Provider, l.Model, rawStr(l, "purpose"), "")}
		},
		Context:  noContext,
		Settings: noSettings,
	})
	Register(Kind{
		Type:    schema.TypeTitleChange,
		Example: `{"type":"title_change","id":"t1","parentId":"a2","timestamp":"2026-10-05T09:15:15.491Z","title":"Flaky upload retry on CI","source":"auto","trigger":"first-turn"}`,
		// The title itself is the slot's (or the header's): this records
		// the change, and holds the title whole (the slot may cut it).
		Text:    func(l *schema.Line) string { return rawStr(l, "title") },
		Preview: func(l *schema.Line) string { return "title " + strconv.Quote(rawStr(l, "title")) },
		Show: func(l *schema.Line, _ Where) Shown {
			detail := strconv.Quote(rawStr(l, "title"))
			if src := rawStr(l, "source"); src != "" {
				detail += " (" + src + ")"
			}
			return Shown{Title: "title", Detail: detail}
		},
		Facts:    noFacts,
		Context:  noContext,
		Settings: noSettings,
	})
	Register(Kind{
		Type:    schema.TypeResetBoundary,
		Example: `{"type":"reset_boundary","id":"r1","parentId":"a5","timestamp":"2026-10-06T14:09:00.000Z"}`,
		Reset:   true,
		Text:    noText,
		Preview: func(*schema.Line) string { return "/clear" },
		Show: func(*schema.Line, Where) Shown {
			return Shown{Title: "context reset", Detail: "/clear: the model context starts after it"}
		},
		Facts:    noFacts,
		Context:  noContext,
		Settings: noSettings,
	})
	Register(Kind{
		Type:     schema.TypeModeChange,
		Example:  `{"type":"mode_change","id":"m1","parentId":"a1","timestamp":"2026-10-05T09:14:07.412Z","mode":"plan","data":{"planFile":".omp/plans/upload-retry.md"}}`,
		Text:     noText,
		Preview:  func(l *schema.Line) string { return "mode " + rawStr(l, "mode") },
		Show:     func(l *schema.Line, _ Where) Shown { return Shown{Title: "mode", Detail: rawStr(l, "mode")} },
		Facts:    noFacts,
		Context:  noContext,
		Settings: noSettings,
	})
	Register(Kind{
		Type:    schema.TypeServiceTierChange,
		Example: `{"type":"service_tier_change","id":"st1","parentId":"a1","timestamp":"2026-10-05T09:14:07.412Z","serviceTier":{"anthropic":"priority"}}`,
		Text:    noText,
		Preview: func(l *schema.Line) string { return "service tier " + js.Compact(js.Field(l.Raw, "serviceTier")) },
		Show: func(l *schema.Line, _ Where) Shown {
			return Shown{Title: "service tier", Detail: js.Compact(js.Field(l.Raw, "serviceTier"))}
		},
		Facts:    noFacts,
		Context:  noContext,
		Settings: noSettings,
	})
	Register(Kind{
		Type:    schema.TypeSessionInit,
		Example: `{"type":"session_init","id":"si1","parentId":null,"timestamp":"2026-10-08T16:46:20.000Z","systemPrompt":"You are a scout.","task":"List every call of uploadV1() with file:line.","tools":["read","grep"],"agent":"scout"}`,
		Class:   "system",
		// The subagent's task is what one looks for it by; its system
		// prompt is boilerplate every subagent shares.
		Text: func(l *schema.Line) string { return rawStr(l, "task") },
		Preview: func(l *schema.Line) string {
			return strings.TrimPrefix(rawStr(l, "agent")+": ", ": ") + rawStr(l, "task")
		},
		Show: func(l *schema.Line, _ Where) Shown {
			return Shown{Title: "subagent start", Detail: rawStr(l, "agent"), Body: []Part{lines(rawStr(l, "task"))}}
		},
		Facts:    noFacts,
		Context:  noContext,
		Settings: noSettings,
	})
	Register(Kind{
		Type:     schema.TypeTtsrInjection,
		Example:  `{"type":"ttsr_injection","id":"tr1","parentId":"a4","timestamp":"2026-10-05T09:15:31.096Z","injectedRules":["no-sleep-in-tests"]}`,
		Text:     func(l *schema.Line) string { return rules(l) },
		Preview:  func(l *schema.Line) string { return "rules " + rules(l) },
		Show:     func(l *schema.Line, _ Where) Shown { return Shown{Title: "rules injected", Detail: rules(l)} },
		Facts:    noFacts,
		Context:  noContext,
		Settings: noSettings,
	})
	Register(Kind{
		Type:    schema.TypeCredentialPin,
		Example: `{"type":"credential_pin","id":"cp1","parentId":"a6","timestamp":"2026-10-05T09:16:26.691Z","provider":"anthropic","hash":"4f1c0d9e"}`,
		Text:    noText,
		Preview: func(l *schema.Line) string { return "credential " + l.Provider },
		Show: func(l *schema.Line, _ Where) Shown {
			return Shown{Title: "credential", Detail: "pinned for " + l.Provider}
		},
		Facts:    noFacts,
		Context:  noContext,
		Settings: noSettings,
	})
}

// modelChange is a model_change as "provider/model" (oh-my-pi writes the
// joined form in `model`, with the role it is for).
func modelChange(l *schema.Line) string {
	if l.ModelID == "" && l.Model != "" {
		if role := rawStr(l, "role"); role != "" && role != "default" {
			return l.Model + " (" + role + ")"
		}
		return l.Model
	}
	return pidex.ModelName(l.Provider, l.ModelID)
}

// thinkingLevel is the level, with omp's selector when it differs
// ("medium (auto)"); omp writes null for no level.
func thinkingLevel(l *schema.Line) string {
	level := l.ThinkingLevel
	if level == "" && js.IsNull(js.Field(l.Raw, "thinkingLevel")) && js.Field(l.Raw, "thinkingLevel") != nil {
		level = "off"
	}
	if c := rawStr(l, "configured"); c != "" && c != level {
		level += " (" + c + ")"
	}
	return level
}

// modelUsage is a model_usage entry in one line: purpose, model, role.
func modelUsage(l *schema.Line) string {
	s := strings.TrimPrefix(rawStr(l, "purpose")+" ", " ") + pidex.ModelName(l.Provider, l.Model)
	if role := rawStr(l, "role"); role != "" {
		s += " (" + role + ")"
	}
	if sr := rawStr(l, "stopReason"); sr != "" && sr != "stop" {
		s += ", " + sr
	}
	return s
}

// rules are a ttsr_injection's rule names.
func rules(l *schema.Line) string {
	var out []string
	js.EachElement(js.Field(l.Raw, "injectedRules"), func(r json.RawMessage) {
		if s, ok := js.StringValue(r); ok {
			out = append(out, s)
		}
	})
	return strings.Join(out, ", ")
}

// rawStr is a string field schema.Line does not decode ("" if absent).
func rawStr(l *schema.Line, key string) string {
	s, _ := js.StringValue(js.Field(l.Raw, key))
	return s
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
	if l.FromHook || js.Truthy(js.Field(l.Raw, "fromExtension")) { // pi's name, omp's
		detail += ", by an extension"
	}
	if m := rawStr(l, "method"); m != "" {
		detail += ", " + m
	}
	if ta := js.Field(l.Raw, "tokensAfter"); js.IsNumber(ta) {
		detail += ", " + string(ta) + " tokens after"
	}
	var body []Part
	if s := rawStr(l, "shortSummary"); s != "" {
		body = append(body, line(s))
	}
	body = append(body, lines(l.Summary))
	if l.SystemMessage != nil {
		body = append(body, line("[with a system message snapshot]"))
	}
	return Shown{Title: "compaction", Detail: detail, Body: body}
}
