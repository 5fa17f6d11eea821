package pi

import (
	"encoding/json"

	"github.com/pidex-dev/pidex/schema"
)

// Kind is what one entry type means. Every function is set for every kind
// (TestKindsComplete checks it); a kind that has nothing to say for one of
// them returns the zero value.
type Kind struct {
	// Type is the entry's `type` field.
	Type string
	// Example is a line of this kind as pi writes it: the tests run every
	// function on it, so a kind cannot lack one.
	Example string
	// Carries: the entry can contribute messages to the model context,
	// and show marks it "(compacted)" or "(not in context)" when it does
	// not. (Settings entries before a compaction still apply, and labels
	// never join the context: marking them would mislead.)
	Carries bool
	// Text is the entry's searchable text: what a search should find it by
	// ("" for entries that hold no prose, such as a thinking-level change).
	Text func(l *schema.Line) string
	// Preview is a one-line summary for tree and path views (not yet cut
	// to a width; see Preview).
	Preview func(l *schema.Line) string
	// Show is what `pidex show` prints for the entry: a title, a detail,
	// and a body.
	Show func(l *schema.Line, at Where) Shown
	// Facts is what the catalog records of the entry: the model it names,
	// its usage records, its label or name, its target.
	Facts func(l *schema.Line) Facts
	// Context is pi's sessionEntryToContextMessages: what the entry adds to
	// the model context, built from its object (keys in the file's order).
	Context func(o Object) []json.RawMessage
	// Settings applies what the entry changes in pi's context settings
	// (model, thinking level); last one on the path wins.
	Settings func(o Object, s *Settings)
}

// Where is the position of an entry on a path, for Show.
type Where struct {
	// Object is the entry as pi holds it after loading (v1 ids filled in,
	// firstKeptEntryIndex resolved); nil when unknown.
	Object Object
	// Before reports whether an entry id occurs earlier on the path.
	Before func(id string) bool
}

// Facts is what an entry tells the catalog beyond its id and parent.
type Facts struct {
	// Provider and Model name the model the entry used or switched to.
	Provider, Model string
	// Usage lists the LLM calls the entry records.
	Usage []UsageRecord
	// Target is the entry a label or context edit applies to.
	Target string
	// Label: a label entry; Label.Text "" clears.
	Label *LabelOp
	// Name: a session_info entry; Name.Name nil clears.
	Name *NameOp
	// FirstKept is a compaction's firstKeptEntryId; FirstKeptIndex its v1
	// form (an index among parsed lines, header = 0).
	FirstKept      string
	FirstKeptIndex *int
	// ToolCalls are the tool calls of an assistant message, in order.
	ToolCalls []ToolCall
	// ToolResult: the message answers a tool call.
	ToolResult *ToolResult
}

// ToolCall is one toolCall content block.
type ToolCall struct {
	Index    int // position among the message's content blocks
	ID, Name string
}

// ToolResult links a tool result to its call.
type ToolResult struct {
	CallID, Tool string
	IsError      bool
}

// UsageRecord is one usage object and where it came from.
type UsageRecord struct {
	Source          schema.UsageSource
	Usage           schema.Usage
	Provider, Model string
	Kind            string // `usage` entries' category (cache_warm, …)
	ResponseID      string
}

// LabelOp sets or clears the label of Target.
type LabelOp struct{ Target, Text string }

// NameOp sets (Name non-nil, trimmed, non-empty) or clears the session name.
type NameOp struct{ Name *string }

// Settings are pi's context settings along a path.
type Settings struct {
	// ThinkingLevel is the raw JSON of the last thinking level (nil: the
	// last change had noText).
	ThinkingLevel json.RawMessage
	// Model is the last model in effect, nil if noText.
	Model *ContextModel
}

// ContextModel is pi's {provider, modelId}. The values are raw JSON
// (strings in practice); a field the source entry lacks is absent.
type ContextModel struct {
	Provider json.RawMessage `json:"provider,omitempty"`
	ModelID  json.RawMessage `json:"modelId,omitempty"`
}

