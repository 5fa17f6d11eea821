package pi

import (
	"testing"

	"github.com/pidex-dev/pidex/schema"
)

func TestJoinedText(t *testing.T) {
	tests := []struct {
		raw, want string
	}{
		{`"plain"`, "plain"},
		{`[{"type":"text","text":"a"},{"type":"thinking","thinking":"x"},{"type":"text","text":"b"}]`, "a b"},
		{`[{"type":"image","data":"AAAA","mimeType":"image/png"}]`, ""},
		{`[{"type":"toolCall","id":"t","name":"bash","arguments":{}}]`, ""},
		{`null`, ""},
		{`[]`, ""},
		{`{"not":"blocks"}`, ""},
	}
	for _, tt := range tests {
		if got := JoinedText(schema.Content(tt.raw)); got != tt.want {
			t.Errorf("JoinedText(%s) = %q, want %q", tt.raw, got, tt.want)
		}
	}
}

func TestTotalTokensFallsBackToParts(t *testing.T) {
	u := schema.Usage{Input: 1, Output: 2, CacheRead: 3, CacheWrite: 4}
	if got := TotalTokens(u); got != 10 {
		t.Errorf("TotalTokens = %v, want 10 (pre-2025-12-06 files lack totalTokens)", got)
	}
	u.TotalTokens = 7
	if got := TotalTokens(u); got != 7 {
		t.Errorf("TotalTokens = %v, want the stored 7", got)
	}
}

func TestIsHeaderAndRoleName(t *testing.T) {
	for line, want := range map[string]bool{
		`{"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/w"}`: true,
		`{"type":"session","id":7}`:   false, // pi wants a string id
		`{"type":"message","id":"s"}`: false,
	} {
		l, _ := schema.DecodeLine([]byte(line))
		if got := IsHeader(l); got != want {
			t.Errorf("IsHeader(%s) = %v", line, got)
		}
	}
	if got := RoleName(&schema.Message{Role: schema.RoleHookMessage}); got != schema.RoleCustom {
		t.Errorf("hookMessage reads as %q, want custom", got)
	}
}
