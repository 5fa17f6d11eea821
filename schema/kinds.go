package schema

import "encoding/json"

// Entry is any non-header line of a session file, typed by kind.
type Entry interface {
	Base() *EntryBase
}

// EntryBase holds the fields every entry has (v1 entries lack ID/ParentID;
// pidex gives them synthetic ones when it ingests them).
type EntryBase struct {
	Type      string  `json:"type"`
	ID        string  `json:"id"`
	ParentID  *string `json:"parentId"`
	Timestamp string  `json:"timestamp"`
}

// Base returns the common fields.
func (b *EntryBase) Base() *EntryBase { return b }

// MessageEntry carries one AgentMessage.
type MessageEntry struct {
	EntryBase
	Message Message `json:"message"`
}

// ThinkingLevelChangeEntry sets the thinking level from here on.
type ThinkingLevelChangeEntry struct {
	EntryBase
	ThinkingLevel string `json:"thinkingLevel"`
}

// ModelChangeEntry sets the model from here on. Forks write Model
// ("provider/id") instead of Provider and ModelID.
type ModelChangeEntry struct {
	EntryBase
	Provider string `json:"provider"`
	ModelID  string `json:"modelId"`
	Model    string `json:"model,omitempty"`
}

// UsageRecordEntry is a billing record for an LLM call made outside the
// conversation (for example cache warming).
type UsageRecordEntry struct {
	EntryBase
	Kind     string `json:"kind"`
	Provider string `json:"provider"`
	Model    string `json:"model"`
	Usage    Usage  `json:"usage"`
	Note     string `json:"note,omitempty"`
}

// CompactionEntry replaces the context before FirstKeptEntryID by Summary.
type CompactionEntry struct {
	EntryBase
	Summary          string `json:"summary"`
	FirstKeptEntryID string `json:"firstKeptEntryId"`
	// FirstKeptEntryIndex is the v1 form: an index into the file's parsed
	// lines, header = 0. pidex resolves it to FirstKeptEntryID on ingest.
	FirstKeptEntryIndex *int            `json:"firstKeptEntryIndex,omitempty"`
	TokensBefore        int64           `json:"tokensBefore"`
	Details             json.RawMessage `json:"details,omitempty"`
	FromHook            bool            `json:"fromHook,omitempty"`
	Usage               *Usage          `json:"usage,omitempty"`
	SystemMessage       *Message        `json:"systemMessage,omitempty"`
}

// BranchSummaryEntry summarises an abandoned branch when navigating away.
type BranchSummaryEntry struct {
	EntryBase
	FromID   string          `json:"fromId"`
	Summary  string          `json:"summary"`
	Details  json.RawMessage `json:"details,omitempty"`
	FromHook bool            `json:"fromHook,omitempty"`
	Usage    *Usage          `json:"usage,omitempty"`
}

// CustomEntry is extension state; never part of the model context.
type CustomEntry struct {
	EntryBase
	CustomType string          `json:"customType"`
	Data       json.RawMessage `json:"data,omitempty"`
}

// CustomMessageEntry is an extension message that joins the context.
type CustomMessageEntry struct {
	EntryBase
	CustomType string          `json:"customType"`
	Content    Content         `json:"content"`
	Display    bool            `json:"display"`
	Details    json.RawMessage `json:"details,omitempty"`
}

// ContextEditEntry replaces (Replacement holds {"content": …}) or omits
// (Replacement is JSON null) its target's contribution to the context.
type ContextEditEntry struct {
	EntryBase
	TargetID    string          `json:"targetId"`
	Replacement json.RawMessage `json:"replacement"`
}

// LabelEntry sets (non-empty Label) or clears its target's label.
type LabelEntry struct {
	EntryBase
	TargetID string  `json:"targetId"`
	Label    *string `json:"label,omitempty"`
}

// SessionInfoEntry names the session; an empty name clears it.
type SessionInfoEntry struct {
	EntryBase
	Name *string `json:"name,omitempty"`
}

// UnknownEntry is an entry of a type this version does not know. It is
// kept, with its raw JSON, and takes part in the tree like any other.
type UnknownEntry struct {
	EntryBase
	Raw json.RawMessage `json:"-"`
}

// Entry returns the line as a typed entry. raw is the line's bytes, kept
// for kinds this version does not know.
func (l *Line) Entry(raw []byte) Entry {
	b := EntryBase{Type: l.Type, ParentID: l.ParentID, Timestamp: l.Timestamp}
	if l.ID != nil {
		b.ID = *l.ID
	}
	switch l.Type {
	case TypeMessage:
		e := &MessageEntry{EntryBase: b}
		if l.Message != nil {
			e.Message = *l.Message
		}
		return e
	case TypeThinkingLevelChange:
		return &ThinkingLevelChangeEntry{b, l.ThinkingLevel}
	case TypeModelChange:
		return &ModelChangeEntry{b, l.Provider, l.ModelID, l.Model}
	case TypeUsage:
		e := &UsageRecordEntry{EntryBase: b, Kind: l.Kind, Provider: l.Provider, Model: l.Model, Note: l.Note}
		if l.Usage != nil {
			e.Usage = *l.Usage
		}
		return e
	case TypeCompaction:
		return &CompactionEntry{b, l.Summary, l.FirstKeptEntryID, l.FirstKeptEntryIndex,
			l.TokensBefore, l.Details, l.FromHook, l.Usage, l.SystemMessage}
	case TypeBranchSummary:
		return &BranchSummaryEntry{b, l.FromID, l.Summary, l.Details, l.FromHook, l.Usage}
	case TypeCustom:
		return &CustomEntry{b, l.CustomType, l.Data}
	case TypeCustomMessage:
		return &CustomMessageEntry{b, l.CustomType, l.Content, l.Display, l.Details}
	case TypeContextEdit:
		return &ContextEditEntry{b, l.TargetID, l.Replacement}
	case TypeLabel:
		return &LabelEntry{b, l.TargetID, l.Label}
	case TypeSessionInfo:
		return &SessionInfoEntry{b, l.Name}
	}
	return &UnknownEntry{EntryBase: b, Raw: append(json.RawMessage(nil), raw...)}
}
