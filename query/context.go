package query

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jmoiron/sqlx"

	"github.com/pidex-dev/pidex/schema"
)

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
	Messages []json.RawMessage `json:"messages"`
	// ThinkingLevel is the value of the last thinking_level_change on the
	// path, "off" if there is none; raw JSON (a string in practice), and
	// absent when the last change had no thinkingLevel field.
	ThinkingLevel json.RawMessage `json:"thinkingLevel,omitempty"`
	// Model is the last model_change or assistant message on the path;
	// nil (JSON null) if there is none.
	Model *ContextModel `json:"model"`

	// Path is the root-to-leaf path, every entry read back from the file.
	Path []PathItem `json:"-"`
	// Entries is pi's projection: the context entries in context order
	// (the latest compaction first, then its kept entries, then the rest)
	// with the messages each contributed. Messages is their concatenation.
	Entries []ContextEntry `json:"-"`
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
	return jsonString(m.Provider, "?") + "/" + jsonString(m.ModelID, "?")
}

// Level returns the thinking level as a string ("" if it is not one).
func (c *SessionContext) Level() string { return jsonString(c.ThinkingLevel, "") }

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

	obj object // Object, decoded with key order
}

// MarshalJSON writes the annotated entry object described on PathItem.
func (p PathItem) MarshalJSON() ([]byte, error) {
	o := object{{"line", json.RawMessage(strconv.FormatInt(p.PathEntry.Line, 10))}}
	for _, m := range p.obj {
		if m.key != "line" { // pidex's annotations win over entry fields of the same name
			o = append(o, m)
		}
	}
	if p.Label != "" {
		o.set("currentLabel", jsonStr(p.Label))
	}
	o.set("inContext", jsonBool(p.InContext))
	if p.Compacted {
		o.set("compacted", jsonBool(true))
	}
	if p.EditedBy != "" {
		o.set("editedBy", jsonStr(p.EditedBy))
	}
	return o.MarshalJSON()
}

// Context rebuilds the model context of one session at leafID ("" means
// pi's leaf, the last entry of the file), the way pi's buildSessionContext
// does: it walks the path through the catalog (query.Path, cycle-safe) and
// reads each entry back from the file by its stored offset.
//
// Deviations from pi, where pi has no answer: an unknown leafID is
// schema.ErrNotFound (pi silently falls back to the last entry); a parent
// cycle yields the path up to the cycle (pi hangs); a message entry whose
// message is null or missing contributes nothing (pi throws); a
// context_edit without a replacement field leaves its target unchanged
// (pi throws); ISO timestamps without a UTC offset are read as UTC (pi
// reads them in the machine's time zone).
func Context(ctx context.Context, db *sqlx.DB, ref schema.SessionRef, leafID string) (*SessionContext, error) {
	rows, err := Path(ctx, db, ref.FileID, leafID)
	if err != nil {
		return nil, err
	}
	var version int
	if err := db.GetContext(ctx, &version, "SELECT version FROM sessions WHERE file_id = ?", ref.FileID); err != nil {
		return nil, fmt.Errorf("load session: %w", err)
	}
	entries, err := Read(ref.Path, rows)
	if err != nil {
		return nil, err
	}
	// v1 compactions name their first kept entry by index; the indexer
	// resolved it to an id when it ingested the file.
	firstKept := map[int64]string{}
	if version < 2 {
		for _, r := range rows {
			if r.Type != schema.TypeCompaction {
				continue
			}
			var fk sql.NullString
			err := db.GetContext(ctx, &fk, "SELECT first_kept FROM entries WHERE file_id = ? AND offset = ?", ref.FileID, r.Offset)
			if err != nil && !errors.Is(err, sql.ErrNoRows) {
				return nil, fmt.Errorf("load compaction: %w", err)
			}
			if fk.Valid {
				firstKept[r.Offset] = fk.String
			}
		}
	}
	labels, err := Labels(ctx, db, ref.FileID)
	if err != nil {
		return nil, err
	}
	sc, err := BuildContext(entries, version, firstKept)
	if err != nil {
		return nil, err
	}
	byTarget := make(map[string]string, len(labels))
	for _, l := range labels {
		byTarget[l.TargetID] = l.Label
	}
	for i := range sc.Path {
		sc.Path[i].Label = byTarget[sc.Path[i].ID]
	}
	return sc, nil
}

