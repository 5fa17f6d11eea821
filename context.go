package pidex

import (
	"bytes"
	"encoding/json"
)

// Context is the model context pi rebuilds for a session when it resumes
// it at a leaf: exactly the result of buildSessionContext in
// @earendil-works/pi-coding-agent 1.6.0 (`pidex show --context --json`).
// Each message is the JSON object pi would send the model.
type Context struct {
	Messages []json.RawMessage `json:"messages"`
	// ThinkingLevel is the value of the last thinking_level_change on the
	// path, "off" if there is none; raw JSON (a string in practice), and
	// absent when the last change had no thinkingLevel field.
	ThinkingLevel json.RawMessage `json:"thinkingLevel,omitempty"`
	// Model is the last model_change or assistant message on the path;
	// nil (JSON null) if there is none. (oh-my-pi: its default role's
	// model, pidex's reading of Omp.Models.)
	Model *ContextModel `json:"model"`
	// Omp is what oh-my-pi's buildSessionContext returns besides the
	// messages and the thinking level; nil for pi's sessions.
	Omp *OmpContext `json:"-"`
}

// OmpContext holds oh-my-pi's context settings (session-context.ts
// SessionContext), raw JSON as omp computes them; null stands for an
// undefined value.
type OmpContext struct {
	ConfiguredThinkingLevel json.RawMessage // the latest change's selector ("auto" or a level)
	ServiceTier             json.RawMessage // {openai?, anthropic?, google?}
	Models                  json.RawMessage // {role: "provider/modelId"}, in the order set
	InjectedTtsrRules       []string
	Mode                    string
	ModeData                json.RawMessage
}

// MarshalJSON writes pi's {messages, thinkingLevel, model}, or for an
// oh-my-pi session omp's {messages, thinkingLevel,
// configuredThinkingLevel, serviceTier, models, injectedTtsrRules, mode,
// modeData} followed by pidex's model.
func (c Context) MarshalJSON() ([]byte, error) {
	type pi Context // without the method
	if c.Omp == nil {
		return marshalNoEscape(pi(c))
	}
	null := func(v json.RawMessage) json.RawMessage {
		if len(v) == 0 {
			return json.RawMessage("null")
		}
		return v
	}
	rules := c.Omp.InjectedTtsrRules
	if rules == nil {
		rules = []string{}
	}
	return marshalNoEscape(struct {
		Messages                []json.RawMessage `json:"messages"`
		ThinkingLevel           json.RawMessage   `json:"thinkingLevel"`
		ConfiguredThinkingLevel json.RawMessage   `json:"configuredThinkingLevel"`
		ServiceTier             json.RawMessage   `json:"serviceTier"`
		Models                  json.RawMessage   `json:"models"`
		InjectedTtsrRules       []string          `json:"injectedTtsrRules"`
		Mode                    string            `json:"mode"`
		ModeData                json.RawMessage   `json:"modeData"`
		Model                   *ContextModel     `json:"model"`
	}{c.Messages, null(c.ThinkingLevel), null(c.Omp.ConfiguredThinkingLevel), null(c.Omp.ServiceTier),
		null(c.Omp.Models), rules, c.Omp.Mode, null(c.Omp.ModeData), c.Model})
}

// Level is the thinking level as a string ("" if it is not one).
func (c *Context) Level() string {
	s, _ := jsonString(c.ThinkingLevel)
	return s
}

// marshalNoEscape is json.Marshal without HTML escaping (JSON.stringify
// leaves <, > and & as they are; so does every --json of pidex).
func marshalNoEscape(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// ContextModel is pi's {provider, modelId}. The values are raw JSON
// (strings in practice); a field the source entry lacks is absent.
type ContextModel struct {
	Provider json.RawMessage `json:"provider,omitempty"`
	ModelID  json.RawMessage `json:"modelId,omitempty"`
}

// String is "provider/modelId" ("?" for a missing or non-string part; ""
// for no model).
func (m *ContextModel) String() string {
	if m == nil {
		return ""
	}
	part := func(v json.RawMessage) string {
		if s, ok := jsonString(v); ok {
			return s
		}
		return "?"
	}
	return ModelName(part(m.Provider), part(m.ModelID))
}

// ModelName is how pidex writes a model everywhere: "provider/model".
func ModelName(provider, model string) string { return provider + "/" + model }

// jsonString decodes v when it is a JSON string.
func jsonString(v json.RawMessage) (string, bool) {
	var s string
	if len(v) == 0 || v[0] != '"' || json.Unmarshal(v, &s) != nil {
		return "", false
	}
	return s, true
}

// ReadOptions choose what a Document shows.
type ReadOptions struct {
	Leaf string // the branch ending at this entry ("": pi's leaf, the last entry in the file)
	// Context shows the messages of the model context pi would rebuild at
	// the leaf instead of the entries of the branch.
	Context bool
	// Whole reads every line whole; otherwise a line over ReadCutLine bytes
	// (a huge tool result) is read as a stream and kept cut, so that
	// memory does not grow with it.
	Whole bool
	// Window: only these items (entries, or context messages) are in the
	// Document, the others are only counted (a long session is read a page
	// at a time). The zero Window is every item.
	Window Window
}

// ReadCutLine is the longest line a Document reads whole unless
// ReadOptions.Whole; longer ones are cut (their strings keep their first
// ReadCutString bytes).
const (
	ReadCutLine   = 1 << 20
	ReadCutString = 4 << 10
)

// Window is a run of a branch's items: Size items from From, or, when
// From is negative, around the item of entry Around (a search hit), else
// the last ones. Size 0 is every item.
type Window struct {
	From   int
	Around string
	Size   int
	// Centre puts Around's item in the middle of the window (one more
	// item before it than after when Size is even): for an answer read
	// whole, where what led to a hit (the tool call of a tool result)
	// matters as much as what followed. Else the window starts a little
	// before the item, for a page that scrolls to it.
	Centre bool
}

// Span is the window [from, to) of n items, target being the index of the
// item Around names (-1: none): from From, else around the target
// (Centre), else the last Size items.
func (w Window) Span(n, target int) (from, to int) {
	if w.Size <= 0 {
		return 0, n
	}
	switch {
	case w.From >= 0:
		from = w.From
	case target >= 0 && w.Centre:
		from = target - w.Size/2
	case target >= 0:
		from = target - w.Size/10
	default:
		from = n - w.Size
	}
	from = max(0, min(from, n-w.Size))
	return from, min(n, from+w.Size)
}
