package schema

import (
	"encoding/json"
	"errors"
	"testing"
)

func TestContentText(t *testing.T) {
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
		if got := Content(tt.raw).Text(); got != tt.want {
			t.Errorf("Content(%s).Text() = %q, want %q", tt.raw, got, tt.want)
		}
	}
}

func TestMillis(t *testing.T) {
	tests := []struct {
		raw  string
		want Millis
	}{
		{`1777629605000`, 1777629605000},
		{`1777629605000.7`, 1777629605000},
		{`"1777629605000"`, 0}, // pi only takes numbers (typeof === "number")
		{`null`, 0},
		{`true`, 0},
	}
	for _, tt := range tests {
		var m struct{ T Millis }
		if err := json.Unmarshal([]byte(`{"T":`+tt.raw+`}`), &m); err != nil {
			t.Fatalf("%s: %v", tt.raw, err)
		}
		if m.T != tt.want {
			t.Errorf("%s: got %d, want %d", tt.raw, m.T, tt.want)
		}
	}
}

func TestUsageTotalFallsBackToParts(t *testing.T) {
	u := Usage{Input: 1, Output: 2, CacheRead: 3, CacheWrite: 4}
	if u.Total() != 10 {
		t.Errorf("Total() = %v, want 10 (pre-2025-12-06 files lack totalTokens)", u.Total())
	}
	u.TotalTokens = 7
	if u.Total() != 7 {
		t.Errorf("Total() = %v, want the stored 7", u.Total())
	}
}

func TestDecodeLine(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		wantNil  bool
		wantErr  error
		isHeader bool
		check    func(*Line) bool
	}{
		{"header", `{"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/w"}`, false, nil, true, nil},
		{"numeric header id is not a header", `{"type":"session","id":7}`, false, nil, false,
			func(l *Line) bool { return l.ID == nil }},
		{"not an object", `[1,2]`, true, ErrNotObject, false, nil},
		{"syntax error", `{"type":`, true, nil, false, nil},
		{"wrong-typed field keeps the rest", `{"type":"message","parentId":5,"message":{"role":"user"}}`, false, nil, false,
			func(l *Line) bool { return l.ParentID == nil && l.Message != nil && l.Message.Role == "user" }},
		{"null content is present", `{"type":"message","message":{"role":"user","content":null}}`, false, nil, false,
			func(l *Line) bool { return len(l.Message.Content) > 0 && l.Message.Content.IsNull() }},
		{"hookMessage is custom", `{"type":"message","message":{"role":"hookMessage"}}`, false, nil, false,
			func(l *Line) bool { return l.Message.NormalizedRole() == RoleCustom }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := DecodeLine([]byte(tt.in))
			if (l == nil) != tt.wantNil {
				t.Fatalf("line nil = %v, want %v (err %v)", l == nil, tt.wantNil, err)
			}
			if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if l == nil {
				return
			}
			if l.IsHeader() != tt.isHeader {
				t.Errorf("IsHeader() = %v", l.IsHeader())
			}
			if tt.check != nil && !tt.check(l) {
				t.Errorf("decoded %+v", l)
			}
		})
	}
}
