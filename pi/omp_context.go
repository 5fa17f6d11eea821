package pi

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strings"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/js"
	"github.com/pidex-dev/pidex/schema"
)

// BuildOmpContext rebuilds the model context oh-my-pi resumes a session
// with (session-context.ts buildSessionContext, 18.2.3, not in transcript
// mode): per-role models from model_change (an assistant message sets the
// default one only until an explicit default was chosen), the service
// tier, mode and injected rules; emission from the latest reset_boundary
// when it comes after the latest compaction, else from the compaction
// (its summary, the kept entries, the rest), else the whole path; empty
// error turns and retry-recovery turns left out; tool calls without a
// result on the path stripped (with the turn's redacted thinking and
// thinking signatures); aborted and error turns dropped with their tool
// results. Images stored in the blob store come back as base64 (blob
// reads a blob by its sha256, ok false when it is missing).
//
// Not rebuilt, where omp needs what pidex does not have: the experimental
// context notes (rendered through omp's prompt templates), snapcompact
// frames and Anthropic's server-side compaction payload; the summary
// stands for them.
func BuildOmpContext(path []Entry, blob func(hash string) ([]byte, bool)) (*SessionContext, error) {
	sc := &SessionContext{Context: pidex.Context{Messages: []json.RawMessage{}}, Path: make([]PathItem, len(path))}
	for i, e := range path {
		var err error
		if sc.Path[i], err = NewOmpPathItem(e, blob); err != nil {
			return nil, err
		}
	}
	sc.ThinkingLevel, sc.Omp = ompSettings(sc.Path)
	if d, ok := js.StringValue(js.Field(sc.Omp.Models, "default")); ok {
		p, m, _ := strings.Cut(d, "/")
		sc.Model = &pidex.ContextModel{Provider: js.JSONString(p), ModelID: js.JSONString(m)}
	}

	typ := func(i int) string { return sc.Path[i].obj.Str("type") }
	reset, comp := -1, -1
	for i := range sc.Path {
		switch {
		case KindOf(typ(i)).Reset:
			reset = i
		case KindOf(typ(i)).Compaction:
			comp = i
		}
	}
	if comp >= 0 { // findIndex of the latest compaction's id
		id := sc.Path[comp].obj.Get("id")
		for i := range sc.Path {
			if KindOf(typ(i)).Compaction && bytes.Equal(sc.Path[i].obj.Get("id"), id) {
				comp = i
				break
			}
		}
	}

	var out []ompMsg
	emit := func(i int) {
		for _, m := range ompEntryMessages(sc.Path[i].obj) {
			out = append(out, ompMsg{i, m})
		}
	}
	var ctxIdx []int
	switch {
	case reset >= 0 && reset > comp: // /clear: what came before is out of the context (not compacted)
		for i := reset + 1; i < len(sc.Path); i++ {
			ctxIdx = append(ctxIdx, i)
			emit(i)
		}
	case comp >= 0:
		c := sc.Path[comp].obj
		ctxIdx = append(ctxIdx, comp)
		out = append(out, ompMsg{comp, ompCompactionSummary(c)})
		fk := c.Get("firstKeptEntryId")
		if js.Truthy(js.Field(c.Get("details"), "kind")) && js.StringOr(js.Field(c.Get("details"), "kind"), "") == "experimental-context-rollover" {
			// The latest user request before the kept range comes back.
			firstKept := indexOfID(sc.Path, fk, len(sc.Path))
			for i := comp - 1; i > reset; i-- {
				if !ompUserRequest(sc.Path[i].obj) {
					continue
				}
				if i < firstKept {
					ctxIdx = append(ctxIdx, i)
					emit(i)
				}
				break
			}
		}
		kept := -1
		if ompRemoteHistory(c) == nil {
			kept = indexOfID(sc.Path, fk, comp)
			if kept >= 0 {
				for i := kept; i < comp; i++ {
					ctxIdx = append(ctxIdx, i)
					emit(i)
				}
			}
		} else if through := c.Get("providerReplayThroughEntryId"); through != nil {
			if t := indexOfID(sc.Path, through, comp); t >= 0 {
				kept = t + 1
				for i := t + 1; i < comp; i++ {
					ctxIdx = append(ctxIdx, i)
					emit(i)
				}
			}
		}
		for i := 0; i < comp; i++ {
			if kept < 0 || i < kept {
				sc.Path[i].Compacted = true
			}
		}
		for i := comp + 1; i < len(sc.Path); i++ {
			ctxIdx = append(ctxIdx, i)
			emit(i)
		}
	default:
		for i := range sc.Path {
			ctxIdx = append(ctxIdx, i)
			emit(i)
		}
	}
	out = stripDanglingToolCalls(out)
	out = dropFailedTurns(out)

	byEntry := map[int][]json.RawMessage{}
	for _, m := range out {
		byEntry[m.entry] = append(byEntry[m.entry], m.msg)
		sc.Messages = append(sc.Messages, m.msg)
	}
	for _, i := range ctxIdx {
		sc.Path[i].InContext = len(byEntry[i]) > 0
		sc.Entries = append(sc.Entries, ContextEntry{Index: i, Messages: byEntry[i]})
	}
	return sc, nil
}

