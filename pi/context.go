package pi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/js"
	"github.com/pidex-dev/pidex/schema"
)

// Entry is one entry of a session with its line read back from the file.
type Entry struct {
	pidex.Entry
	// Raw is the entry's JSON line as it is in the file.
	Raw []byte `json:"-"`
	// Decoded is Raw decoded (nil when the file changed under the catalog
	// and the bytes no longer parse); for oh-my-pi, with the images of its
	// blob store resolved, as omp loads them.
	Decoded *schema.Line `json:"-"`
	// Cut: the line was too long to read whole for display, and Raw is a
	// cut copy of it (long strings end with "…"; see jsonl.Shrink).
	Cut bool `json:"-"`
}

// SessionContext is the model context pi rebuilds for a session when it
// resumes it at a leaf: exactly the result of buildSessionContext in
// @earendil-works/pi-coding-agent 1.6.0 (dist/core/session-manager.js).
// Marshalled to JSON it is {"messages", "thinkingLevel", "model"} with the
// values pi computes; the unexported-to-JSON fields carry provenance.
//
// Messages are JSON objects faithful to pi: a message pi passes through
// unchanged is the file's own bytes; one pi builds (custom, branchSummary,
// compactionSummary) or modifies (v2 role rename, null content, context
// edits) is the object pi would hold, with its keys in pi's order. A field
// pi leaves undefined is absent, and a timestamp JavaScript cannot parse is
// null (NaN in pi).
type SessionContext struct {
	pidex.Context

	// Path is the root-to-leaf path, every entry read back from the file.
	Path []PathItem `json:"-"`
	// Entries is pi's projection: the context entries in context order
	// (the latest compaction first, then its kept entries, then the rest)
	// with the messages each contributed. Messages is their concatenation.
	Entries []ContextEntry `json:"-"`
}

// ContextEntry is one entry of pi's context projection.
type ContextEntry struct {
	// Index is the entry's position in SessionContext.Path.
	Index int
	// Messages is what the entry contributes to the model context (after
	// context edits), possibly nothing.
	Messages []json.RawMessage
}

// PathItem is one entry of the path with what the context made of it.
//
// Marshalled to JSON (the format of `pidex show --json`) it is the entry's
// object as pi holds it after loading the file, preceded by "line" (1-based
// physical line) and followed by pidex's annotations:
//
//	{"line": 12, "type": "message", "id": "…", "parentId": "…", "timestamp": "…",
//	 "message": {…}, …every other field of the entry…,
//	 "currentLabel": "…",   // the entry's current label, if any
//	 "inContext": true,     // it contributes at least one message to the model context
//	 "compacted": true,     // before the kept range of the latest compaction (only when true)
//	 "editedBy": "…"}       // id of the context_edit applied to it (only when one applies)
//
// "As pi holds it" means pi's load-time migrations are applied: v1 entries
// get pidex's synthetic ids ("v1:<offset>") and a linear parentId, a v1
// compaction's firstKeptEntryIndex becomes firstKeptEntryId, and a v1/v2
// message role hookMessage becomes custom. Everything else is the file's
// JSON, untouched.
type PathItem struct {
	Entry
	// Object is the entry as pi holds it (see above), without annotations.
	Object json.RawMessage
	// Label is the entry's current label ("" if none).
	Label string
	// InContext: the entry contributes messages to the model context.
	InContext bool
	// Compacted: the entry lies before the latest compaction's kept range.
	Compacted bool
	// EditedBy is the id of the context_edit entry that applies to it.
	EditedBy string

	obj js.Object // Object, decoded with key order
}

// Obj is the entry as pi holds it, with its keys in order.
func (p *PathItem) Obj() js.Object { return p.obj }

