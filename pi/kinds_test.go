package pi

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/pidex-dev/pidex/internal/js"
	"github.com/pidex-dev/pidex/schema"
)

// Every kind pi writes has a meaning here.
var knownTypes = []string{
	schema.TypeMessage, schema.TypeThinkingLevelChange, schema.TypeModelChange, schema.TypeUsage,
	schema.TypeCompaction, schema.TypeBranchSummary, schema.TypeCustom, schema.TypeCustomMessage,
	schema.TypeContextEdit, schema.TypeLabel, schema.TypeSessionInfo,
	// oh-my-pi's
	schema.TypeModelUsage, schema.TypeTitleChange, schema.TypeResetBoundary, schema.TypeModeChange,
	schema.TypeServiceTierChange, schema.TypeSessionInit, schema.TypeTtsrInjection, schema.TypeCredentialPin,
}

var knownRoles = []string{
	schema.RoleUser, schema.RoleAssistant, schema.RoleToolResult, schema.RoleBashExecution,
	schema.RoleCustom, schema.RoleSystem, schema.RoleBranchSummary, schema.RoleCompactionSummary,
	schema.RoleDeveloper, schema.RolePythonExecution,
}

// Kinds without prose: nothing to search for in them.
var withoutProse = map[string]bool{schema.TypeModelChange: true, schema.TypeThinkingLevelChange: true, schema.TypeCustom: true,
	schema.TypeModelUsage: true, schema.TypeResetBoundary: true, schema.TypeModeChange: true,
	schema.TypeServiceTierChange: true, schema.TypeCredentialPin: true}

func TestKnownKindsRegistered(t *testing.T) {
	for _, typ := range knownTypes {
		if _, ok := kinds.get(typ); !ok {
			t.Errorf("entry type %q has no Kind", typ)
		}
	}
	for _, r := range knownRoles {
		if _, ok := roles.get(r); !ok {
			t.Errorf("message role %q has no Role", r)
		}
	}
}

// Every registered kind says everything every side needs, on its own
// example line: a kind that lacks text, preview, summary, facts or its
// context rules fails here, whoever added it.
func TestKindsComplete(t *testing.T) {
	for _, k := range Kinds() {
		typ := k.Type
		t.Run(typ, func(t *testing.T) {
			if k.Text == nil || k.Preview == nil || k.Show == nil || k.Facts == nil || k.Context == nil || k.Settings == nil {
				t.Fatalf("kind %q lacks a function: %+v", typ, k)
			}
			l := example(t, k.Example)
			if l.Type != typ {
				t.Fatalf("example is of type %q", l.Type)
			}
			if Preview(l) == "" {
				t.Error("empty preview")
			}
			if s := Show(l, Where{}); s.Title == "" || (s.Detail == "" && len(s.Body) == 0) {
				t.Errorf("show says nothing: %+v", s)
			}
			if got := Text(l); (got == "") != withoutProse[typ] {
				t.Errorf("searchable text %q (kinds without prose: %v)", got, withoutProse)
			}
			o, ok := js.ParseObject(json.RawMessage(k.Example))
			if !ok {
				t.Fatal("example is not an object")
			}
			msgs := k.Context(o)
			if k.Carries && len(msgs) == 0 {
				t.Error("a kind that carries messages contributed none")
			}
			for _, m := range msgs {
				if !json.Valid(m) {
					t.Errorf("context message is not JSON: %s", m)
				}
			}
			var s Settings
			k.Settings(o, &s) // must not panic
			_ = FactsOf(l)
		})
	}
}

func TestRolesComplete(t *testing.T) {
	for _, r := range Roles() {
		name := r.Role
		t.Run(name, func(t *testing.T) {
			if r.Text == nil || r.Preview == nil || r.Show == nil || r.Facts == nil {
				t.Fatalf("role %q lacks a function", name)
			}
			var m schema.Message
			if err := json.Unmarshal([]byte(r.Example), &m); err != nil || m.Role != name {
				t.Fatalf("example: %v (role %q)", err, m.Role)
			}
			if r.Text(&m) == "" || r.Preview(&m) == "" {
				t.Errorf("text %q, preview %q", r.Text(&m), r.Preview(&m))
			}
			if s := ShowMessage(json.RawMessage(r.Example)); s.Title == "" || len(s.Body) == 0 {
				t.Errorf("show says nothing: %+v", s)
			}
		})
	}
}