// BuildContext is Context on a path already read from the file (root to
// leaf). version is the file's header version; firstKept maps the offsets
// of v1 compactions to the id of their first kept entry.
func BuildContext(path []Entry, version int, firstKept map[int64]string) (*SessionContext, error) {
	sc := &SessionContext{Messages: []json.RawMessage{}, Path: make([]PathItem, len(path))}
	for i, e := range path {
		o, ok := parseObject(e.Raw)
		if !ok {
			return nil, fmt.Errorf("line %d: not a JSON object (the file changed; refresh the catalog)", e.PathEntry.Line)
		}
		sc.Path[i] = PathItem{Entry: e, Object: bytes.TrimSpace(e.Raw)}
		if migrate(&o, e, version, firstKept) {
			sc.Path[i].Object, _ = o.MarshalJSON()
		}
		sc.Path[i].obj = o
	}

	// getSessionContextSettings: over the whole path, last one wins.
	sc.ThinkingLevel = jsonStr("off")
	for i := range sc.Path {
		o := sc.Path[i].obj
		switch o.str("type") {
		case schema.TypeThinkingLevelChange:
			sc.ThinkingLevel = o.get("thinkingLevel")
		case schema.TypeModelChange:
			sc.Model = &ContextModel{Provider: o.get("provider"), ModelID: o.get("modelId")}
		case schema.TypeMessage:
			if m, ok := parseObject(o.get("message")); ok && m.str("role") == schema.RoleAssistant {
				sc.Model = &ContextModel{Provider: m.get("provider"), ModelID: m.get("model")}
			}
		}
	}

	// buildContextEntries: the latest compaction, its kept entries (from
	// firstKeptEntryId, system messages excluded), everything after it.
	ctxIdx := make([]int, 0, len(sc.Path))
	comp := -1
	for i := range sc.Path {
		if sc.Path[i].obj.str("type") == schema.TypeCompaction {
			comp = i
		}
	}
	if comp < 0 {
		for i := range sc.Path {
			ctxIdx = append(ctxIdx, i)
		}
	} else {
		ctxIdx = append(ctxIdx, comp)
		fk, hasFK := stringValue(sc.Path[comp].obj.get("firstKeptEntryId"))
		found := false
		for i := 0; i < comp; i++ {
			p := &sc.Path[i]
			if hasFK && !found && p.hasStringID() && p.ID == fk {
				found = true
			}
			if !found {
				p.Compacted = true
				continue
			}
			if m, ok := parseObject(p.obj.get("message")); ok && p.obj.str("type") == schema.TypeMessage && m.str("role") == schema.RoleSystem {
				continue // a system message is carried by the compaction's systemMessage instead
			}
			ctxIdx = append(ctxIdx, i)
		}
		for i := comp + 1; i < len(sc.Path); i++ {
			ctxIdx = append(ctxIdx, i)
		}
	}

	// buildSessionProjection: the latest context_edit per target among the
	// context entries applies. v1 ids are random in pi, so no edit can
	// match one there.
	edits := map[string]int{}
	for _, i := range ctxIdx {
		p := &sc.Path[i]
		if p.obj.str("type") != schema.TypeContextEdit || version < 2 {
			continue
		}
		if t, ok := stringValue(p.obj.get("targetId")); ok {
			edits[t] = i
		}
	}
	for k, i := range ctxIdx {
		p := &sc.Path[i]
		var msgs []json.RawMessage
		if !(k > 0 && p.obj.str("type") == schema.TypeCompaction) { // only the latest compaction summarises
			msgs = entryMessages(p.obj)
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

// hasStringID reports whether the entry's id is its own (a JSON string in
// the file, or a v1 synthetic id), not one pidex made up for an id-less line.
func (p *PathItem) hasStringID() bool {
	_, ok := stringValue(p.obj.get("id"))
	return ok
}

// migrate applies pi's load-time migrations to one entry object
// (migrateV1ToV2, migrateV2ToV3), with pidex's synthetic v1 ids, and
// reports whether it changed anything.
func migrate(o *object, e Entry, version int, firstKept map[int64]string) (changed bool) {
	if version < 2 {
		changed = true
		o.set("id", jsonStr(e.ID))
		if e.ParentID != nil {
			o.set("parentId", jsonStr(*e.ParentID))
		} else {
			o.set("parentId", json.RawMessage("null"))
		}
		if o.str("type") == schema.TypeCompaction {
			if idx := o.get("firstKeptEntryIndex"); idx != nil && isNumber(idx) {
				if fk, ok := firstKept[e.Offset]; ok {
					o.set("firstKeptEntryId", jsonStr(fk))
				}
				o.del("firstKeptEntryIndex")
			}
		}
	}
	if version < 3 && o.str("type") == schema.TypeMessage {
		if m, ok := parseObject(o.get("message")); ok && m.str("role") == schema.RoleHookMessage {
			m.set("role", jsonStr(schema.RoleCustom))
			b, _ := m.MarshalJSON()
			o.set("message", b)
			changed = true
		}
	}
	return changed
}

// entryMessages is pi's sessionEntryToContextMessages.
func entryMessages(o object) []json.RawMessage {
	switch o.str("type") {
	case schema.TypeMessage:
		raw := o.get("message")
		if isNull(raw) {
			return nil // pi throws on message.role
		}
		m, ok := parseObject(raw)
		if !ok {
			return []json.RawMessage{raw} // not an object: pi passes it on as it is
		}
		if !isNull(m.get("content")) {
			return []json.RawMessage{raw}
		}
		switch m.str("role") {
		case schema.RoleSystem:
			m.set("content", jsonStr(""))
		case schema.RoleUser, schema.RoleAssistant, schema.RoleToolResult:
			m.set("content", json.RawMessage("[]"))
		default:
			return []json.RawMessage{raw}
		}
		b, _ := m.MarshalJSON()
		return []json.RawMessage{b}
	case schema.TypeCustomMessage: // createCustomMessage
		content := o.get("content")
		if isNull(content) {
			content = json.RawMessage("[]")
		}
		m := object{{"role", jsonStr(schema.RoleCustom)}}
		m.setDefined("customType", o.get("customType"))
		m.set("content", content)
		m.setDefined("display", o.get("display"))
		m.setDefined("details", o.get("details"))
		m.set("timestamp", jsDate(o.get("timestamp")))
		b, _ := m.MarshalJSON()
		return []json.RawMessage{b}
	case schema.TypeBranchSummary: // createBranchSummaryMessage, non-empty summary only
		if !truthy(o.get("summary")) {
			return nil
		}
		m := object{{"role", jsonStr(schema.RoleBranchSummary)}}
		m.setDefined("summary", o.get("summary"))
		m.setDefined("fromId", o.get("fromId"))
		m.set("timestamp", jsDate(o.get("timestamp")))
		b, _ := m.MarshalJSON()
		return []json.RawMessage{b}
	case schema.TypeCompaction: // createCompactionSummaryMessage, after the systemMessage
		m := object{{"role", jsonStr(schema.RoleCompactionSummary)}}
		m.setDefined("summary", o.get("summary"))
		m.setDefined("tokensBefore", o.get("tokensBefore"))
		m.set("timestamp", jsDate(o.get("timestamp")))
		b, _ := m.MarshalJSON()
		if sys := o.get("systemMessage"); truthy(sys) {
			return []json.RawMessage{sys, b}
		}
		return []json.RawMessage{b}
	}
	return nil
}

// applyEdit is pi's projectContextEntry with an edit: a null replacement
// drops the messages; {content} replaces the content of user, assistant,
// toolResult and custom messages (a string becomes one text block for
// assistant and toolResult).
func applyEdit(msgs []json.RawMessage, edit object) []json.RawMessage {
	repl := edit.get("replacement")
	if repl == nil {
		return msgs // pi throws on replacement.content
	}
	if isNull(repl) {
		return nil
	}
	var content json.RawMessage // nil: undefined (replacement is not an object, or has no content)
	if r, ok := parseObject(repl); ok {
		content = r.get("content")
	}
	out := make([]json.RawMessage, len(msgs))
	for i, raw := range msgs {
		out[i] = raw
		m, ok := parseObject(raw)
		if !ok {
			continue
		}
		role := m.str("role")
		switch role {
		case schema.RoleUser, schema.RoleAssistant, schema.RoleToolResult, schema.RoleCustom:
		default:
			continue
		}
		c := content
		if (role == schema.RoleAssistant || role == schema.RoleToolResult) && isString(c) {
			block := object{{"type", jsonStr(schema.BlockText)}, {"text", c}}
			b, _ := block.MarshalJSON()
			c = append(append(json.RawMessage("["), b...), ']')
		}
		if c == nil {
			m.del("content")
		} else {
			m.set("content", c)
		}
		out[i], _ = m.MarshalJSON()
	}
	return out
}

// ---- JavaScript semantics on raw JSON values ----

// truthy is JavaScript's truthiness of a JSON value (nil = undefined).
func truthy(v json.RawMessage) bool { return schema.Truthy(v) }

func isNull(v json.RawMessage) bool { return schema.Content(v).IsNull() }

func isString(v json.RawMessage) bool {
	v = bytes.TrimSpace(v)
	return len(v) > 0 && v[0] == '"'
}

func isNumber(v json.RawMessage) bool {
	v = bytes.TrimSpace(v)
	return len(v) > 0 && (v[0] == '-' || (v[0] >= '0' && v[0] <= '9'))
}

// stringValue decodes a JSON string.
func stringValue(v json.RawMessage) (string, bool) {
	if !isString(v) {
		return "", false
	}
	if t := bytes.TrimSpace(v); len(t) >= 2 && t[len(t)-1] == '"' && bytes.IndexByte(t, '\\') < 0 && utf8.Valid(t) {
		return string(t[1 : len(t)-1]), true // nothing to unescape
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		return "", false
	}
	return s, true
}

// jsonString decodes a JSON string, or returns def.
func jsonString(v json.RawMessage, def string) string {
	if s, ok := stringValue(v); ok {
		return s
	}
	return def
}

// maxTime is ECMAScript's TimeClip bound, in ms.
const maxTime = 8.64e15

// jsDate is `new Date(v).getTime()` as JSON: a number, or null for NaN.
func jsDate(v json.RawMessage) json.RawMessage {
	null := json.RawMessage("null")
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return null // new Date(undefined)
	}
	var ms float64
	switch v[0] {
	case 'n', 'f':
		ms = 0 // new Date(null), new Date(false)
	case 't':
		ms = 1
	case '"':
		s, _ := stringValue(v)
		t, ok := parseJSDate(s)
		if !ok {
			return null
		}
		ms = float64(t)
	case '{', '[':
		return null // ToPrimitive gives a string that is not a date (in practice)
	default:
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil {
			return null
		}
		ms = f
	}
	if math.Abs(ms) > maxTime {
		return null
	}
	return json.RawMessage(strconv.FormatInt(int64(math.Trunc(ms)), 10))
}

// parseJSDate parses the date strings JavaScript's Date accepts in the ISO
// family: YYYY[-MM[-DD]] optionally followed by T or a space and
// HH:mm[:ss[.fraction]] and Z or ±HH[:]mm; ±YYYYYY extended years; out of
// range days roll over (V8 does so too). A date-time without an offset is
// read as UTC (JavaScript would read it as local time).
func parseJSDate(s string) (int64, bool) {
	p := &dateScanner{s: s}
	year := 0
	switch {
	case p.peek() == '+' || p.peek() == '-':
		neg := p.next() == '-'
		y, ok := p.digits(6, 6)
		if !ok || (neg && y == 0) {
			return 0, false
		}
		year = y
		if neg {
			year = -y
		}
	default:
		y, ok := p.digits(4, 4)
		if !ok {
			return 0, false
		}
		year = y
	}
	month, day := 1, 1
	if p.eat('-') {
		m, ok := p.digits(1, 2)
		if !ok {
			return 0, false
		}
		month = m
		if p.eat('-') {
			d, ok := p.digits(1, 2)
			if !ok {
				return 0, false
			}
			day = d
		}
	}
	if month < 1 || month > 12 || day < 1 || day > 31 {
		return 0, false
	}
	hour, minute, sec, nsec := 0, 0, 0, 0
	offset := 0
	if p.eat('T') || p.eat('t') || p.eat(' ') {
		var ok bool
		if hour, ok = p.digits(2, 2); !ok || !p.eat(':') {
			return 0, false
		}
		if minute, ok = p.digits(2, 2); !ok {
			return 0, false
		}
		if p.eat(':') {
			if sec, ok = p.digits(2, 2); !ok {
				return 0, false
			}
			if p.eat('.') {
				start := p.i
				f, ok := p.digits(1, 64)
				if !ok {
					return 0, false
				}
				_ = f
				frac := s[start:p.i]
				for len(frac) < 9 {
					frac += "0"
				}
				nsec, _ = strconv.Atoi(frac[:9])
			}
		}
		if hour > 24 || minute > 59 || sec > 59 || (hour == 24 && (minute > 0 || sec > 0 || nsec > 0)) {
			return 0, false
		}
		switch c := p.peek(); c {
		case 'Z', 'z':
			p.next()
		case '+', '-':
			p.next()
			oh, ok := p.digits(2, 2)
			if !ok {
				return 0, false
			}
			p.eat(':')
			om, ok := p.digits(2, 2)
			if !ok || oh > 23 || om > 59 {
				return 0, false
			}
			offset = oh*60 + om
			if c == '-' {
				offset = -offset
			}
		}
	}
	if p.i != len(s) {
		return 0, false
	}
	t := time.Date(year, time.Month(month), day, hour, minute, sec, nsec, time.UTC)
	t = t.Add(-time.Duration(offset) * time.Minute)
	ms := t.Unix()*1000 + int64(t.Nanosecond()/1e6)
	return ms, float64(ms) <= maxTime && float64(ms) >= -maxTime
}

type dateScanner struct {
	s string
	i int
}

func (p *dateScanner) peek() byte {
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

func (p *dateScanner) next() byte { c := p.peek(); p.i++; return c }

func (p *dateScanner) eat(c byte) bool {
	if p.peek() == c {
		p.i++
		return true
	}
	return false
}

// digits reads min..max decimal digits.
func (p *dateScanner) digits(min, max int) (int, bool) {
	start := p.i
	for p.i < len(p.s) && p.i-start < max && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
		p.i++
	}
	n := p.i - start
	if n < min {
		return 0, false
	}
	if n > 9 {
		n = 9 // a long fraction: only the leading digits matter
	}
	v, _ := strconv.Atoi(p.s[start : start+n])
	return v, true
}

// ---- JSON objects with their key order ----

// member is one key of a JSON object.
type member struct {
	key string
	val json.RawMessage
}

// object is a JSON object that keeps its key order, as JavaScript does for
// the objects pi parses and builds. A duplicate key keeps its first
// position and its last value (JSON.parse does the same).
type object []member

// parseObject splits a JSON object into its members; ok is false for any
// other value. The values are sub-slices of raw (nothing is copied or
// decoded), so it costs one pass over the bytes: the lines it reads were
// validated as JSON when they were read (query.Read), and it only checks
// the structure it walks.
func parseObject(raw json.RawMessage) (object, bool) {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return nil, false
	}
	o := object{}
	i = skipSpace(raw, i+1)
	if i < len(raw) && raw[i] == '}' {
		return o, skipSpace(raw, i+1) == len(raw)
	}
	for {
		if i >= len(raw) || raw[i] != '"' {
			return nil, false
		}
		end, ok := scanString(raw, i)
		if !ok {
			return nil, false
		}
		key, ok := stringValue(raw[i:end])
		if !ok {
			return nil, false
		}
		i = skipSpace(raw, end)
		if i >= len(raw) || raw[i] != ':' {
			return nil, false
		}
		i = skipSpace(raw, i+1)
		end, ok = scanValue(raw, i)
		if !ok {
			return nil, false
		}
		o.set(key, raw[i:end:end])
		i = skipSpace(raw, end)
		if i >= len(raw) {
			return nil, false
		}
		switch raw[i] {
		case ',':
			i = skipSpace(raw, i+1)
			continue
		case '}':
			return o, skipSpace(raw, i+1) == len(raw)
		}
		return nil, false
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// scanString returns the index just after the string starting at b[i].
func scanString(b []byte, i int) (int, bool) {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1, true
		}
	}
	return 0, false
}

// scanValue returns the index just after the JSON value starting at b[i].
func scanValue(b []byte, i int) (int, bool) {
	if i >= len(b) {
		return 0, false
	}
	switch b[i] {
	case '"':
		return scanString(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				end, ok := scanString(b, j)
				if !ok {
					return 0, false
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1, true
				}
			}
		}
		return 0, false
	}
	j := i
	for j < len(b) && !strings.ContainsRune(",}] \t\r\n", rune(b[j])) {
		j++
	}
	return j, j > i
}