// ompMsg is a message of the context and the path entry it came from.
type ompMsg struct {
	entry int
	msg   json.RawMessage
}

// indexOfID is the first index below limit of an entry whose id is id
// (nil: none).
func indexOfID(path []PathItem, id json.RawMessage, limit int) int {
	if id == nil {
		return -1
	}
	for i := 0; i < limit && i < len(path); i++ {
		if bytes.Equal(path[i].obj.Get("id"), id) {
			return i
		}
	}
	return -1
}

// ompSettings walks the path for omp's context settings.
func ompSettings(path []PathItem) (json.RawMessage, *pidex.OmpContext) {
	level := js.JSONString("off")
	var configured, tier, modeData json.RawMessage
	models := js.Object{}
	explicitDefault := false
	var rules []string
	seen := map[string]bool{}
	mode := "none"
	for i := range path {
		o := path[i].obj
		switch o.Str("type") {
		case schema.TypeThinkingLevelChange:
			tl := o.Get("thinkingLevel")
			level = tl
			if js.IsNull(tl) {
				level = js.JSONString("off")
			}
			configured = o.Get("configured")
			if js.IsNull(configured) {
				configured = tl
			}
		case schema.TypeModelChange:
			if m := o.Get("model"); js.Truthy(m) {
				role := "default"
				if r := o.Get("role"); !js.IsNull(r) {
					role, _ = js.StringValue(r)
				}
				models.Set(role, m)
				explicitDefault = explicitDefault || role == "default"
			}
		case schema.TypeServiceTierChange:
			tier = coerceServiceTier(o.Get("serviceTier"))
		case schema.TypeMessage:
			m, _ := js.ParseObject(o.Get("message"))
			if m.Str("role") == schema.RoleAssistant && !explicitDefault {
				models.Set("default", js.JSONString(jsString(m.Get("provider"))+"/"+jsString(m.Get("model"))))
			}
		case schema.TypeTtsrInjection:
			js.EachElement(o.Get("injectedRules"), func(r json.RawMessage) {
				if s, ok := js.StringValue(r); ok && !seen[s] {
					seen[s] = true
					rules = append(rules, s)
				}
			})
		case schema.TypeModeChange:
			mode = o.Str("mode")
			modeData = o.Get("data")
		}
	}
	ms, _ := models.MarshalJSON()
	if js.IsNull(configured) {
		configured = nil
	}
	return level, &pidex.OmpContext{ConfiguredThinkingLevel: configured, ServiceTier: tier, Models: ms,
		InjectedTtsrRules: rules, Mode: mode, ModeData: modeData}
}

// jsString is a value as a template literal writes it: a string as it
// is, undefined as "undefined", anything else as its JSON.
func jsString(v json.RawMessage) string {
	if v == nil {
		return "undefined"
	}
	if s, ok := js.StringValue(v); ok {
		return s
	}
	return string(v)
}

// coerceServiceTier is pi-ai's coerceServiceTierByFamily.
func coerceServiceTier(v json.RawMessage) json.RawMessage {
	if js.IsNull(v) {
		return nil
	}
	valid := map[string]bool{"auto": true, "default": true, "flex": true, "scale": true, "priority": true}
	if o, ok := js.ParseObject(v); ok {
		out := js.Object{}
		for _, fam := range []string{"openai", "anthropic", "google"} {
			if t, _ := js.StringValue(o.Get(fam)); valid[t] {
				out.Set(fam, js.JSONString(t))
			}
		}
		if len(out) == 0 {
			return nil
		}
		b, _ := out.MarshalJSON()
		return b
	}
	s, _ := js.StringValue(v)
	switch s {
	case "priority":
		return json.RawMessage(`{"openai":"priority","anthropic":"priority","google":"priority"}`)
	case "openai-only":
		return json.RawMessage(`{"openai":"priority"}`)
	case "claude-only":
		return json.RawMessage(`{"anthropic":"priority"}`)
	case "auto", "default", "flex", "scale":
		return json.RawMessage(`{"openai":"` + s + `"}`)
	}
	return nil
}

