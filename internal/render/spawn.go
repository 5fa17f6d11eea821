package render

import (
	"strings"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/view"
)

// Spawn is a session's place among subagents, as show and tree say it.
type Spawn struct {
	SpawnedBy, Run string // the session that started this one, and its run
	// Subagents are the sessions it started; Handles open them, in order.
	Subagents []pidex.Session
	Handles   []string
}

// SubagentList names each subagent by its handle and run:
// "01a11c68 (Scout), 01a11c6a (Docs)".
func (s Spawn) SubagentList() string {
	parts := make([]string, len(s.Subagents))
	for i := range s.Subagents {
		parts[i] = handleOf(s.Handles, i, s.Subagents[i].ID) + " (" + view.RunLabel(s.Subagents[i].Run) + ")"
	}
	return strings.Join(parts, ", ")
}
