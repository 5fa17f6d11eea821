package indexer

import (
	"strings"
	"testing"
)

// Warnings say what is wrong with a line in the format's words: no Go
// struct field or type, no decoder package.
func TestDecodeProblemWords(t *testing.T) {
	tests := []struct {
		line string
		want string
	}{
		{`{"type":"session","id":42}`, `"id" is a number, where pi writes a string`},
		{`{"type":"message","id":"a","timestamp":7}`, `"timestamp" is a number, where pi writes a string`},
		{`{"type":"message","id":"a","parentId":{"x":1}}`, `"parentId" is an object, where pi writes a string`},
		{`{"type":"message","id":"a\*"}`, `not valid JSON at byte 27: invalid character '*' in string escape code`},
		{"\xef\xbb\xbf{\"type\":\"session\"}", "byte-order mark"},
		{`{"type":"message","id":"a"`, `not valid JSON`},
	}
	for _, tt := range tests {
		_, err := decodeLine([]byte(tt.line))
		got := decodeProblem([]byte(tt.line), err)
		if !strings.Contains(got, tt.want) {
			t.Errorf("%s: %q, want %q", tt.line, got, tt.want)
		}
		for _, leak := range []string{"Go struct", "Line.", "json:", "go-json", "strconv", "of type"} {
			if strings.Contains(got, leak) {
				t.Errorf("%s: %q says %q", tt.line, got, leak)
			}
		}
	}
}

// A warning an earlier pidex stored is said again in people's words.
func TestReword(t *testing.T) {
	tests := []struct{ in, want string }{
		{"kept line with a field of unexpected type: json: cannot unmarshal number into Go struct field Line.id of type string",
			`kept line with a field of unexpected type: "id" is a number, where pi writes a string`},
		{"kept line with a field of unexpected type: json: cannot unmarshal number into Go struct field Line.timestamp of type string",
			`kept line with a field of unexpected type: "timestamp" is a number, where pi writes a string`},
		{"kept line with a field of unexpected type: json: cannot unmarshal array into Go struct field Message.message.usage of type schema.Usage",
			`kept line with a field of unexpected type: "message.usage" is an array, where pi writes another type`},
		{"skipped line: not a JSON object", "skipped line: not a JSON object"},
	}
	for _, tt := range tests {
		if got := Reword(tt.in); got != tt.want {
			t.Errorf("Reword(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