// ompEntryMessages is omp's appendMessage for one entry: a message
// (except retry-recovery and empty error turns of the assistant), a
// custom_message as a custom message, a branch summary with a summary.
func ompEntryMessages(o js.Object) []json.RawMessage {
	switch o.Str("type") {
	case schema.TypeMessage:
		raw := o.Get("message")
		m, ok := js.ParseObject(raw)
		if !ok {
			return nil
		}
		if m.Str("role") == schema.RoleAssistant && (js.Truthy(m.Get("retryRecovery")) || emptyErrorTurn(m)) {
			return nil
		}
		return []json.RawMessage{raw}
	case schema.TypeCustomMessage:
		switch o.Str("customType") {
		case "prewalk-plan", "vibe-mode-context":
			return nil
		}
		c := o.Get("content")
		if !js.IsString(c) && !isArray(c) {
			return nil
		}
		ct := o.Get("customType")
		if s, _ := js.StringValue(ct); s == "" {
			ct = js.JSONString("custom-message")
		}
		display := o.Get("display")
		if !isBool(display) {
			display = js.JSONBool(false)
		}
		m := js.Object{{Key: "role", Val: js.JSONString(schema.RoleCustom)}, {Key: "customType", Val: ct},
			{Key: "content", Val: c}, {Key: "display", Val: display}}
		m.SetDefined("details", o.Get("details"))
		if a := o.Get("attribution"); a != nil {
			if s, _ := js.StringValue(a); s == "user" {
				m.Set("attribution", js.JSONString("user"))
			} else {
				m.Set("attribution", js.JSONString("agent"))
			}
		}
		m.Set("timestamp", js.DateValue(o.Get("timestamp")))
		b, _ := m.MarshalJSON()
		return []json.RawMessage{b}
	case schema.TypeBranchSummary:
		if !js.Truthy(o.Get("summary")) {
			return nil
		}
		m := js.Object{{Key: "role", Val: js.JSONString(schema.RoleBranchSummary)}, {Key: "summary", Val: o.Get("summary")}}
		m.SetDefined("fromId", o.Get("fromId"))
		m.Set("timestamp", js.DateValue(o.Get("timestamp")))
		b, _ := m.MarshalJSON()
		return []json.RawMessage{b}
	}
	return nil
}

func isArray(v json.RawMessage) bool {
	v = bytes.TrimSpace(v)
	return len(v) > 0 && v[0] == '['
}

func isBool(v json.RawMessage) bool {
	s := string(bytes.TrimSpace(v))
	return s == "true" || s == "false"
}

// ompUserRequest is omp's isUserRequestEntry for the entries pidex can
// judge: a user message (custom messages that start a user turn — skill
// prompts, collab prompts — are not recognized).
func ompUserRequest(o js.Object) bool {
	if o.Str("type") != schema.TypeMessage {
		return false
	}
	m, _ := js.ParseObject(o.Get("message"))
	return m.Str("role") == schema.RoleUser
}

// ompCompactionSummary is createCompactionSummaryMessage for the latest
// compaction: {role, summary, shortSummary, tokensBefore, tokensAfter,
// method, providerPayload, warning, timestamp}, undefined fields left out.
func ompCompactionSummary(c js.Object) json.RawMessage {
	m := js.Object{{Key: "role", Val: js.JSONString(schema.RoleCompactionSummary)}}
	m.SetDefined("summary", c.Get("summary"))
	m.SetDefined("shortSummary", c.Get("shortSummary"))
	m.SetDefined("tokensBefore", c.Get("tokensBefore"))
	m.SetDefined("tokensAfter", c.Get("tokensAfter"))
	m.SetDefined("method", c.Get("method"))
	if h := ompRemoteHistory(c); h != nil {
		m.Set("providerPayload", h)
	}
	m.SetDefined("warning", c.Get("warning"))
	m.Set("timestamp", js.DateValue(c.Get("timestamp")))
	b, _ := m.MarshalJSON()
	return b
}

