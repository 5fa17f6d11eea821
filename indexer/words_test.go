package indexer

import (
	"strings"
	"testing"

	"github.com/pidex-dev/pidex/schema"
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
		_, err := schema.DecodeLineFast([]byte(tt.line))
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
