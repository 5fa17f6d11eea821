package query

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/pi"
	"github.com/pidex-dev/pidex/schema"
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
	// others are cut above skeletonLine bytes, since the rebuild needs
	// their kinds, ids and links, not their text (a 50 MB session's
	// context took a second to decode whole). The zero Window reads every
	// entry as above.
	Window pidex.Window
	// Messages: only the entries whose messages fall in this window of the
	// context's messages (and the context edits applied to them) are read
	// as above, the others as outside a Window; with Window zero. The zero
	// Messages reads every entry as above. Not for oh-my-pi's files.
	Messages pidex.Window
}

// skeletonLine: a rebuild cuts the entries outside the window above this
// size (as previews do).
const skeletonLine = pi.PreviewCutLine

// sessionFacts are what a context rebuild needs of a session besides its lines.
type sessionFacts struct {
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
func (rd *Reader) rebuild(ctx context.Context, ref pidex.SessionRef, spec ContextSpec) (sc *pi.SessionContext, from, to int, err error) {
	src := rd.backend()
	rows, err := rd.path(ctx, ref.FileID, spec.Leaf)
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
	facts, err := rd.facts(ctx, ref)
	if err != nil {
		return nil, 0, 0, err
	}
	messages := spec.Messages.Size > 0 && facts.Source != pidex.SourceOmp
	shown := func(i int) bool { return i >= from && i < to }
	if messages {
		shown = func(int) bool { return false } // known once the context says
	}
	entries, err := readEntries(ctx, src, ref, rows, shown, skeletonsOf(rows, shown, facts.Source), spec)
	if err != nil {
		return nil, 0, 0, err
	}
	if sc, err = contextOf(entries, facts); err != nil || !messages {
		return sc, from, to, err
	}
	// The context made with every entry outside has the whole's messages
	// by count: it says which entries the messages shown come from. Only
	// those are read again, as spec says; the others are as they were read.
	shown = messageEntries(sc, spec.Messages)
	if err := readShown(ctx, src, ref, rows, entries, shown, spec); err != nil {
		return nil, 0, 0, err
	}
	sc, err = contextOf(entries, facts)
	return sc, from, to, err
}

// pathItem is one whole entry of the path as the context holds it.
func (f sessionFacts) pathItem(e pi.Entry) (pi.PathItem, error) {
	if f.Source == pidex.SourceOmp {
		return pi.NewOmpPathItem(e, f.Blobs)
	}
	return pi.NewPathItem(e, f.Version, f.FirstKept)
}

// contextOf makes the context of the path's entries, with their labels.
func contextOf(entries []pi.Entry, facts sessionFacts) (*pi.SessionContext, error) {
	var sc *pi.SessionContext
	var err error
	if facts.Source == pidex.SourceOmp { // oh-my-pi rebuilds it its own way
		sc, err = pi.BuildOmpContext(entries, facts.Blobs)
	} else {
		sc, err = pi.BuildContext(entries, facts.Version, facts.FirstKept)
	}
	if err != nil {
		return nil, err
	}
	byTarget := make(map[string]string, len(facts.Labels))
	for _, l := range facts.Labels {
		byTarget[l.TargetID] = l.Label
	}
	for i := range sc.Path {
		sc.Path[i].Label = byTarget[sc.Path[i].ID]
	}
	return sc, nil
}

// readShown reads the shown entries' lines again, as spec says, in place
// of what entries holds of them.
func readShown(ctx context.Context, src Backend, ref pidex.SessionRef, rows []pidex.Entry, entries []pi.Entry, shown func(int) bool, spec ContextSpec) error {
	var at []int
	var rs []pidex.Entry
	for i := range rows {
		if shown(i) {
			at, rs = append(at, i), append(rs, rows[i])
		}
	}
	es, err := readRows(ctx, src, ref, rs, spec.MaxLine, spec.MaxString)
	if err != nil {
		return err
	}
	for k, i := range at {
		entries[i] = es[k]
	}
	return nil
}

// messageEntries is the set of the path's entries whose messages fall in
// the window w of the context's messages (w.Around: the first message of
// that entry, as view.ContextDocument finds it), with the context edits
// applied to them.
func messageEntries(sc *pi.SessionContext, w pidex.Window) func(int) bool {
	n, target := 0, -1
	for _, ce := range sc.Entries {
		if len(ce.Messages) > 0 && target < 0 && sc.Path[ce.Index].ID == w.Around {
			target = n
		}
		n += len(ce.Messages)
	}
	from, to := w.Span(n, target)
	byID := make(map[string]int, len(sc.Path))
	for i := range sc.Path {
		byID[sc.Path[i].ID] = i
	}
	set := map[int]bool{}
	k := 0
	for _, ce := range sc.Entries {
		if k < to && k+len(ce.Messages) > from {
			set[ce.Index] = true
			if j, ok := byID[sc.Path[ce.Index].EditedBy]; ok {
				set[j] = true
			}
		}
		k += len(ce.Messages)
	}
	return func(i int) bool { return set[i] }
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

// skeletonsOf says which entries of the path, not shown, the rebuild
// can take from their catalog rows instead of
// their lines: the messages whose content only counts as one message.
// Their lines are most of a long session's bytes (a 50 MB session's first
// view spent two thirds of its time reading them cut), and what the
// rebuild reads of them is their kind, ids and role: a user or tool
// result message is in the context whatever its content, and an
// assistant message sets the model, which only the last one on the path
// decides (it is read). Not for oh-my-pi, which rebuilds its own way, nor
// an entry whose id pidex made up (its line has none: "@offset").
func skeletonsOf(rows []pidex.Entry, shown func(int) bool, source string) func(i int) bool {
	if source == pidex.SourceOmp {
		return func(int) bool { return false }
	}
	last := -1
	for i := range rows {
		if rows[i].Type == schema.TypeMessage && rows[i].Role == schema.RoleAssistant {
			last = i
		}
	}
	return func(i int) bool {
		r := &rows[i]
		if shown(i) || i == last || r.Type != schema.TypeMessage || strings.HasPrefix(r.ID, "@") {
			return false
		}
		switch r.Role {
		case schema.RoleUser, schema.RoleToolResult, schema.RoleAssistant:
			return true
		}
		return false
	}
}

// readEntries reads the path's entries: a shown one as spec says, the
// others cut above skeletonLine bytes, or made from their rows (skeleton).
func readEntries(ctx context.Context, src Backend, ref pidex.SessionRef, rows []pidex.Entry, shown, skeleton func(int) bool, spec ContextSpec) ([]pi.Entry, error) {
	var whole, cut []pidex.Entry
	for i := range rows {
		switch {
		case shown(i):
			whole = append(whole, rows[i])
		case !skeleton(i):
			cut = append(cut, rows[i])
		}
	}
	w, err := readRows(ctx, src, ref, whole, spec.MaxLine, spec.MaxString)
	if err != nil {
		return nil, err
	}
	c, err := readRows(ctx, src, ref, cut, skeletonLine, pi.PreviewCutString)
	if err != nil {
		return nil, err
	}
	out := make([]pi.Entry, 0, len(rows))
	for i := range rows {
		switch {
		case shown(i):
			out, w = append(out, w[0]), w[1:]
		case !skeleton(i):
			out, c = append(out, c[0]), c[1:]
		default:
			e, err := skeletonEntry(rows[i])
			if err != nil {
				return nil, err
			}
			out = append(out, e)
		}
	}
	return out, nil
}

// readRows reads the lines of rs, cut as maxLine and maxString say;
// nothing when rs is empty.
func readRows(ctx context.Context, src Backend, ref pidex.SessionRef, rs []pidex.Entry, maxLine int64, maxString int) ([]pi.Entry, error) {
	if len(rs) == 0 {
		return nil, nil
	}
	return src.Lines(ctx, ref, rs, maxLine, maxString)
}

// skeletonEntry is a message entry made from its catalog row: its type,
// ids, time and its message's role, as cut as a line can be. It is not
// decoded (Decoded nil): only a shown entry's is used, and it lies
// outside the window.
func skeletonEntry(r pidex.Entry) (pi.Entry, error) {
	type message struct {
		Role string `json:"role"`
	}
	raw, err := json.Marshal(struct {
		Type      string  `json:"type"`
		ID        string  `json:"id"`
		ParentID  *string `json:"parentId"`
		Timestamp string  `json:"timestamp"`
		Message   message `json:"message"`
	}{r.Type, r.ID, r.ParentID, r.Timestamp, message{r.Role}})
	if err != nil {
		return pi.Entry{}, fmt.Errorf("make entry %s: %w", r.ID, err)
	}
	return pi.Entry{Entry: r, Raw: raw, Cut: true}, nil
}

// facts reads what a context rebuild needs of a session besides its
// lines: its format version and agent, a v1 file's compactions, its
// labels, and the blobs the catalog keeps.
func (rd *Reader) facts(ctx context.Context, ref pidex.SessionRef) (sessionFacts, error) {
	var s struct {
		Version int    `db:"version"`
		Source  string `db:"source"`
	}
	b := rd.backend()
	db := b.Rows()
	if err := db.GetContext(ctx, &s, db.Rebind("SELECT version, source FROM sessions s WHERE "+b.Dialect().FileIs("s")), ref.FileID); err != nil {
		return sessionFacts{}, sessionError(ref.FileID, err)
	}
	firstKept := map[int64]string{}
	if s.Version < 2 {
		// v1 compactions name their first kept entry by index: the id the
		// indexer resolved it to when it ingested the file. v2 and later
		// name it by id themselves.
		rows, err := db.QueryContext(ctx, db.Rebind(`SELECT "offset", first_kept FROM entries e WHERE `+b.Dialect().FileIs("e")+` AND first_kept IS NOT NULL`), ref.FileID)
		if err != nil {
			return sessionFacts{}, fmt.Errorf("load compactions: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			var off int64
			var id string
			if err := rows.Scan(&off, &id); err != nil {
				return sessionFacts{}, fmt.Errorf("load compactions: %w", err)
			}
			firstKept[off] = id
		}
		if err := rows.Err(); err != nil {
			return sessionFacts{}, fmt.Errorf("load compactions: %w", err)
		}
	}
	labels, err := rd.labels(ctx, ref.FileID)
	if err != nil {
		return sessionFacts{}, err
	}
	return sessionFacts{Version: s.Version, Source: s.Source, FirstKept: firstKept, Labels: labels, Blobs: b.Kept(ref).Blob}, nil
}