// ompRemoteHistory is getOpenAiRemoteCompactionPayload: an OpenAI remote
// compaction's replacement history, nil when the compaction has none.
func ompRemoteHistory(c js.Object) json.RawMessage {
	cand, ok := js.ParseObject(js.Field(c.Get("preserveData"), "openaiRemoteCompaction"))
	if !ok {
		return nil
	}
	provider, _ := js.StringValue(cand.Get("provider"))
	items := cand.Get("replacementHistory")
	if provider == "" || !isArray(items) {
		return nil
	}
	allObjects := true
	js.EachElement(items, func(el json.RawMessage) {
		if _, ok := js.ParseObject(el); !ok {
			allObjects = false
		}
	})
	if !allObjects {
		return nil
	}
	p := js.Object{{Key: "type", Val: js.JSONString("openaiResponsesHistory")}, {Key: "provider", Val: js.JSONString(provider)}, {Key: "items", Val: items}}
	b, _ := p.MarshalJSON()
	return b
}

// emptyErrorTurn is omp's isEmptyErrorTurn: stopReason error and no text,
// thinking, redacted thinking or tool call in the content.
func emptyErrorTurn(m js.Object) bool {
	if m.Str("stopReason") != "error" {
		return false
	}
	content := false
	js.EachElement(m.Get("content"), func(el json.RawMessage) {
		b, _ := js.ParseObject(el)
		nonBlank := func(k string) bool { s, _ := js.StringValue(b.Get(k)); return strings.TrimSpace(s) != "" }
		switch b.Str("type") {
		case "text":
			content = content || nonBlank("text")
		case "thinking":
			content = content || nonBlank("thinking") || nonBlank("thinkingSignature")
		case "redactedThinking":
			content = content || nonBlank("data")
		case "fallback":
		default: // toolCall, and any kind omp does not know: never discarded
			content = true
		}
	})
	return !content
}

// stripDanglingToolCalls removes, from every assistant message, the tool
// calls no tool result among the messages answers; a turn so changed also
// loses its redacted thinking and its thinking signatures, and an emptied
// turn goes.
func stripDanglingToolCalls(msgs []ompMsg) []ompMsg {
	paired := map[string]bool{}
	for _, m := range msgs {
		o, _ := js.ParseObject(m.msg)
		if o.Str("role") == schema.RoleToolResult {
			if id, ok := js.StringValue(o.Get("toolCallId")); ok {
				paired[id] = true
			}
		}
	}
	out := msgs[:0:0]
	for _, m := range msgs {
		o, _ := js.ParseObject(m.msg)
		if o.Str("role") != schema.RoleAssistant {
			out = append(out, m)
			continue
		}
		var blocks []js.Object
		stripped := 0
		js.EachElement(o.Get("content"), func(el json.RawMessage) {
			b, _ := js.ParseObject(el)
			id, _ := js.StringValue(b.Get("id"))
			if b.Str("type") == schema.BlockToolCall && !paired[id] {
				stripped++
			}
			blocks = append(blocks, b)
		})
		if stripped == 0 {
			out = append(out, m)
			continue
		}
		var kept [][]byte
		for _, b := range blocks {
			id, _ := js.StringValue(b.Get("id"))
			switch t := b.Str("type"); {
			case t == schema.BlockToolCall && !paired[id], t == "redactedThinking":
				continue
			case t == schema.BlockThinking && js.Truthy(b.Get("thinkingSignature")):
				b.Del("thinkingSignature")
			}
			raw, _ := b.MarshalJSON()
			kept = append(kept, raw)
		}
		if len(kept) == 0 {
			continue
		}
		o.Set("content", append(append(json.RawMessage("["), bytes.Join(kept, []byte(","))...), ']'))
		m.msg, _ = o.MarshalJSON()
		out = append(out, m)
	}
	return out
}

