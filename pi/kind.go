package pi

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/js"
	"github.com/pidex-dev/pidex/internal/text"
	"github.com/pidex-dev/pidex/schema"
)

// Kind is what one entry type means. Its fields are the data every side
// of pidex derives its rules from (search groups, cost sources, model
// attribution, display classes and their SQL), and its functions are set
// for every kind (TestKindsComplete checks it); a kind with nothing to say
// for one of them returns the zero value. A message entry defers to its
// role (Role) for everything a role says.
type Kind struct {
	// Type is the entry's `type` field.
	Type string
	// Example is a line of this kind as pi writes it: the tests run every
	// function on it, so a kind cannot lack one.
	Example string

	// Class is the entry's look in a reading view: user, assistant, tool,
	// summary, custom, system, other, meta ("": meta).
	Class string
	// Group is the search role group the entry belongs to (`search
	// --role`; "": none).
	Group string
	// UsageSource names the usage records the entry carries (a cost
	// report's source; "": it carries none).
	UsageSource string
	// SetsModel: the entry puts the model it names in effect on its path
	// (records without a model are attributed to it).
	SetsModel bool
	// Compaction: the latest one on a path replaces, in the model context,
	// every entry before its first kept one with its summary.
	Compaction bool
	// ContextEdit: the entry edits (or omits) its target's contribution to
	// the model context.
	ContextEdit bool
	// Reset: oh-my-pi's /clear boundary; the model context starts after
	// the latest one on a path, unless a compaction comes after it.
	Reset bool
	// Carries: the entry can contribute messages to the model context, and
	// a reading view marks it "compacted" or "not in context" when it does
	// not. (Settings entries before a compaction still apply, and labels
	// never join the context: marking them would mislead.)
	Carries bool

	// Text is the entry's searchable text: what a search should find it by
	// ("" for entries that hold no prose, such as a thinking-level change).
	Text func(l *schema.Line) string
	// Preview is a one-line summary for tree and path views (not yet cut
	// to a width; see Preview).
	Preview func(l *schema.Line) string
	// Show is what a reading view shows of the entry: a title, a detail,
	// and a body.
	Show func(l *schema.Line, at Where) Shown
	// Facts is what the catalog records of the entry: the model it names,
	// its usage records, its label or name, its target.
	Facts func(l *schema.Line) Facts
	// Context is pi's sessionEntryToContextMessages: what the entry adds to
	// the model context, built from its object (keys in the file's order).
	Context func(o js.Object) []json.RawMessage
	// Settings applies what the entry changes in pi's context settings
	// (model, thinking level); the last one on the path wins.
	Settings func(o js.Object, s *Settings)
}

// Where is the position of an entry on a path, for Show.
type Where struct {
	// Object is the entry as pi holds it after loading (v1 ids filled in,
	// firstKeptEntryIndex resolved); nil when unknown.
	Object js.Object
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
	// StopReason and Error: why an assistant message ended (pi's
	// stopReason: stop, toolUse, length, error, aborted) and its
	// errorMessage's first line, cut (ErrorRunes).
	StopReason, Error string
	// TokensBefore: a compaction's context size when pi compacted.
	TokensBefore *int64
	// Command is the first word of a shell command the user ran (a
	// bashExecution message; CommandWord).
	Command string
}

// ToolCall is one toolCall content block.
type ToolCall struct {
	Index    int // position among the message's content blocks
	ID, Name string
	// Command is the first word of a bash call's command (CommandWord).
	Command string
}

// ToolResult links a tool result to its call.
type ToolResult struct {
	CallID, Tool string
	IsError      bool
	// Size is the result's text in bytes (its content's text blocks, or
	// the output of a result written before content blocks).
	Size int64
}

// UsageRecord is one usage object and where it came from.
type UsageRecord struct {
	Source          string // the carrier's UsageSource
	Usage           schema.Usage
	Provider, Model string
	Kind            string // `usage` entries' category (cache_warm, …), model_usage's purpose
	ResponseID      string
	// TotalsOnly: counted in the session's totals only, not a call of its
	// own (omp's task results carry their subagents' summed usage, whose
	// calls are in the subagents' transcripts: getUsageStatistics counts
	// the sum, omp stats the calls).
	TotalsOnly bool
}

// LabelOp sets or clears the label of Target.
type LabelOp struct{ Target, Text string }

// NameOp sets (Name non-nil, trimmed, non-empty) or clears the session name.
type NameOp struct{ Name *string }

// Settings are pi's context settings along a path.
type Settings struct {
	// ThinkingLevel is the raw JSON of the last thinking level (nil: the
	// last change had none).
	ThinkingLevel json.RawMessage
	// Model is the last model in effect, nil if none.
	Model *pidex.ContextModel
}

// Shown is an entry or message as a reading view shows it.
type Shown struct {
	Title  string // "user", "compaction", …
	Detail string // one line after the title, may be ""
	Body   []Part
	// Empty is shown as the body when the parts come out empty.
	Empty string
}

