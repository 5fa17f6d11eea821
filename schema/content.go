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
// turns into U+FFFD), and any input goccy rejects.
func decodeBlocks(c Content) ([]Block, error) {
	if utf8.Valid(c) && !bytes.Contains(c, []byte(`\u`)) {
		var bs []Block
		if err := gojson.Unmarshal(c, &bs); err == nil {
			return bs, nil
		}
	}
	var bs []Block
	err := json.Unmarshal(c, &bs)
	return bs, err
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