// MarshalJSON writes the annotated entry object described on PathItem.
func (p PathItem) MarshalJSON() ([]byte, error) {
	o := js.Object{{Key: "line", Val: json.RawMessage(strconv.FormatInt(p.Entry.Line, 10))}}
	for _, m := range p.obj {
		if m.Key != "line" { // pidex's annotations win over entry fields of the same name
			o = append(o, m)
		}
	}
	if p.Label != "" {
		o.Set("currentLabel", js.JSONString(p.Label))
	}
	o.Set("inContext", js.JSONBool(p.InContext))
	if p.Compacted {
		o.Set("compacted", js.JSONBool(true))
	}
	if p.EditedBy != "" {
		o.Set("editedBy", js.JSONString(p.EditedBy))
	}
	return o.MarshalJSON()
}

// NewPathItem is one entry of a pi session's path as BuildContext holds
// it, pi's load-time migrations applied, without the annotations only the
// whole path says (see Annotate).
func NewPathItem(e Entry, version int, firstKept map[int64]string) (PathItem, error) {
	o, ok := js.ParseObject(e.Raw)
	if !ok {
		return PathItem{}, notAnObject(e)
	}
	p := PathItem{Entry: e, Object: bytes.TrimSpace(e.Raw)}
	if migrate(&o, e, version, firstKept) {
		p.Object, _ = o.MarshalJSON()
	}
	p.obj = o
	return p, nil
}

// notAnObject is the error of a line that no longer parses.
func notAnObject(e Entry) error {
	return fmt.Errorf("line %d: not a JSON object (the file changed; refresh the catalog)", e.Entry.Line)
}

// Annotate gives p the annotations the whole path gave from, the same
// entry of a context rebuilt from the path's lines cut: a path is written
// one whole line at a time (show --json as a stream) with what a first,
// cut reading of every line said of each.
func (p *PathItem) Annotate(from *PathItem) {
	p.Label, p.InContext, p.Compacted, p.EditedBy = from.Label, from.InContext, from.Compacted, from.EditedBy
}

// BuildContext rebuilds pi's model context from a path already read from
// the file (root to leaf), the way pi's buildSessionContext does. version
// is the file's header version; firstKept maps the offsets of v1
// compactions to the id of their first kept entry.
//
// Deviations from pi, where pi has no answer: a message entry whose
// message is null or missing contributes nothing (pi throws); a
// context_edit without a replacement field leaves its target unchanged
// (pi throws); ISO timestamps without a UTC offset are read as UTC (pi
// reads them in the machine's time zone).
func BuildContext(path []Entry, version int, firstKept map[int64]string) (*SessionContext, error) {
	sc := &SessionContext{Context: pidex.Context{Messages: []json.RawMessage{}}, Path: make([]PathItem, len(path))}
	for i, e := range path {
		var err error
		if sc.Path[i], err = NewPathItem(e, version, firstKept); err != nil {
			return nil, err
		}
	}

	// getSessionContextSettings: over the whole path, last one wins.
	settings := Settings{ThinkingLevel: js.JSONString("off")}
	for i := range sc.Path {
		o := sc.Path[i].obj
		KindOf(o.Str("type")).Settings(o, &settings)
	}
	sc.ThinkingLevel, sc.Model = settings.ThinkingLevel, settings.Model

	ctxIdx := contextEntries(sc.Path)

	// buildSessionProjection: the latest context_edit per target among the
	// context entries applies. v1 ids are random in pi, so no edit can
	// match one there.
	edits := map[string]int{}
	for _, i := range ctxIdx {
		p := &sc.Path[i]
		if !KindOf(p.obj.Str("type")).ContextEdit || version < 2 {
			continue
		}
		if t, ok := js.StringValue(p.obj.Get("targetId")); ok {
			edits[t] = i
		}
	}
	for k, i := range ctxIdx {
		p := &sc.Path[i]
		var msgs []json.RawMessage
		typ := p.obj.Str("type")
		if !(k > 0 && KindOf(typ).Compaction) { // only the latest compaction summarises
			msgs = KindOf(typ).Context(p.obj)
			if ei, ok := edits[p.ID]; ok && p.hasStringID() {
				p.EditedBy = sc.Path[ei].ID
				msgs = applyEdit(msgs, sc.Path[ei].obj)
			}
		}
		p.InContext = len(msgs) > 0
		sc.Entries = append(sc.Entries, ContextEntry{Index: i, Messages: msgs})
		sc.Messages = append(sc.Messages, msgs...)
	}
	return sc, nil
}

