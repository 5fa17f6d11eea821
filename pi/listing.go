package pi

import (
	"encoding/json"
	"strings"

	"github.com/pidex-dev/pidex/internal/js"
	"github.com/pidex-dev/pidex/schema"
)

// pi's session listing rules (SessionManager's buildSessionInfo) and the
// readings of the format's fields that pi applies everywhere.

// IsHeader reports whether a line is a session header with a string id,
// the test pi applies to a file's first parsed line.
func IsHeader(l *schema.Line) bool { return l.Type == schema.TypeSession && l.ID != nil }

// CountsForActivity reports whether a message entry counts for the
// session's modified time: user and assistant messages whose content key is
// present (even as null).
func CountsForActivity(m *schema.Message) bool {
	role := RoleName(m)
	return len(m.Content) > 0 && (role == schema.RoleUser || role == schema.RoleAssistant)
}

// FirstMessageText is the text a message offers as the session's first
// message: a user message's text blocks joined by a space ("" for any
// other message, or none).
func FirstMessageText(m *schema.Message) string {
	if !CountsForActivity(m) || RoleName(m) != schema.RoleUser {
		return ""
	}
	return JoinedText(m.Content)
}

// JoinedText is content's text the way pi's session listing reads it: the
// string itself, or the text blocks joined by a single space (thinking,
// tool calls and images are left out). Undecodable content yields "".
func JoinedText(c schema.Content) string {
	if c.IsString() {
		s, _ := js.StringValue(json.RawMessage(c))
		return s
	}
	bs, err := c.Blocks()
	if err != nil {
		return ""
	}
	parts := make([]string, 0, len(bs))
	for _, b := range bs {
		if b.Type == schema.BlockText {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, " ")
}

// TotalTokens is a usage record's total: totalTokens, else (files written
// before 2025-12-06 lack it) the sum of the parts, as pi computes it.
func TotalTokens(u schema.Usage) float64 {
	if u.TotalTokens != 0 {
		return u.TotalTokens
	}
	return u.Input + u.Output + u.CacheRead + u.CacheWrite
}

// EditEffect is what a context_edit does to its target: "omitted" (a null
// replacement) or "edited".
func EditEffect(l *schema.Line) string {
	if schema.Content(l.Replacement).IsNull() {
		return "omitted"
	}
	return "edited"
}
