package view

import (
	"encoding/json"
	"strings"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/js"
	"github.com/pidex-dev/pidex/pi"
	"github.com/pidex-dev/pidex/schema"
)

// blocks turns the parts of a shown entry into a Document's blocks.
func blocks(s pi.Shown) []pidex.Block {
	var out []pidex.Block
	for _, p := range s.Body {
		switch p.Kind {
		case pi.PartLines:
			out = append(out, prose(p.Text, false)...)
		case pi.PartLine:
			out = append(out, pidex.Block{Kind: pidex.BlockLine, Text: p.Text})
		case pi.PartOutput:
			if p.Text != "" {
				out = append(out, pidex.Block{Kind: pidex.BlockOutput, Inner: []pidex.Block{{Kind: pidex.BlockPre, Text: p.Text}}})
			}
		case pi.PartContent:
			out = append(out, content(p.Content, false)...)
		case pi.PartToolContent:
			if inner := content(p.Content, true); len(inner) > 0 {
				out = append(out, pidex.Block{Kind: pidex.BlockOutput, Inner: inner})
			}
		case pi.PartSystem:
			out = append(out, system(p.Raw))
		}
	}
	if len(out) == 0 && s.Empty != "" {
		out = []pidex.Block{{Kind: pidex.BlockLine, Text: s.Empty}}
	}
	return out
}

// prose is text as conversation (or, in tool output, preformatted); blank
// text is no block.
func prose(text string, tool bool) []pidex.Block {
	switch {
	case strings.TrimSpace(text) == "":
		return nil
	case tool:
		return []pidex.Block{{Kind: pidex.BlockPre, Text: text}}
	}
	return []pidex.Block{{Kind: pidex.BlockProse, Text: text}}
}

// content is message content: text, thinking, tool calls, images, and
// blocks of types this version does not know.
func content(c schema.Content, tool bool) []pidex.Block {
	if c.IsNull() {
		return nil
	}
	if c.IsString() {
		return prose(pi.JoinedText(c), tool)
	}
	var raws []json.RawMessage
	if err := json.Unmarshal(c, &raws); err != nil {
		return []pidex.Block{{Kind: pidex.BlockOther, Text: string(c)}}
	}
	var out []pidex.Block
	for _, raw := range raws {
		var b schema.Block
		_ = json.Unmarshal(raw, &b) // a field of an odd type is left empty
		switch b.Type {
		case schema.BlockText:
			out = append(out, prose(b.Text, tool)...)
		case schema.BlockThinking:
			out = append(out, pidex.Block{Kind: pidex.BlockThinking, Text: b.Thinking, Redacted: b.Redacted})
		case schema.BlockImage:
			out = append(out, pidex.Block{Kind: pidex.BlockImage, Mime: b.MimeType, Data: b.Data, Size: decodedSize(b.Data)})
		case schema.BlockToolCall:
			out = append(out, toolCall(b.Name, b.Arguments))
		default:
			out = append(out, pidex.Block{Kind: pidex.BlockOther, Name: b.Type, Text: string(raw)})
		}
	}
	return out
}

// toolCall is a call with its arguments (an object, else its JSON in Text).
func toolCall(name string, args json.RawMessage) pidex.Block {
	b := pidex.Block{Kind: pidex.BlockToolCall, Name: name}
	members, ok := js.ParseObject(args)
	if !ok {
		if t := strings.TrimSpace(string(args)); t != "" {
			b.Text = js.Compact(args)
		}
		return b
	}
	b.Args = argsOf(members)
	return b
}

func argsOf(members js.Object) []pidex.Arg {
	out := make([]pidex.Arg, len(members))
	for i, m := range members {
		s, isStr := js.StringValue(m.Val)
		out[i] = pidex.Arg{Key: m.Key, JSON: js.Compact(m.Val), Str: s, IsStr: isStr}
	}
	return out
}

// system is a system message: its content, named sections and the tools
// it adds.
func system(raw json.RawMessage) pidex.Block {
	var s struct {
		Content    schema.Content          `json:"content"`
		Sections   json.RawMessage         `json:"sections"`
		ToolsAdded []struct{ Name string } `json:"toolsAdded"`
	}
	_ = json.Unmarshal(raw, &s)
	sections, _ := js.ParseObject(s.Sections)
	b := pidex.Block{Kind: pidex.BlockSystem, Text: pi.JoinedText(s.Content), Args: argsOf(sections)}
	for _, t := range s.ToolsAdded {
		b.Tools = append(b.Tools, t.Name)
	}
	return b
}

// decodedSize is the size of base64 data once decoded.
func decodedSize(data string) int64 {
	n := len(data) / 4 * 3
	if rem := len(data) % 4; rem > 1 {
		n += rem - 1
	}
	n -= strings.Count(data[max(0, len(data)-2):], "=")
	return int64(max(n, 0))
}