// contextEntries is pi's buildContextEntries: the latest compaction, its
// kept entries (from firstKeptEntryId, system messages excluded),
// everything after it; it marks the entries the compaction replaced.
func contextEntries(path []PathItem) []int {
	ctxIdx := make([]int, 0, len(path))
	comp := -1
	for i := range path {
		if KindOf(path[i].obj.Str("type")).Compaction {
			comp = i
		}
	}
	if comp < 0 {
		for i := range path {
			ctxIdx = append(ctxIdx, i)
		}
		return ctxIdx
	}
	ctxIdx = append(ctxIdx, comp)
	fk, hasFK := js.StringValue(path[comp].obj.Get("firstKeptEntryId"))
	found := false
	for i := 0; i < comp; i++ {
		p := &path[i]
		if hasFK && !found && p.hasStringID() && p.ID == fk {
			found = true
		}
		if !found {
			p.Compacted = true
			continue
		}
		if m, ok := js.ParseObject(p.obj.Get("message")); ok && p.obj.Str("type") == schema.TypeMessage && m.Str("role") == schema.RoleSystem {
			continue // a system message is carried by the compaction's systemMessage instead
		}
		ctxIdx = append(ctxIdx, i)
	}
	for i := comp + 1; i < len(path); i++ {
		ctxIdx = append(ctxIdx, i)
	}
	return ctxIdx
}

// hasStringID reports whether the entry's id is its own (a JSON string in
// the file, or a v1 synthetic id), not one pidex made up for an id-less line.
func (p *PathItem) hasStringID() bool {
	_, ok := js.StringValue(p.obj.Get("id"))
	return ok
}

// migrate applies pi's load-time migrations to one entry object
// (migrateV1ToV2, migrateV2ToV3), with pidex's synthetic v1 ids, and
// reports whether it changed anything.
func migrate(o *js.Object, e Entry, version int, firstKept map[int64]string) (changed bool) {
	if version < 2 {
		changed = true
		o.Set("id", js.JSONString(e.ID))
		if e.ParentID != nil {
			o.Set("parentId", js.JSONString(*e.ParentID))
		} else {
			o.Set("parentId", json.RawMessage("null"))
		}
		if KindOf(o.Str("type")).Compaction {
			if idx := o.Get("firstKeptEntryIndex"); idx != nil && js.IsNumber(idx) {
				if fk, ok := firstKept[e.Offset]; ok {
					o.Set("firstKeptEntryId", js.JSONString(fk))
				}
				o.Del("firstKeptEntryIndex")
			}
		}
	}
	if version < 3 && o.Str("type") == schema.TypeMessage {
		if m, ok := js.ParseObject(o.Get("message")); ok && m.Str("role") == schema.RoleHookMessage {
			m.Set("role", js.JSONString(schema.RoleCustom))
			b, _ := m.MarshalJSON()
			o.Set("message", b)
			changed = true
		}
	}
	return changed
}

// ---- what each kind contributes (Kind.Context, Kind.Settings) ----

// messageContext: a message entry's message, as pi passes it on (content
// null becomes empty content for the roles pi repairs).
func messageContext(o js.Object) []json.RawMessage {
	raw := o.Get("message")
	if js.IsNull(raw) {
		return nil // pi throws on message.role
	}
	m, ok := js.ParseObject(raw)
	if !ok {
		return []json.RawMessage{raw} // not an object: pi passes it on as it is
	}
	if !js.IsNull(m.Get("content")) {
		return []json.RawMessage{raw}
	}
	switch m.Str("role") {
	case schema.RoleSystem:
		m.Set("content", js.JSONString(""))
	case schema.RoleUser, schema.RoleAssistant, schema.RoleToolResult:
		m.Set("content", json.RawMessage("[]"))
	default:
		return []json.RawMessage{raw}
	}
	b, _ := m.MarshalJSON()
	return []json.RawMessage{b}
}

