package view

import (
	"strings"

	"github.com/pidex-dev/pidex"
)

// Listed is a session as a listing shows it: Depth 0 for a session of
// the listing, 1 for a subagent beneath it, 2 for that one's, ….
type Listed struct {
	*pidex.Session
	Depth int
}

// Flatten is a listing's sessions in the order a table shows them: each
// session, then the subagents it started beneath it (theirs beneath
// them), from depth.
func Flatten(ss []pidex.Session, depth int) []Listed {
	var out []Listed
	var add func(ss []pidex.Session, depth int)
	add = func(ss []pidex.Session, depth int) {
		for i := range ss {
			out = append(out, Listed{&ss[i], depth})
			add(ss[i].Subagents, depth+1)
		}
	}
	add(ss, depth)
	return out
}

// RunLabel is a subagent's run as a listing shows it: oh-my-pi's task id
// whole, pi-subagents' "<run id>/run-<i>" with the run id (a UUID) cut to
// its first 8 characters, as session ids are.
func RunLabel(run string) string {
	if id, i, ok := strings.Cut(run, "/"); ok && len(id) > 8 {
		return id[:8] + "/" + i
	}
	return run
}