// dropFailedTurns drops assistant turns that stopped with "aborted" or
// "error", with the tool results of their calls, unless an
// interrupted-thinking custom message follows.
func dropFailedTurns(msgs []ompMsg) []ompMsg {
	for i := len(msgs) - 1; i >= 0; i-- {
		o, _ := js.ParseObject(msgs[i].msg)
		if o.Str("role") != schema.RoleAssistant {
			continue
		}
		if sr := o.Str("stopReason"); sr != "aborted" && sr != "error" {
			continue
		}
		if i+1 < len(msgs) {
			next, _ := js.ParseObject(msgs[i+1].msg)
			if next.Str("role") == schema.RoleCustom && next.Str("customType") == "interrupted-thinking" {
				continue
			}
		}
		calls := map[string]bool{}
		js.EachElement(o.Get("content"), func(el json.RawMessage) {
			b, _ := js.ParseObject(el)
			if b.Str("type") == schema.BlockToolCall {
				id, _ := js.StringValue(b.Get("id"))
				calls[id] = true
			}
		})
		msgs = append(msgs[:i], msgs[i+1:]...)
		if len(calls) > 0 {
			for j := len(msgs) - 1; j >= i; j-- {
				r, _ := js.ParseObject(msgs[j].msg)
				id, _ := js.StringValue(r.Get("toolCallId"))
				if r.Str("role") == schema.RoleToolResult && calls[id] {
					msgs = append(msgs[:j], msgs[j+1:]...)
				}
			}
		}
	}
	return msgs
}

// ---- blobs ----

// BlobRef is the sha256 of an omp blob reference ("blob:sha256:<64 hex>"),
// ok false for anything else (session-loader parseBlobRef).
func BlobRef(s string) (string, bool) {
	h, ok := strings.CutPrefix(s, "blob:sha256:")
	if !ok || len(h) != 64 {
		return "", false
	}
	for _, c := range h {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return "", false
		}
	}
	return h, true
}

// resolveBlobs replaces the blob references of image data where omp's
// loader resolves them (resolvePersistedBlobRefs): the data of an image
// block in a content array, or of an {data, mimeType: "image/…"} in an
// images array. A missing blob leaves the reference, as in omp.
func resolveBlobs(raw json.RawMessage, blob func(string) ([]byte, bool)) (json.RawMessage, bool) {
	if blob == nil || !bytes.Contains(raw, []byte("blob:sha256:")) {
		return raw, false
	}
	return walkBlobs(raw, "", blob)
}

func walkBlobs(raw json.RawMessage, key string, blob func(string) ([]byte, bool)) (json.RawMessage, bool) {
	if !bytes.Contains(raw, []byte("blob:sha256:")) {
		return raw, false
	}
	if isArray(raw) {
		var parts [][]byte
		changed := false
		js.EachElement(raw, func(el json.RawMessage) {
			v, c := walkBlobs(el, key, blob) // elements keep the array's key
			parts = append(parts, v)
			changed = changed || c
		})
		if !changed {
			return raw, false
		}
		return append(append(json.RawMessage("["), bytes.Join(parts, []byte(","))...), ']'), true
	}
	o, ok := js.ParseObject(raw)
	if !ok {
		return raw, false
	}
	if data, isStr := js.StringValue(o.Get("data")); isStr && key != "frames" {
		mime, _ := js.StringValue(o.Get("mimeType"))
		image := o.Str("type") == schema.BlockImage || strings.HasPrefix(mime, "image/")
		if image && ((key == "content" && o.Str("type") == schema.BlockImage) || key == "images") {
			if h, ok := BlobRef(data); ok {
				if b, found := blob(h); found {
					o.Set("data", js.JSONString(base64.StdEncoding.EncodeToString(b)))
					out, _ := o.MarshalJSON()
					return out, true
				}
			}
			return raw, false
		}
	}
	changed := false
	for i := range o {
		if v, c := walkBlobs(o[i].Val, o[i].Key, blob); c {
			o[i].Val, changed = v, true
		}
	}
	if !changed {
		return raw, false
	}
	out, _ := o.MarshalJSON()
	return out, true
}

// NewOmpPathItem is one entry of an oh-my-pi session's path as
// BuildOmpContext holds it (NewPathItem).
func NewOmpPathItem(e Entry, blob func(hash string) ([]byte, bool)) (PathItem, error) {
	raw := bytes.TrimSpace(e.Raw)
	if resolved, changed := resolveBlobs(raw, blob); changed {
		// As omp holds it after open(): the reading views show the
		// image, show --json has its data.
		raw = resolved
		if d, _ := schema.DecodeLine(raw); d != nil {
			e.Decoded = d
		}
	}
	o, ok := js.ParseObject(raw)
	if !ok {
		return PathItem{}, notAnObject(e)
	}
	return PathItem{Entry: e, Object: raw, obj: o}, nil
}