// messageSettings: an assistant message puts its model in effect.
func messageSettings(o js.Object, s *Settings) {
	if m, ok := js.ParseObject(o.Get("message")); ok && m.Str("role") == schema.RoleAssistant {
		s.Model = &pidex.ContextModel{Provider: m.Get("provider"), ModelID: m.Get("model")}
	}
}

// builtMessage is a message pi builds from an entry's fields: the role,
// then each field in order (a field without a default is left out when
// the entry lacks it, as JSON.stringify leaves out undefined; one with a
// default takes it when the entry's value is null or absent), then the
// entry's timestamp as a JavaScript time.
func builtMessage(role string, o js.Object, fields ...field) json.RawMessage {
	m := js.Object{{Key: "role", Val: js.JSONString(role)}}
	for _, f := range fields {
		v := o.Get(f.key)
		if f.def != nil && js.IsNull(v) {
			v = f.def
		}
		m.SetDefined(f.key, v)
	}
	m.Set("timestamp", js.DateValue(o.Get("timestamp")))
	b, _ := m.MarshalJSON()
	return b
}

type field struct {
	key string
	def json.RawMessage // value for null or absent; nil: leave out when absent
}

func keys(names ...string) []field {
	fs := make([]field, len(names))
	for i, n := range names {
		fs[i] = field{key: n}
	}
	return fs
}

// customMessageContext is pi's createCustomMessage.
func customMessageContext(o js.Object) []json.RawMessage {
	return []json.RawMessage{builtMessage(schema.RoleCustom, o,
		field{key: "customType"}, field{key: "content", def: json.RawMessage("[]")},
		field{key: "display"}, field{key: "details"})}
}

// branchSummaryContext is pi's createBranchSummaryMessage, for a
// non-empty summary only.
func branchSummaryContext(o js.Object) []json.RawMessage {
	if !js.Truthy(o.Get("summary")) {
		return nil
	}
	return []json.RawMessage{builtMessage(schema.RoleBranchSummary, o, keys("summary", "fromId")...)}
}

// compactionContext is pi's createCompactionSummaryMessage, after the
// compaction's systemMessage snapshot if it has one.
func compactionContext(o js.Object) []json.RawMessage {
	b := builtMessage(schema.RoleCompactionSummary, o, keys("summary", "tokensBefore")...)
	if sys := o.Get("systemMessage"); js.Truthy(sys) {
		return []json.RawMessage{sys, b}
	}
	return []json.RawMessage{b}
}

// applyEdit is pi's projectContextEntry with an edit: a null replacement
// drops the messages; {content} replaces the content of user, assistant,
// toolResult and custom messages (a string becomes one text block for
// assistant and toolResult).
func applyEdit(msgs []json.RawMessage, edit js.Object) []json.RawMessage {
	repl := edit.Get("replacement")
	if repl == nil {
		return msgs // pi throws on replacement.content
	}
	if js.IsNull(repl) {
		return nil
	}
	var c json.RawMessage // nil: undefined (replacement is not an object, or has no content)
	if r, ok := js.ParseObject(repl); ok {
		c = r.Get("content")
	}
	out := make([]json.RawMessage, len(msgs))
	for i, raw := range msgs {
		out[i] = raw
		m, ok := js.ParseObject(raw)
		if !ok {
			continue
		}
		role := m.Str("role")
		switch role {
		case schema.RoleUser, schema.RoleAssistant, schema.RoleToolResult, schema.RoleCustom:
		default:
			continue
		}
		mc := c
		if (role == schema.RoleAssistant || role == schema.RoleToolResult) && js.IsString(mc) {
			block := js.Object{{Key: "type", Val: js.JSONString(schema.BlockText)}, {Key: "text", Val: mc}}
			b, _ := block.MarshalJSON()
			mc = append(append(json.RawMessage("["), b...), ']')
		}
		if mc == nil {
			m.Del("content")
		} else {
			m.Set("content", mc)
		}
		out[i], _ = m.MarshalJSON()
	}
	return out
}
