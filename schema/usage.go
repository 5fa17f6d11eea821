package schema

// Cost is the USD cost object pi writes next to token counts, computed from
// pi's price table when the entry was written (0 for unknown/free models).
type Cost struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cacheRead"`
	CacheWrite float64 `json:"cacheWrite"`
	Total      float64 `json:"total"`
}

// Usage is one LLM call's token counts and cost. It occurs on assistant
// messages, optionally on tool results, compactions and branch summaries,
// and on `usage` entries.
//
// Token counts are float64 because pi's type is a JavaScript number: a
// provider that reports fractional or huge counts gets them written as
// they are, and pidex sums them as written (an int64 field rejected the
// whole line's usage).
type Usage struct {
	Input       float64 `json:"input"`
	Output      float64 `json:"output"`
	CacheRead   float64 `json:"cacheRead"`
	CacheWrite  float64 `json:"cacheWrite"`
	TotalTokens float64 `json:"totalTokens"`
	// CacheWrite1h is the part of CacheWrite written with a 1h TTL (newer, Anthropic).
	CacheWrite1h float64 `json:"cacheWrite1h,omitempty"`
	// Reasoning is the part of Output spent on reasoning (newer).
	Reasoning float64 `json:"reasoning,omitempty"`
	Cost      Cost    `json:"cost"`
}

// Total returns TotalTokens, falling back to the sum of the parts for files
// written before 2025-12-06, which lack totalTokens (pi does the same).
func (u Usage) Total() float64 {
	if u.TotalTokens != 0 {
		return u.TotalTokens
	}
	return u.Input + u.Output + u.CacheRead + u.CacheWrite
}

// UsageSource says where a usage record was found.
type UsageSource string

// Usage sources, one per carrier in pi's format.
const (
	UsageAssistant     UsageSource = "assistant"      // message.usage of an assistant message
	UsageToolResult    UsageSource = "toolResult"     // message.usage of a tool result
	UsageCompaction    UsageSource = "compaction"     // compaction.usage
	UsageBranchSummary UsageSource = "branch_summary" // branch_summary.usage
	UsageEntry         UsageSource = "usage"          // a `usage` entry (calls outside the conversation)
)
