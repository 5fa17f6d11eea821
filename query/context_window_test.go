package query_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/view"
	"github.com/pidex-dev/pidex/query"
	"github.com/pidex-dev/pidex/sqlite"
)

// A context read for a window equals pi's whole context on the entries it
// shows, and on every entry's place in it (in context, compacted, edited,
// label), whatever was cut outside the window.
func TestContextWindowMatchesContext(t *testing.T) {
	db := corpus(t)
	ctx := context.Background()
	refs := sessionRefs(t, db)
	for _, ref := range refs {
		whole, err := exactContext(ctx, db, ref, "")
		if err != nil {
			continue // sessions pi cannot rebuild are another test's business
		}
		n := len(whole.Path)
		for _, w := range [][2]int{{0, n}, {0, n / 2}, {n / 2, n}, {n / 3, 2 * n / 3}} {
			if w[1] == w[0] {
				continue // an empty window is no window
			}
			sc, from, to, err := newReader(db, nil).Rebuild(ctx, ref, query.ContextSpec{Window: pidex.Window{From: w[0], Size: w[1] - w[0]}})
			if err != nil {
				t.Fatalf("%s: %v", ref.Path, err)
			}
			if from != w[0] || to != w[1] || len(sc.Path) != n {
				t.Fatalf("%s: window %d..%d of %d, want %v of %d", ref.Path, from, to, len(sc.Path), w, n)
			}
			for i := range sc.Path {
				g, x := sc.Path[i], whole.Path[i]
				if g.ID != x.ID || g.InContext != x.InContext || g.Compacted != x.Compacted || g.EditedBy != x.EditedBy || g.Label != x.Label {
					t.Errorf("%s entry %d: place %+v, want %+v", ref.Path, i, g.ID, x.ID)
				}
				if i >= from && i < to {
					gj, _ := json.Marshal(g)
					xj, _ := json.Marshal(x)
					if string(gj) != string(xj) || string(g.Raw) != string(x.Raw) {
						t.Errorf("%s entry %d in the window differs from pi's", ref.Path, i)
					}
				}
			}
			if len(sc.Messages) != len(whole.Messages) || len(sc.Entries) != len(whole.Entries) {
				t.Errorf("%s: window %v: %d messages from %d entries, want %d from %d", ref.Path, w, len(sc.Messages), len(sc.Entries), len(whole.Messages), len(whole.Entries))
			}
			if sc.Model.String() != whole.Model.String() || sc.Level() != whole.Level() {
				t.Errorf("%s: model %v %q, want %v %q", ref.Path, sc.Model, sc.Level(), whole.Model, whole.Level())
			}
		}
	}
}

// A model-context page read for a window of its messages shows what the
// same page of the whole context shows: the same messages, from the same
// entries, at the same positions of the same count, whichever entries
// outside were made from their rows or cut.
func TestContextMessageWindowMatchesContext(t *testing.T) {
	db := corpus(t)
	ctx := context.Background()
	refs := sessionRefs(t, db)
	cuts := query.ContextSpec{MaxLine: pidex.ReadCutLine, MaxString: pidex.ReadCutString}
	checked := 0
	for _, ref := range refs {
		whole, _, _, err := newReader(db, nil).Rebuild(ctx, ref, cuts)
		if err != nil {
			continue // sessions pi cannot rebuild are another test's business
		}
		n := len(whole.Messages)
		windows := []pidex.Window{{From: -1, Size: 3}, {From: 0, Size: max(1, n/2)}, {From: n / 3, Size: max(1, n/3)}}
		for _, ce := range whole.Entries { // a window around an entry's first message, as a search hit opens it
			if len(ce.Messages) > 0 && ce.Index > len(whole.Path)/2 {
				windows = append(windows, pidex.Window{From: -1, Around: whole.Path[ce.Index].ID, Size: 4})
				break
			}
		}
		for _, w := range windows {
			spec := cuts
			spec.Messages = w
			sc, _, _, err := newReader(db, nil).Rebuild(ctx, ref, spec)
			if err != nil {
				t.Fatalf("%s: window %+v: %v", ref.Path, w, err)
			}
			got, _ := json.Marshal(view.ContextDocument(ref, pidex.Session{}, sc, w))
			want, _ := json.Marshal(view.ContextDocument(ref, pidex.Session{}, whole, w))
			if string(got) != string(want) {
				t.Errorf("%s: window %+v:\n got %s\nwant %s", ref.Path, w, got, want)
			}
			checked++
		}
	}
	if checked == 0 {
		t.Fatal("no session checked")
	}
}

// sessionRefs names every session of the catalog.
func sessionRefs(t *testing.T, db *sqlite.DB) []pidex.SessionRef {
	t.Helper()
	var refs []pidex.SessionRef
	if err := db.Select(&refs, `SELECT s.file_id, f.path, s.session_id, COALESCE(s.name, '') AS name
		FROM sessions s JOIN files f ON f.id = s.file_id`); err != nil {
		t.Fatal(err)
	}
	return refs
}
