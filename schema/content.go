package schema

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"

	gojson "github.com/goccy/go-json"
)

// Content is a message's content: in pi's format either a JSON string or an
// array of content blocks. It keeps the raw JSON so that decoding a line does
// not unescape multi-megabyte tool outputs nobody asked for, and so that
// re-encoding is byte-faithful; Text and Blocks decode on demand.
type Content json.RawMessage

// UnmarshalJSON keeps a copy of the raw value.
func (c *Content) UnmarshalJSON(b []byte) error {
	*c = append((*c)[:0], b...)
	return nil
}

// MarshalJSON writes the raw value back (null when empty).
func (c Content) MarshalJSON() ([]byte, error) {
	if len(c) == 0 {
		return []byte("null"), nil
	}
	return c, nil
}

// IsNull reports whether the content is absent or JSON null.
func (c Content) IsNull() bool {
	t := bytes.TrimSpace(c)
	return len(t) == 0 || string(t) == "null"
}

// IsString reports whether the content is the plain-string form.
func (c Content) IsString() bool {
	t := bytes.TrimSpace(c)
	return len(t) > 0 && t[0] == '"'
}

// Blocks decodes the content as blocks; the string form becomes one text block.
func (c Content) Blocks() ([]Block, error) {
	if c.IsNull() {
		return nil, nil
	}
	if c.IsString() {
		var s string
		if err := json.Unmarshal(c, &s); err != nil {
			return nil, err
		}
		return []Block{{Type: BlockText, Text: s}}, nil
	}
	return decodeBlocks(c)
}

// decodeBlocks decodes an array of blocks with goccy/go-json, about four
// times faster than encoding/json on pi's content (a fifth of a cold
// index decoded blocks: every entry's searchable text and preview). What
// goccy may read differently goes to encoding/json, so the blocks are
// always what encoding/json makes of them (TestBlocksMatchStdlib,
// FuzzBlocks): invalid UTF-8 and escaped surrogates (which encoding/json
// turns into U+FFFD), and any input goccy rejects. Other escapes (\u001b
// of a terminal's colours, \u200d of an emoji) take the fast path: tool
// output is full of them.
func decodeBlocks(c Content) ([]Block, error) {
	if utf8.Valid(c) && !surrogateEscape(c) {
		var bs []Block
		if err := gojson.Unmarshal(c, &bs); err == nil {
			return bs, nil
		}
	}
	var bs []Block
	err := json.Unmarshal(c, &bs)
	return bs, err
}

// surrogateEscape reports whether b may hold an escaped UTF-16 surrogate
// (\uD800 to \uDFFF, either case). An escaped backslash before a "u"
// counts too: a false alarm only takes the slower path.
func surrogateEscape(b []byte) bool {
	for {
		i := bytes.Index(b, []byte(`\u`))
		if i < 0 || i+4 > len(b) {
			return false
		}
		if d := b[i+2]; d == 'd' || d == 'D' {
			switch b[i+3] {
			case '8', '9', 'a', 'b', 'c', 'd', 'e', 'f', 'A', 'B', 'C', 'D', 'E', 'F':
				return true
			}
		}
		b = b[i+2:]
	}
}

// Block types.
const (
	BlockText     = "text"
	BlockThinking = "thinking"
	BlockImage    = "image"
	BlockToolCall = "toolCall"
)

// Block is one content block. Type selects which fields are meaningful;
// unknown block types decode with just Type set.
type Block struct {
	Type string `json:"type"`
	// text
	Text          string `json:"text,omitempty"`
	TextSignature string `json:"textSignature,omitempty"`
	// thinking
	Thinking          string `json:"thinking,omitempty"`
	ThinkingSignature string `json:"thinkingSignature,omitempty"`
	Redacted          bool   `json:"redacted,omitempty"`
	// image
	Data     string `json:"data,omitempty"`
	MimeType string `json:"mimeType,omitempty"`
	// toolCall
	ID               string          `json:"id,omitempty"`
	Name             string          `json:"name,omitempty"`
	Arguments        json.RawMessage `json:"arguments,omitempty"`
	ThoughtSignature string          `json:"thoughtSignature,omitempty"`
}
