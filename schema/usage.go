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
