package pi

import "github.com/pidex-dev/pidex/schema"

// pi's session listing rules (SessionManager's buildSessionInfo).

// CountsForActivity reports whether a message entry counts for the
// session's modified time: user and assistant messages whose content key is
// present (even as null).
func CountsForActivity(m *schema.Message) bool {
	role := m.NormalizedRole()
	return len(m.Content) > 0 && (role == schema.RoleUser || role == schema.RoleAssistant)
}

// FirstMessageText is the text a message offers as the session's first
// message: a user message's text blocks joined by a space ("" for any
// other message, or none).
func FirstMessageText(m *schema.Message) string {
	if !CountsForActivity(m) || m.NormalizedRole() != schema.RoleUser {
		return ""
	}
	return m.Content.Text()
}

// EditEffect is what a context_edit does to its target: "omitted" (a null
// replacement) or "edited".
func EditEffect(l *schema.Line) string {
	if schema.Content(l.Replacement).IsNull() {
		return "omitted"
	}
	return "edited"
}