func example(t *testing.T, line string) *schema.Line {
	t.Helper()
	l, err := schema.DecodeLine([]byte(line))
	if err != nil || l == nil {
		t.Fatalf("example %s: %v", line, err)
	}
	return l
}

// The facts each kind hands the catalog, on the examples.
func TestFacts(t *testing.T) {
	k := func(typ string) *Kind { return KindOf(typ) }
	tests := []struct {
		typ   string
		check func(Facts) bool
	}{
		{schema.TypeModelChange, func(f Facts) bool { return f.Provider == "anthropic" && f.Model == "claude-x" }},
		{schema.TypeCompaction, func(f Facts) bool {
			return f.FirstKept == "a4" && len(f.Usage) == 1 && f.Usage[0].Source == "compaction"
		}},
		{schema.TypeLabel, func(f Facts) bool { return f.Target == "a3" && f.Label != nil && f.Label.Text == "good idea" }},
		{schema.TypeSessionInfo, func(f Facts) bool { return f.Name != nil && f.Name.Name != nil && *f.Name.Name == "Build fix" }},
		{schema.TypeContextEdit, func(f Facts) bool { return f.Target == "a5" }},
		{schema.TypeUsage, func(f Facts) bool {
			return len(f.Usage) == 1 && f.Usage[0].Kind == "cache_warm" && f.Usage[0].Model == "claude-x"
		}},
	}
	for _, tt := range tests {
		if f := FactsOf(example(t, k(tt.typ).Example)); !tt.check(f) {
			t.Errorf("%s: facts %+v", tt.typ, f)
		}
	}
	fork := example(t, `{"type":"model_change","id":"a","parentId":null,"timestamp":"t","model":"openai/gpt-x"}`)
	if f := FactsOf(fork); f.Provider != "openai" || f.Model != "gpt-x" {
		t.Errorf("fork-format model_change: %+v", f)
	}
	asst := example(t, `{"type":"message","id":"a","parentId":null,"timestamp":"t","message":`+RoleOf(&schema.Message{Role: schema.RoleAssistant}).Example+`}`)
	if f := FactsOf(asst); f.Model != "claude-x" || len(f.Usage) != 1 || f.Usage[0].Source != "assistant" {
		t.Errorf("assistant facts: %+v", f)
	}
}

// Search text holds thinking and tool calls, never images.
func TestContentText(t *testing.T) {
	c := schema.Content(`[{"type":"text","text":"hello"},{"type":"thinking","thinking":"hmm"},` +
		`{"type":"toolCall","id":"t","name":"read","arguments":{"path":"src/query/path.go"}},` +
		`{"type":"image","data":"QUFBQQ==","mimeType":"image/png"}]`)
	got := ContentText(c)
	for _, want := range []string{"hello", "hmm", "read", "src/query/path.go"} {
		if !strings.Contains(got, want) {
			t.Errorf("ContentText = %q, lacks %q", got, want)
		}
	}
	if strings.Contains(got, "QUFB") {
		t.Errorf("image data in text: %q", got)
	}
}

// An unknown kind is kept: it shows its type and contributes nothing.
func TestUnknownKind(t *testing.T) {
	l := example(t, `{"type":"compression-stats","id":"u","parentId":null,"timestamp":"t","ratio":0.3}`)
	if s := Show(l, Where{}); s.Title != "compression-stats" {
		t.Errorf("show: %+v", s)
	}
	if Preview(l) != "" || Text(l) != "" || len(FactsOf(l).Usage) != 0 {
		t.Error("an unknown kind should say nothing")
	}
}

func TestToolCalls(t *testing.T) {
	c := schema.Content(`[{"type":"text","text":"a \"toolCall\" in text"},{"type":"toolCall","id":"c1","name":"read","arguments":{"path":"x"}},` +
		`{"type":"thinking","thinking":"]"},{"type":"toolCall","id":"c\u00e92","name":"bash","arguments":{}}]`)
	got := toolCalls(c)
	if len(got) != 2 || got[0] != (ToolCall{Index: 1, ID: "c1", Name: "read"}) || got[1] != (ToolCall{Index: 3, ID: "cé2", Name: "bash"}) {
		t.Errorf("toolCalls = %+v", got)
	}
	if toolCalls(schema.Content(`"a string"`)) != nil || toolCalls(schema.Content(`null`)) != nil {
		t.Error("no tool calls in string or null content")
	}
}
