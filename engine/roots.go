package engine

import (
	"context"
	"fmt"
	"os"
	"slices"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/indexer"
)

// RootInfo lists the roots the engine reads, with their source and why
// (`pidex roots`), and what it found but does not read (omp's gzipped
// archive).
func (e *Engine) RootInfo() []pidex.Root {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := append([]pidex.Root(nil), e.rootInfo...)
	for i := range out {
		out[i].Found = isDir(out[i].Path)
	}
	return out
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// findRoots is the roots of the options (--sessions: a source each, named
// or told by its layout) or, without any, the agents' own: pi's for the
// working directory and for the working directory of every session the
// catalog holds (a project's .pi/settings.json may name its own folder),
// oh-my-pi's profiles and OpenClaw's agents.
func (e *Engine) findRoots(ctx context.Context) ([]pidex.Root, error) {
	if !e.auto {
		return namedRoots(e.opts.Roots)
	}
	var cwds []string
	if err := e.db.SelectContext(ctx, &cwds, `SELECT DISTINCT cwd FROM sessions WHERE cwd != '' ORDER BY cwd`); err != nil {
		return nil, fmt.Errorf("find roots: %w", err)
	}
	return indexer.FindRoots(indexer.SystemEnv(), cwds), nil
}

// namedRoots are the roots named by the options (--sessions).
func namedRoots(specs []string) ([]pidex.Root, error) {
	var out []pidex.Root
	for _, spec := range specs {
		abs, src, err := indexer.ResolveRoot(spec)
		if err != nil {
			return nil, err
		}
		why := "--sessions"
		if _, named := indexer.ParseRoot(spec); named == "" {
			why += " (" + src + " by its layout)"
		}
		out = append(out, pidex.Root{Path: abs, Source: src, Why: why, Read: true})
	}
	return out, nil
}

// readRoots are the paths and indexer specs of the roots that are read.
func readRoots(info []pidex.Root) (roots, specs []string) {
	for _, r := range info {
		if r.Read {
			roots = append(roots, r.Path)
			specs = append(specs, indexer.RootSpec(r))
		}
	}
	return roots, specs
}

// listEarly starts listing the session folders before the catalog opens
// (Options.RefreshFirst), when the roots can be found without it: the
// named ones (returned, for Open to take: telling a folder's agent by its
// layout reads it), or the agents' own for the working directory alone.
// The catalog's sessions may add roots of their own (a project's
// settings); then the listing is of other roots than the refresh's and
// goes unused.
func listEarly(opts Options) (*indexer.Listing, []pidex.Root) {
	if !opts.RefreshFirst || opts.Catalog != "" {
		return nil, nil
	}
	var info, named []pidex.Root
	if len(opts.Roots) == 0 {
		info = indexer.FindRoots(indexer.SystemEnv(), nil)
	} else {
		var err error
		if info, err = namedRoots(opts.Roots); err != nil {
			return nil, nil // Open says why
		}
		named = info
	}
	_, specs := readRoots(info)
	return indexer.StartListing(specs), named
}

// setRoots makes info the engine's roots.
func (e *Engine) setRoots(info []pidex.Root) {
	roots, specs := readRoots(info)
	e.mu.Lock()
	e.rootInfo, e.roots, e.specs = info, roots, specs
	e.mu.Unlock()
	if e.Reader != nil {
		e.Reader.SetRoots(roots)
	}
}

// followProjects: after a refresh that found new sessions, the roots are
// found again (their working directories may have project settings that
// name folders of their own), and a new root is refreshed at once. Only
// for the agents' own roots, and a few rounds at most.
func (e *Engine) followProjects(ctx context.Context, st *pidex.IndexStats) (*pidex.IndexStats, error) {
	for round := 0; e.auto && st.New > 0 && round < 3; round++ {
		info, err := e.findRoots(ctx)
		if err != nil {
			return st, err
		}
		old := e.Roots()
		e.setRoots(info)
		if slices.Equal(old, e.Roots()) {
			break
		}
		more, err := e.indexer(e.db).Refresh(ctx)
		if err != nil {
			return st, fmt.Errorf("refresh catalog: %w", err)
		}
		st = merged(st, more)
	}
	return st, nil
}

// merged is what two refreshes in a row did, the second over every root.
func merged(a, b *pidex.IndexStats) *pidex.IndexStats {
	out := *b
	out.New, out.Appended, out.Rewritten, out.Removed = a.New+b.New, a.Appended+b.Appended, a.Rewritten+b.Rewritten, a.Removed+b.Removed
	out.Unchanged = max(0, b.Unchanged-a.New-a.Appended-a.Rewritten)
	out.Entries, out.Bytes = a.Entries+b.Entries, a.Bytes+b.Bytes
	out.Wrote = a.Wrote || b.Wrote
	out.NotSessions = append(append([]string{}, a.NotSessions...), b.NotSessions...)
	out.Warnings = append(append([]pidex.Warning{}, a.Warnings...), b.Warnings...)
	out.Errors = append([]string{}, a.Errors...)
	for _, e := range b.Errors {
		if !slices.Contains(out.Errors, e) {
			out.Errors = append(out.Errors, e)
		}
	}
	return &out
}
