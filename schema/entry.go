package schema

import (
	"bytes"
	"encoding/json"
	"errors"

	gojson "github.com/goccy/go-json"
)

// Entry types (the `type` field of a line).
const (
	TypeSession             = "session" // the header
	TypeMessage             = "message"
	TypeThinkingLevelChange = "thinking_level_change"
	TypeModelChange         = "model_change"
	TypeUsage               = "usage"
	TypeCompaction          = "compaction"
	TypeBranchSummary       = "branch_summary"
	TypeCustom              = "custom"
	TypeCustomMessage       = "custom_message"
	TypeContextEdit         = "context_edit"
	TypeLabel               = "label"
	TypeSessionInfo         = "session_info"

	// oh-my-pi's (@oh-my-pi/pi-coding-agent 18.x)
	TypeTitleSlot         = "title" // the title slot line before the header, not an entry
	TypeModelUsage        = "model_usage"
	TypeTitleChange       = "title_change"
	TypeResetBoundary     = "reset_boundary"
	TypeModeChange        = "mode_change"
	TypeServiceTierChange = "service_tier_change"
	TypeSessionInit       = "session_init"
	TypeTtsrInjection     = "ttsr_injection"
	TypeCredentialPin     = "credential_pin"
)

// Line is one decoded line of a session file: the header or any entry. It
// is deliberately flat — every top-level field of every known kind — so one
// json.Unmarshal serves all kinds on the indexer's hot path; Header and
// Entry turn it into the typed vocabulary below.
type Line struct {
	Type      string  `json:"type"`
	ID        *string `json:"id"`       // absent in v1 entries
	ParentID  *string `json:"parentId"` // nil: null or absent
	Timestamp string  `json:"timestamp"`

	// header (type "session")
	Version       *int    `json:"version"`
	Cwd           *string `json:"cwd"`
	ParentSession string  `json:"parentSession"`
	BranchedFrom  string  `json:"branchedFrom"` // v1/v2 name of parentSession

	// message
	Message *Message `json:"message"`

	// model_change, usage, v1 header
	Provider      string `json:"provider"`
	ModelID       string `json:"modelId"`
	Model         string `json:"model"` // usage entries; forks' model_change "provider/id"
	ThinkingLevel string `json:"thinkingLevel"`

	// compaction, branch_summary
	Summary             string          `json:"summary"`
	FirstKeptEntryID    string          `json:"firstKeptEntryId"`
	FirstKeptEntryIndex *int            `json:"firstKeptEntryIndex"` // v1
	TokensBefore        int64           `json:"tokensBefore"`
	FromID              string          `json:"fromId"`
	FromHook            bool            `json:"fromHook"`
	Usage               *Usage          `json:"usage"` // also usage entries
	Details             json.RawMessage `json:"details"`
	SystemMessage       *Message        `json:"systemMessage"`

	// custom, custom_message
	CustomType string          `json:"customType"`
	Data       json.RawMessage `json:"data"`
	Content    Content         `json:"content"`
	Display    bool            `json:"display"`

	// label, context_edit
	TargetID    string          `json:"targetId"`
	Label       *string         `json:"label"`
	Replacement json.RawMessage `json:"replacement"`

	// session_info
	Name *string `json:"name"`

	// usage
	Kind string `json:"kind"`
	Note string `json:"note"`

	// Raw is the line's bytes, for kinds whose fields Line does not
	// decode (set by the decoders; never encoded).
	Raw []byte `json:"-"`
}

// ErrNotObject is returned by DecodeLine for valid JSON that is not an
// object (pi would parse it, but it cannot be an entry).
var ErrNotObject = errors.New("line is not a JSON object")

// DecodeLine decodes one line. It separates the two failures that matter:
// syntax errors (the line is malformed and pi drops it) from a field of an
// unexpected JSON type (pi keeps the line; so does pidex, with the
// offending field left zero). The second comes back as a *json.UnmarshalTypeError
// together with a usable Line.
func DecodeLine(b []byte) (*Line, error) {
	if isNull(b) {
		return nil, ErrNotObject
	}
	l := Line{Raw: b}
	err := json.Unmarshal(b, &l)
	if err == nil {
		return &l, nil
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		switch te.Field {
		case "": // the top level itself is not an object
			return nil, ErrNotObject
		case "id": // the decoder allocated the pointer before failing
			l.ID = nil
		case "parentId":
			l.ParentID = nil
		}
		return &l, err
	}
	return nil, err
}

// isNull: the line is JSON's null, which Go decodes into any struct
// without an error, and which pi skips (it keeps truthy values only).
func isNull(b []byte) bool { return string(bytes.TrimSpace(b)) == "null" }

// DecodeLineFast is DecodeLine, faster: goccy/go-json decodes the same
// struct about five times faster and rejects the same malformed input
// (indexer's TestDecodeLineMatchesStdlib and FuzzDecodeLine). Anything
// but a clean decode or a syntax error — a field of an unexpected type, a
// non-object line — goes to DecodeLine, so those rare lines get exactly
// the standard library's semantics (which keeps the other fields).
func DecodeLineFast(b []byte) (*Line, error) {
	if isNull(b) {
		return nil, ErrNotObject
	}
	var l Line
	err := gojson.Unmarshal(b, &l)
	if err == nil {
		l.Raw = b
		return &l, nil
	}
	var syn *gojson.SyntaxError
	if errors.As(err, &syn) {
		return nil, err
	}
	return DecodeLine(b)
}

// Header returns the line as a session header.
func (l *Line) Header() Header {
	h := Header{
		Version:       1,
		Timestamp:     l.Timestamp,
		ParentSession: l.ParentSession,
		BranchedFrom:  l.BranchedFrom,
		Provider:      l.Provider,
		ModelID:       l.ModelID,
		ThinkingLevel: l.ThinkingLevel,
	}
	if l.Version != nil {
		h.Version = *l.Version
	}
	if l.ID != nil {
		h.ID = *l.ID
	}
	if l.Cwd != nil {
		h.Cwd = *l.Cwd
	}
	return h
}

// Header is the first line of a session file.
type Header struct {
	Version       int    // absent in the file ⇒ 1
	ID            string // session id, opaque
	Timestamp     string // creation time, ISO-8601 UTC
	Cwd           string // "" when absent
	ParentSession string // absolute path of the session this one was forked from
	// BranchedFrom is the v1/v2 name of ParentSession; pi never maps it.
	BranchedFrom string
	// v1 only: the initial model and thinking level.
	Provider, ModelID, ThinkingLevel string
}