// String returns "provider/modelId" ("?" for a missing or non-string part).
func (m *ContextModel) String() string {
	if m == nil {
		return ""
	}
	return ModelString(StringOr(m.Provider, "?"), StringOr(m.ModelID, "?"))
}

// ModelString is how pidex writes a model everywhere: "provider/model".
func ModelString(provider, model string) string { return provider + "/" + model }

// Shown is an entry or message as `pidex show` prints it.
type Shown struct {
	Title  string // "user", "compaction", …
	Detail string // one line after the title, may be ""
	Body   []Part
	// Empty is printed as the body when the parts come out empty.
	Empty string
}

// Part is one piece of a Shown body; the renderer turns it into lines.
type Part struct {
	Kind    PartKind
	Text    string
	Content schema.Content
	Raw     json.RawMessage
}

// PartKind says how a part is rendered.
type PartKind int

const (
	PartLines       PartKind = iota // Text, one line per line, in full
	PartLine                        // Text as one line, verbatim
	PartOutput                      // Text, abbreviated like tool output
	PartContent                     // Content: text in full, thinking folded, tool calls and images as one line each
	PartToolContent                 // Content, abbreviated like tool output
	PartSystem                      // Raw: a system message, folded to its size
)

func lines(s string) Part  { return Part{Kind: PartLines, Text: s} }
func line(s string) Part   { return Part{Kind: PartLine, Text: s} }
func output(s string) Part { return Part{Kind: PartOutput, Text: s} }
func content(c schema.Content, tool bool) Part {
	if tool {
		return Part{Kind: PartToolContent, Content: c}
	}
	return Part{Kind: PartContent, Content: c}
}

var kinds = map[string]*Kind{}

// Register adds (or replaces) the meaning of an entry type. pidex's own
// kinds register themselves in kinds.go; tests use it to prove that a new
// kind is one edit. Call it before use (package init), not concurrently
// with readers.
func Register(k Kind) {
	kinds[k.Type] = &k
}

// Kinds returns every registered kind.
func Kinds() map[string]*Kind {
	out := make(map[string]*Kind, len(kinds))
	for t, k := range kinds {
		out[t] = k
	}
	return out
}

// KindOf returns the meaning of entry type t; a type this version does not
// know gets a kind that shows its type and contributes nothing.
func KindOf(t string) *Kind {
	if k, ok := kinds[t]; ok {
		return k
	}
	return unknownKind(t)
}

// Preview is the one-line summary of an entry for tree and path views,
// cut to 400 characters.
func Preview(l *schema.Line) string {
	if l == nil {
		return ""
	}
	return OneLine(Cut(KindOf(l.Type).Preview(l), 400))
}

// Text is the searchable text of an entry.
func Text(l *schema.Line) string {
	if l == nil {
		return ""
	}
	return KindOf(l.Type).Text(l)
}

// FactsOf is what the catalog records of an entry.
func FactsOf(l *schema.Line) Facts { return KindOf(l.Type).Facts(l) }

// Show is what `pidex show` prints for an entry.
func Show(l *schema.Line, at Where) Shown {
	if at.Before == nil {
		at.Before = func(string) bool { return false }
	}
	return KindOf(l.Type).Show(l, at)
}

func noText(*schema.Line) string         { return "" }
func noFacts(*schema.Line) Facts         { return Facts{} }
func noContext(Object) []json.RawMessage { return nil }
func noSettings(Object, *Settings)       {}

func unknownKind(t string) *Kind {
	return &Kind{
		Type:     t,
		Text:     noText,
		Preview:  noText,
		Show:     func(l *schema.Line, _ Where) Shown { return Shown{Title: l.Type} },
		Facts:    noFacts,
		Context:  noContext,
		Settings: noSettings,
	}
}
