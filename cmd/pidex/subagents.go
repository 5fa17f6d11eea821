package main

import (
	"context"
	"fmt"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/render"
	"github.com/pidex-dev/pidex/internal/text"
	"github.com/pidex-dev/pidex/internal/view"
)

// spawn is what show and tree say of a session's place among subagents:
// which session started it, and the subagents it started, each with the
// handle that opens it.
func spawn(ctx context.Context, eng pidex.Catalog, ref pidex.SessionRef) (render.Spawn, error) {
	info, err := eng.Info(ctx, ref)
	if err != nil {
		return render.Spawn{}, err
	}
	subs, err := eng.Subagents(ctx, ref)
	if err != nil || len(subs) == 0 {
		return render.Spawn{SpawnedBy: info.SpawnedBy, Run: info.Run}, err
	}
	refs := make([]pidex.SessionRef, len(subs))
	for i := range subs {
		refs[i] = subs[i].Ref()
	}
	handles, err := eng.Handles(ctx, refs, true)
	return render.Spawn{SpawnedBy: info.SpawnedBy, Run: info.Run, Subagents: subs, Handles: handles}, err
}

// spawnNote says on stderr that the session is a subagent, or started
// some, and how to open them: a tree shows one file's entries only.
func (a *app) spawnNote(sp render.Spawn) {
	if sp.SpawnedBy != "" {
		fmt.Fprintf(a.stderr, "pidex: a subagent (%s) started by %s\n", view.RunLabel(sp.Run), sp.SpawnedBy)
	}
	if n := len(sp.Subagents); n > 0 {
		fmt.Fprintf(a.stderr, "pidex: this session started %d %s, not in this tree: %s ('pidex tree ID' shows one)\n",
			n, text.Plural(n, "subagent", "subagents"), sp.SubagentList())
	}
}
