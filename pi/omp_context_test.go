package pi

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/pidex-dev/pidex"
)

// omp's context rules on the cases its corpus does not reach
// (session-context.ts): what each entry contributes, the boundary a
// /clear sets against a compaction, dangling tool calls, failed turns.
func TestOmpContextRules(t *testing.T) {
	user := func(id, text string) string {
		return `{"type":"message","id":"` + id + `","parentId":null,"timestamp":"2026-10-01T10:00:00.000Z","message":{"role":"user","content":[{"type":"text","text":"` + text + `"}],"timestamp":1}}`
	}
	asst := func(id, stop, content string) string {
		return `{"type":"message","id":"` + id + `","parentId":null,"timestamp":"2026-10-01T10:00:01.000Z","message":{"role":"assistant","content":[` + content + `],"provider":"anthropic","model":"m1","stopReason":"` + stop + `","timestamp":2}}`
	}
	result := func(id, call string) string {
		return `{"type":"message","id":"` + id + `","parentId":null,"timestamp":"2026-10-01T10:00:02.000Z","message":{"role":"toolResult","toolCallId":"` + call + `","toolName":"bash","content":[{"type":"text","text":"ok"}],"isError":false,"timestamp":3}}`
	}
	call := func(id string) string { return `{"type":"toolCall","id":"` + id + `","name":"bash","arguments":{}}` }
	text := func(s string) string { return `{"type":"text","text":"` + s + `"}` }
	tests := []struct {
		name  string
		lines []string
		want  string // role[:detail] of each message
	}{
		{"a dangling call is stripped, with the turn's signatures and redacted thinking",
			[]string{user("u1", "go"), asst("a1", "toolUse", `{"type":"thinking","thinking":"hm","thinkingSignature":"sig"},{"type":"redactedThinking","data":"x"},`+text("running")+`,`+call("c1"))},
			"user assistant:thinking,text(no signature)"},
		{"a turn left empty goes", []string{user("u1", "go"), asst("a1", "toolUse", call("c1"))}, "user"},
		{"an answered call stays", []string{user("u1", "go"), asst("a1", "toolUse", call("c1")), result("r1", "c1")}, "user assistant:toolCall toolResult"},
		{"an aborted turn goes with its results", []string{user("u1", "go"), asst("a1", "aborted", text("half")+`,`+call("c1")), result("r1", "c1"), user("u2", "again")}, "user user"},
		{"unless interrupted thinking follows", []string{user("u1", "go"), asst("a1", "error", text("half")),
			`{"type":"custom_message","id":"i1","parentId":null,"timestamp":"2026-10-01T10:00:03.000Z","customType":"interrupted-thinking","content":"note","display":false}`},
			"user assistant:text custom"},
		{"an empty error turn and a retry-recovery turn are left out", []string{user("u1", "go"), asst("a1", "error", text("  ")),
			`{"type":"message","id":"a2","parentId":null,"timestamp":"2026-10-01T10:00:01.000Z","message":{"role":"assistant","content":[{"type":"text","text":"x"}],"retryRecovery":true,"stopReason":"stop","timestamp":2}}`},
			"user"},
		{"a /clear after the compaction wins", []string{user("u1", "old"),
			`{"type":"compaction","id":"k1","parentId":null,"timestamp":"2026-10-01T10:00:05.000Z","summary":"s","firstKeptEntryId":"u1","tokensBefore":9}`,
			`{"type":"reset_boundary","id":"r1","parentId":null,"timestamp":"2026-10-01T10:00:06.000Z"}`, user("u2", "new")},
			"user"},
		{"a compaction after the /clear wins", []string{user("u1", "old"),
			`{"type":"reset_boundary","id":"r1","parentId":null,"timestamp":"2026-10-01T10:00:06.000Z"}`, user("u2", "kept"),
			`{"type":"compaction","id":"k1","parentId":null,"timestamp":"2026-10-01T10:00:07.000Z","summary":"s","firstKeptEntryId":"u2","tokensBefore":9}`, user("u3", "new")},
			"compactionSummary user user"},
		{"branch summaries with a summary, custom messages with their attribution", []string{
			`{"type":"branch_summary","id":"b1","parentId":null,"timestamp":"2026-10-01T10:00:06.000Z","fromId":"root","summary":""}`,
			`{"type":"branch_summary","id":"b2","parentId":null,"timestamp":"2026-10-01T10:00:06.000Z","fromId":"x","summary":"went back"}`,
			`{"type":"custom_message","id":"m1","parentId":null,"timestamp":"2026-10-01T10:00:07.000Z","customType":"reminder","content":"hi","display":true,"attribution":"weird"}`,
			`{"type":"custom_message","id":"m2","parentId":null,"timestamp":"2026-10-01T10:00:07.000Z","customType":"prewalk-plan","content":"plan","display":true}`},
			"branchSummary custom:agent"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var path []Entry
			for i, l := range tt.lines {
				path = append(path, Entry{Entry: pidex.Entry{ID: "e" + strconv.Itoa(i), Line: int64(i + 2)}, Raw: []byte(l)})
			}
			sc, err := BuildOmpContext(path, nil)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, raw := range sc.Messages {
				var m struct {
					Role        string
					Attribution string
					Content     json.RawMessage
				}
				_ = json.Unmarshal(raw, &m)
				s := m.Role
				var blocks []map[string]any
				if json.Unmarshal(m.Content, &blocks) == nil && m.Role == "assistant" {
					var kinds []string
					sig := false
					for _, b := range blocks {
						kinds = append(kinds, b["type"].(string))
						_, has := b["thinkingSignature"]
						sig = sig || has
					}
					s += ":" + strings.Join(kinds, ",")
					if !sig && strings.Contains(tt.name, "signature") {
						s += "(no signature)"
					}
				}
				if m.Attribution != "" {
					s += ":" + m.Attribution
				}
				got = append(got, s)
			}
			if g := strings.Join(got, " "); g != tt.want {
				t.Errorf("messages %q, want %q", g, tt.want)
			}
		})
	}
}