// get returns the value of key, nil if absent (undefined).
func (o object) get(key string) json.RawMessage {
	for _, m := range o {
		if m.key == key {
			return m.val
		}
	}
	return nil
}

// str returns the value of key if it is a JSON string, else "".
func (o object) str(key string) string {
	s, _ := stringValue(o.get(key))
	return s
}

// set replaces the value of key in place, or appends it.
func (o *object) set(key string, val json.RawMessage) {
	for i := range *o {
		if (*o)[i].key == key {
			(*o)[i].val = val
			return
		}
	}
	*o = append(*o, member{key, val})
}

// setDefined sets key unless val is undefined (nil), like a JavaScript
// object literal whose undefined fields JSON.stringify leaves out.
func (o *object) setDefined(key string, val json.RawMessage) {
	if val != nil {
		o.set(key, val)
	}
}

func (o *object) del(key string) {
	for i := range *o {
		if (*o)[i].key == key {
			*o = append((*o)[:i], (*o)[i+1:]...)
			return
		}
	}
}

// MarshalJSON writes the object with its keys in order.
func (o object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(jsonStr(m.key))
		b.WriteByte(':')
		b.Write(m.val)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// jsonStr encodes s as a JSON string (without HTML escaping).
func jsonStr(s string) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return bytes.TrimRight(b.Bytes(), "\n")
}

func jsonBool(v bool) json.RawMessage {
	if v {
		return json.RawMessage("true")
	}
	return json.RawMessage("false")
}