// Part is one piece of a Shown body; a reading view turns it into blocks.
type Part struct {
	Kind    PartKind
	Text    string
	Content schema.Content
	Raw     json.RawMessage
}

// PartKind says what a part holds.
type PartKind int

const (
	PartLines       PartKind = iota // Text: prose, shown whole
	PartLine                        // Text: one line, verbatim
	PartOutput                      // Text: output, abbreviated like tool output
	PartContent                     // Content: text whole, thinking folded, tool calls and images as one line each
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

// kinds is the registry of entry types.
var kinds registry[Kind]

// Register adds (or replaces) the meaning of an entry type. pidex's own
// kinds register themselves in kinds.go; tests use it to prove that a new
// kind is one edit. Call it before use (package init), not concurrently
// with readers.
func Register(k Kind) { kinds.set(k.Type, k) }

// Kinds returns every registered kind, in registration order.
func Kinds() []*Kind { return kinds.all() }

// KindOf returns the meaning of entry type t; a type this version does not
// know gets a kind that shows its type and contributes nothing.
func KindOf(t string) *Kind {
	if k, ok := kinds.get(t); ok {
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
	return text.OneLine(text.Cut(KindOf(l.Type).Preview(l), 400))
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

// Show is what a reading view shows of an entry.
func Show(l *schema.Line, at Where) Shown {
	if at.Before == nil {
		at.Before = func(string) bool { return false }
	}
	return KindOf(l.Type).Show(l, at)
}

func noText(*schema.Line) string            { return "" }
func noFacts(*schema.Line) Facts            { return Facts{} }
func noContext(js.Object) []json.RawMessage { return nil }
func noSettings(js.Object, *Settings)       {}

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

// ---- what the registry's data derive ----

// Class is the look of an entry of type typ (and, for a message, role)
// in a reading view.
func Class(typ, role string) string {
	if typ == schema.TypeMessage {
		if r, ok := roles.get(roleName(role)); ok && r.Class != "" {
			return r.Class
		}
		return "other"
	}
	if k, ok := kinds.get(typ); ok && k.Class != "" {
		return k.Class
	}
	return "meta"
}

// Vocabulary is what options may name: the search role groups, the usage
// sources and the reading classes, roles first, then kinds, each in
// registration order.
func Vocabulary() pidex.Vocabulary {
	var v pidex.Vocabulary
	add := func(list *[]string, w string) {
		if w != "" && !slices.Contains(*list, w) {
			*list = append(*list, w)
		}
	}
	for _, r := range Roles() {
		add(&v.RoleGroups, r.Group)
		add(&v.Sources, r.UsageSource)
		add(&v.Classes, r.Class)
	}
	for _, k := range Kinds() {
		add(&v.RoleGroups, k.Group)
		add(&v.Sources, k.UsageSource)
		add(&v.Classes, k.Class)
	}
	add(&v.Classes, "other") // what Class calls an unknown role
	add(&v.Classes, "meta")  // and a kind without a look of its own
	return v
}

// GroupSQL is the condition "the entry (table alias t, with columns type
// and role) is in search group g", with its arguments.
func GroupSQL(g, t string) (string, []any) {
	var types, rs []any
	for _, r := range Roles() {
		if r.Group == g {
			rs = append(rs, r.Role)
		}
	}
	for _, k := range Kinds() {
		if k.Group == g {
			types = append(types, k.Type)
		}
	}
	var conds []string
	if len(rs) > 0 {
		conds = append(conds, t+".role IN (?"+strings.Repeat(",?", len(rs)-1)+")")
	}
	if len(types) > 0 {
		conds = append(conds, t+".type IN (?"+strings.Repeat(",?", len(types)-1)+")")
	}
	if len(conds) == 0 {
		return "(1 = 0)", nil // false in SQLite and PostgreSQL alike
	}
	return "(" + strings.Join(conds, " OR ") + ")", append(rs, types...)
}

// SetsModelSQL is the condition "the entry (table alias t) puts its model
// in effect". The registry's type and role names are written into it as
// quoted literals: it is spliced into recursive statements whose
// positional arguments it must not shift.
func SetsModelSQL(t string) string {
	var types, rs []string
	for _, k := range Kinds() {
		if k.SetsModel {
			types = append(types, sqlString(k.Type))
		}
	}
	for _, r := range Roles() {
		if r.SetsModel {
			rs = append(rs, sqlString(r.Role))
		}
	}
	conds := []string{}
	if len(types) > 0 {
		conds = append(conds, t+".type IN ("+strings.Join(types, ", ")+")")
	}
	if len(rs) > 0 {
		conds = append(conds, t+".role IN ("+strings.Join(rs, ", ")+")")
	}
	if len(conds) == 0 {
		return "(1 = 0)"
	}
	return "(" + strings.Join(conds, " OR ") + ")"
}

// sqlString is s as an SQL string literal.
func sqlString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
