package catalogtest

import (
	"fmt"
	"strings"
)

// UnpricedID is the session id of UnpricedSession.
const UnpricedID = "0196a1b2-0000-7000-8000-0000000a0036"

// UnpricedSession is a pi session as a new user's often is (issue 36):
// pi recorded $0 for the calls of models it had no price for (ollama, a
// custom provider), next to a priced call, a free model's call (pidex's
// price table prices google/gemma-4-31b-it at $0) and an aborted call
// without tokens, over two days (UTC). What a report must say of it:
// UnpricedWant.
func UnpricedSession() string {
	var b strings.Builder
	b.WriteString(`{"type":"session","version":3,"id":"` + UnpricedID + `","timestamp":"2026-05-01T09:59:00.000Z","cwd":"/home/ann/honest"}` + "\n")
	b.WriteString(`{"type":"message","id":"u1","parentId":null,"timestamp":"2026-05-01T09:59:30.000Z","message":{"role":"user","content":[{"type":"text","text":"count the honest prices"}],"timestamp":1777629570000}}` + "\n")
	parent := "u1"
	for _, c := range []struct {
		id, ts, provider, model   string
		in, out, cacheRd, cacheWr int
		cost                      float64
	}{
		{"a1", "2026-05-01T10:00:00.000Z", "anthropic", "claude-opus-4-5", 1000, 200, 0, 0, 0.5},
		{"a2", "2026-05-01T11:00:00.000Z", "ollama", "glm-4.6", 3000, 500, 0, 0, 0},
		{"a3", "2026-05-01T11:05:00.000Z", "ollama", "glm-4.6", 0, 0, 0, 0, 0}, // aborted: no tokens, not unpriced
		{"a4", "2026-05-02T09:00:00.000Z", "my-proxy", "claude-opus-4-5", 100, 50, 300, 25, 0},
		{"a5", "2026-05-02T10:00:00.000Z", "google", "gemma-4-31b-it", 300, 100, 0, 0, 0}, // free
		{"a6", "2026-05-02T11:00:00.000Z", "ollama", "glm-4.6", 700, 300, 0, 0, 0},
	} {
		fmt.Fprintf(&b, `{"type":"message","id":%q,"parentId":%q,"timestamp":%q,"message":{"role":"assistant","content":[{"type":"text","text":"ok"}],`+
			`"provider":%q,"model":%q,"usage":{"input":%d,"output":%d,"cacheRead":%d,"cacheWrite":%d,"totalTokens":%d,`+
			`"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":%v}},"stopReason":"stop"}}`+"\n",
			c.id, parent, c.ts, c.provider, c.model, c.in, c.out, c.cacheRd, c.cacheWr, c.in+c.out+c.cacheRd+c.cacheWr, c.cost)
		parent = c.id
	}
	return b.String()
}

// UnpricedWant is what a report over UnpricedSession alone says of its
// unpriced calls: in all, and per day (UTC) and per model.
var UnpricedWant = struct {
	Calls          int64 // every call
	Cost           float64
	UnpricedCalls  int64
	UnpricedTokens float64
	UnpricedModels []string
	// EstimatedCalls of them have a price in pidex's table (my-proxy's
	// claude-opus-4-5 as LiteLLM's claude-opus-4-5); ollama/glm-4.6 has none.
	EstimatedCalls int64
	NoEstimate     []string
	ByDay          map[string][2]float64 // day → unpriced calls, tokens
	ByModel        map[string][2]float64 // model → unpriced calls, tokens
}{
	Calls: 6, Cost: 0.5, UnpricedCalls: 3, UnpricedTokens: 3500 + 475 + 1000,
	UnpricedModels: []string{"my-proxy/claude-opus-4-5", "ollama/glm-4.6"},
	EstimatedCalls: 1, NoEstimate: []string{"ollama/glm-4.6"},
	ByDay: map[string][2]float64{"2026-05-01": {1, 3500}, "2026-05-02": {2, 1475}},
	ByModel: map[string][2]float64{"anthropic/claude-opus-4-5": {0, 0}, "ollama/glm-4.6": {2, 4500},
		"my-proxy/claude-opus-4-5": {1, 475}, "google/gemma-4-31b-it": {0, 0}},
}
