package pidex

// A Document is a session for reading: the entries of a branch, or the
// messages of the model context pi would rebuild there, each with its
// title, notes and typed blocks. The engine builds it once from the
// rebuilt context; the text renderer (`pidex show`), the web pages and the
// MCP server each print it their own way, so what an entry says is decided
// in one place.
type Document struct {
	Session SessionRef
	// Context: the items are the model context's messages, not the
	// branch's entries.
	Context bool
	// Leaf is the entry the branch ends at ("" when the session has no
	// entries), LeafLine its line; Current says it is pi's leaf (the last
	// entry of the file).
	Leaf     string
	LeafLine int64
	Current  bool
	Entries  int    // entries on the branch
	Messages int    // messages in the model context
	Model    string // "provider/model" in effect at the leaf ("": none)
	Thinking string // the thinking level there ("": not a string)
	// Items [From, To) of Total (entries, or context messages) are in
	// Items: a window of a long branch.
	From, To, Total int
	Items           []DocItem
	// Path is the ids of every entry on the branch, root to leaf (not only
	// the window's): what a tree marks as the branch shown, without
	// walking the branch again.
	Path []string `json:"-"`
}

// DocItem is one entry of the branch, or one message of the context.
type DocItem struct {
	N     int    // context view: the message's number, from 1 (a budget, view.Fit, numbers a branch's entries too)
	ID    string // the entry's id (in the context view: the entry the message comes from)
	Line  int64  // the entry's line in the file
	Type  string // the entry's type
	Time  *Time  // the entry's timestamp (nil when JavaScript cannot parse it)
	Stamp string // the timestamp as written
	// Title, Detail: what the entry is ("assistant", "anthropic/claude-x").
	Title, Detail string
	Label         string // the entry's current label
	// Class is the entry's look, from the registry of kinds and roles:
	// user, assistant, tool, summary, custom, system, other, meta.
	Class string
	// Note says how the entry stands to the model context: NoteCompacted,
	// NoteNotInContext, or "edited by ID" / "omitted by ID" ("": it is in
	// it, or it is not the kind of entry that would be).
	Note string
	// CutBytes > 0: the line, this many bytes, was too long to read whole;
	// the blocks hold its beginning (long strings end with "…").
	CutBytes int64
	// Target: the item a search hit or a link points at.
	Target bool
	Blocks []Block
}

// Notes of a DocItem.
const (
	NoteCompacted    = "compacted"
	NoteNotInContext = "not in context"
)

// BlockKind says what a Block holds and how a renderer shows it.
type BlockKind string

// Block kinds.
const (
	// BlockProse is conversation text, whole (Markdown in a browser): Text.
	BlockProse BlockKind = "prose"
	// BlockLine is one line shown as it is: Text.
	BlockLine BlockKind = "line"
	// BlockPre is preformatted text (tool output, code): Text.
	BlockPre BlockKind = "pre"
	// BlockOutput is tool output, abbreviated or folded: Inner (pre text,
	// images, …).
	BlockOutput BlockKind = "output"
	// BlockThinking is a model's reasoning, folded: Text (or Redacted).
	BlockThinking BlockKind = "thinking"
	// BlockToolCall is a tool call: Name and Args (Text when the arguments
	// are not an object).
	BlockToolCall BlockKind = "toolCall"
	// BlockImage is an image: Mime, Data (base64) and Size (decoded bytes).
	BlockImage BlockKind = "image"
	// BlockSystem is a system prompt: Text, Args (its named sections) and
	// Tools.
	BlockSystem BlockKind = "system"
	// BlockOther is a content block of a type this version does not know
	// (Name), or content that does not decode (Text: its JSON).
	BlockOther BlockKind = "other"
)

// Block is one piece of an item's body.
type Block struct {
	Kind     BlockKind
	Text     string
	Redacted bool
	Name     string
	Args     []Arg
	Inner    []Block
	Mime     string
	Data     string
	Size     int64
	Tools    []string
}

// Arg is one named value: a tool call's argument, a system prompt's
// section. JSON is the value as compact JSON; a string value is also
// decoded in Str (IsStr).
type Arg struct {
	Key   string
	JSON  string
	Str   string
	IsStr bool
}

// Text is the value for reading: the decoded string, else the JSON.
func (a Arg) Text() string {
	if a.IsStr {
		return a.Str
	}
	return a.JSON
}
