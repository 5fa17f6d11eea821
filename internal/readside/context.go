package readside

import (
	"context"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/pi"
)

// ContextSpec says how to read the branch a context is rebuilt from.
type ContextSpec struct {
	// Leaf ends the branch ("": pi's leaf, the last entry of the file).
	Leaf string
	// MaxLine: a line longer than this many bytes is read as a stream and
	// kept cut (its strings keep MaxString bytes), so that memory does not
	// grow with the longest line of the session; 0 reads every line whole,
	// as pi does (an exact context, fit for a model or JSON).
	MaxLine   int64
	MaxString int
	// Window: only these entries of the branch are read as above; the
	// others are cut above SkeletonLine bytes, since the rebuild needs
	// their kinds, ids and links, not their text (a 50 MB session's
	// context took a second to decode whole). The zero Window reads every
	// entry as above.
	Window pidex.Window
}

// SkeletonLine: Context cuts the entries outside the window above this
// size (as previews do).
const SkeletonLine = PreviewCutLine

// Facts are what a context rebuild needs of a session besides its lines.
type Facts struct {
	Version int    // the file's format version
	Source  string // the agent that wrote it (pidex.SourceOmp rebuilds its own way)
	// FirstKept maps the offsets of a v1 file's compactions (which name
	// their first kept entry by index) to the id the indexer resolved it
	// to; v2 and later name it by id themselves.
	FirstKept map[int64]string
	Labels    []pidex.Label // the current labels
	// Blobs reads an oh-my-pi image blob by its hash (nil: none can be
	// read, as on a machine that does not hold them).
	Blobs func(hash string) ([]byte, bool)
}

// ContextSource is what a backend gives a context rebuild.
type ContextSource interface {
	Lines
	// Path is the root-to-leaf path (see Cut).
	Path(ctx context.Context, fileID int64, leaf string) ([]pidex.Entry, error)
	// Facts are the session's facts for the rebuild.
	Facts(ctx context.Context, fileID int64) (Facts, error)
}

// Context rebuilds the model context of one session at spec.Leaf the way
// pi's buildSessionContext does: it walks the branch (Path, cycle-safe),
// reads each entry's line, and hands them to pi.BuildContext. from and to
// are the entries of the branch the window read as asked (all of them
// without a window): only they are fit to show, and with a window or a
// MaxLine the messages are for reading, not pi's.
//
// Deviations from pi, where pi has no answer: an unknown leaf is
// pidex.ErrNotFound (pi silently falls back to the last entry); a parent
// cycle yields the path up to the cycle (pi hangs); see pi.BuildContext
// for the rest.
func Context(ctx context.Context, src ContextSource, ref pidex.SessionRef, spec ContextSpec) (sc *pi.SessionContext, from, to int, err error) {
	rows, err := src.Path(ctx, ref.FileID, spec.Leaf)
	if err != nil {
		return nil, 0, 0, err
	}
	target := -1
	for i := range rows {
		if rows[i].ID == spec.Window.Around {
			target = i
		}
	}
	from, to = spec.Window.Span(len(rows), target)
	var entries []pi.Entry
	for _, part := range []struct {
		rows      []pidex.Entry
		maxLine   int64
		maxString int
	}{{rows[:from], SkeletonLine, PreviewCutString}, {rows[from:to], spec.MaxLine, spec.MaxString}, {rows[to:], SkeletonLine, PreviewCutString}} {
		if len(part.rows) == 0 {
			continue
		}
		es, err := src.Lines(ctx, ref, part.rows, part.maxLine, part.maxString)
		if err != nil {
			return nil, 0, 0, err
		}
		entries = append(entries, es...)
	}
	facts, err := src.Facts(ctx, ref.FileID)
	if err != nil {
		return nil, 0, 0, err
	}
	if facts.Source == pidex.SourceOmp { // oh-my-pi rebuilds it its own way
		sc, err = pi.BuildOmpContext(entries, facts.Blobs)
	} else {
		sc, err = pi.BuildContext(entries, facts.Version, facts.FirstKept)
	}
	if err != nil {
		return nil, 0, 0, err
	}
	byTarget := make(map[string]string, len(facts.Labels))
	for _, l := range facts.Labels {
		byTarget[l.TargetID] = l.Label
	}
	for i := range sc.Path {
		sc.Path[i].Label = byTarget[sc.Path[i].ID]
	}
	return sc, from, to, nil
}

// Cut turns a walk from the leaf up (as a recursive query returns it,
// leaf first) into the path, root first, cut at the first repeated entry:
// past it the walk is a parent cycle again.
func Cut(up []pidex.Entry) []pidex.Entry {
	seen := make(map[int64]bool, len(up))
	n := 0
	for ; n < len(up) && !seen[up[n].Offset]; n++ {
		seen[up[n].Offset] = true
	}
	up = up[:n]
	for i, j := 0, len(up)-1; i < j; i, j = i+1, j-1 {
		up[i], up[j] = up[j], up[i]
	}
	return up
}
