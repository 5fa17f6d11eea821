package schema

import (
	"encoding/json"
	"errors"
	"testing"
)

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

func TestDecodeLine(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		wantNil bool
		wantErr error
		check   func(*Line) bool
	}{
		{"header", `{"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/w"}`, false, nil,
			func(l *Line) bool { return l.ID != nil && *l.ID == "s" }},
		{"numeric header id", `{"type":"session","id":7}`, false, nil,
			func(l *Line) bool { return l.ID == nil }},
		{"not an object", `[1,2]`, true, ErrNotObject, nil},
		{"null is not an object", " null ", true, ErrNotObject, nil}, // Go would decode it into an empty Line
		{"syntax error", `{"type":`, true, nil, nil},
		{"wrong-typed field keeps the rest", `{"type":"message","parentId":5,"message":{"role":"user"}}`, false, nil,
			func(l *Line) bool { return l.ParentID == nil && l.Message != nil && l.Message.Role == "user" }},
		{"null content is present", `{"type":"message","message":{"role":"user","content":null}}`, false, nil,
			func(l *Line) bool { return len(l.Message.Content) > 0 && l.Message.Content.IsNull() }},
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
			if tt.check != nil && !tt.check(l) {
				t.Errorf("decoded %+v", l)
			}
		})
	}
}
