package schema

import (
	"encoding/json"
	"math"
	"strconv"
)

// Message roles (AgentMessage.role).
const (
	RoleUser              = "user"
	RoleAssistant         = "assistant"
	RoleToolResult        = "toolResult"
	RoleBashExecution     = "bashExecution"
	RoleCustom            = "custom"
	RoleBranchSummary     = "branchSummary"
	RoleCompactionSummary = "compactionSummary"
	RoleSystem            = "system"
	// oh-my-pi's
	RoleDeveloper       = "developer"
	RolePythonExecution = "pythonExecution"
	// RoleHookMessage is the v2 name of RoleCustom; pi renames it on load
	// and so does pidex (see pi.RoleName).
	RoleHookMessage = "hookMessage"
)

// Message is pi's AgentMessage, the payload of `message` entries. It is one
// flat struct for every role, because roles are an open set: Role selects
// which fields are meaningful, and a role this version does not know still
// decodes (its common fields kept, the rest available from the raw line).
type Message struct {
	Role      string  `json:"role"`
	Content   Content `json:"content,omitempty"`
	Timestamp Millis  `json:"timestamp,omitempty"`

	// assistant
	API          string `json:"api,omitempty"`
	Provider     string `json:"provider,omitempty"`
	Model        string `json:"model,omitempty"`
	Usage        *Usage `json:"usage,omitempty"` // also toolResult (nested LLM work)
	StopReason   string `json:"stopReason,omitempty"`
	ErrorMessage string `json:"errorMessage,omitempty"`
	ResponseID   string `json:"responseId,omitempty"`

	// toolResult
	ToolCallID string          `json:"toolCallId,omitempty"`
	ToolName   string          `json:"toolName,omitempty"`
	IsError    bool            `json:"isError,omitempty"`
	Details    json.RawMessage `json:"details,omitempty"` // also custom
	// Output is the pre-2025-11-12 tool result text, and bashExecution's output.
	Output string `json:"output,omitempty"`

	// bashExecution
	Command            string `json:"command,omitempty"`
	ExitCode           *int   `json:"exitCode,omitempty"`
	Cancelled          bool   `json:"cancelled,omitempty"`
	Truncated          bool   `json:"truncated,omitempty"`
	FullOutputPath     string `json:"fullOutputPath,omitempty"`
	ExcludeFromContext bool   `json:"excludeFromContext,omitempty"`
	// pythonExecution (oh-my-pi): the code, with Output, ExitCode, … as bash's
	Code string `json:"code,omitempty"`

	// custom (and v2 hookMessage)
	CustomType string `json:"customType,omitempty"`
	Display    bool   `json:"display,omitempty"`

	// branchSummary / compactionSummary (synthesized by pi; tolerated on disk)
	Summary      string `json:"summary,omitempty"`
	FromID       string `json:"fromId,omitempty"`
	TokensBefore int64  `json:"tokensBefore,omitempty"`
}

// Millis is a Unix time in milliseconds, as pi writes message timestamps:
// a JSON number (sometimes a float in synthetic data). Anything else
// decodes as 0, "no timestamp", because pi then falls back to the entry's
// ISO timestamp (it checks typeof === "number").
type Millis int64

// UnmarshalJSON accepts a number; other JSON values leave 0.
func (m *Millis) UnmarshalJSON(b []byte) error {
	*m = 0
	if len(b) == 0 || (b[0] != '-' && (b[0] < '0' || b[0] > '9')) {
		return nil
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return nil
	}
	*m = Millis(f)
	return nil
}