// The settings: per-role models (an assistant message sets the default
// only until a model_change chose one), the service tier as omp coerces
// it, mode and injected rules.
func TestOmpContextSettings(t *testing.T) {
	lines := []string{
		`{"type":"message","id":"a0","parentId":null,"timestamp":"2026-10-01T10:00:00.000Z","message":{"role":"assistant","content":[{"type":"text","text":"x"}],"provider":"p0","model":"m0","stopReason":"stop","timestamp":1}}`,
		`{"type":"model_change","id":"c1","parentId":null,"timestamp":"2026-10-01T10:00:01.000Z","model":"anthropic/claude-haiku-4-5","role":"smol"}`,
		`{"type":"model_change","id":"c2","parentId":null,"timestamp":"2026-10-01T10:00:02.000Z","model":"openai/gpt-5"}`,
		`{"type":"message","id":"a1","parentId":null,"timestamp":"2026-10-01T10:00:03.000Z","message":{"role":"assistant","content":[{"type":"text","text":"y"}],"provider":"p1","model":"m1","stopReason":"stop","timestamp":2}}`,
		`{"type":"service_tier_change","id":"s1","parentId":null,"timestamp":"2026-10-01T10:00:04.000Z","serviceTier":"openai-only"}`,
		`{"type":"thinking_level_change","id":"t1","parentId":null,"timestamp":"2026-10-01T10:00:05.000Z","thinkingLevel":null,"configured":"auto"}`,
		`{"type":"mode_change","id":"m1","parentId":null,"timestamp":"2026-10-01T10:00:06.000Z","mode":"plan","data":{"f":1}}`,
		`{"type":"ttsr_injection","id":"r1","parentId":null,"timestamp":"2026-10-01T10:00:07.000Z","injectedRules":["a","b"]}`,
		`{"type":"ttsr_injection","id":"r2","parentId":null,"timestamp":"2026-10-01T10:00:08.000Z","injectedRules":["b","c"]}`,
	}
	var path []Entry
	for i, l := range lines {
		path = append(path, Entry{Entry: pidex.Entry{ID: "e" + strconv.Itoa(i)}, Raw: []byte(l)})
	}
	sc, err := BuildOmpContext(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(sc.Context)
	want := `"thinkingLevel":"off","configuredThinkingLevel":"auto","serviceTier":{"openai":"priority"},"models":{"default":"openai/gpt-5","smol":"anthropic/claude-haiku-4-5"},"injectedTtsrRules":["a","b","c"],"mode":"plan","modeData":{"f":1},"model":{"provider":"openai","modelId":"gpt-5"}}`
	if !strings.HasSuffix(string(b), want) {
		t.Errorf("settings:\n%s\nwant the end:\n%s", b, want)
	}
}
