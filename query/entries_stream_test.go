package query_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/sqlite"
)

// TestEntryObjectsStream checks that show --json written as a stream (the
// annotations from a reading of every line cut, then each line read
// whole) is, entry for entry, what the context rebuilt from every line
// read whole says: on every session of the golden sets, oh-my-pi's too,
// and at every leaf of the branchy ones.
func TestEntryObjectsStream(t *testing.T) {
	ctx := context.Background()
	check := func(t *testing.T, db *sqlite.DB, ref pidex.SessionRef, leaf string) {
		t.Helper()
		sc, err := exactContext(ctx, db, ref, leaf)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		err = newReader(db, nil).EntryObjects(ctx, ref, leaf, func(got json.RawMessage) error {
			if n >= len(sc.Path) {
				t.Fatalf("%s at %q: more than %d entries", ref.Path, leaf, len(sc.Path))
			}
			want, err := sc.Path[n].MarshalJSON()
			if err != nil {
				return err
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s at %q, entry %d:\n got %s\nwant %s", ref.Path, leaf, n, got, want)
			}
			n++
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if n != len(sc.Path) {
			t.Errorf("%s at %q: %d entries, want %d", ref.Path, leaf, n, len(sc.Path))
		}
	}
	sessions := func(t *testing.T, db *sqlite.DB) {
		rd := newReader(db, nil)
		ss, err := rd.List(ctx, pidex.ListOptions{Subagents: true})
		if err != nil || len(ss) == 0 {
			t.Fatalf("%d sessions: %v", len(ss), err)
		}
		for _, s := range ss {
			ref, err := rd.Resolve(ctx, s.Path, "")
			if err != nil {
				t.Fatal(err)
			}
			check(t, db, ref, "")
			path, err := rd.Path(ctx, ref, "")
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i < len(path) && i < 40; i += 3 { // earlier leaves: other annotations
				check(t, db, ref, path[i].ID)
			}
		}
	}
	for _, set := range goldenSets {
		t.Run(set.name, func(t *testing.T) { sessions(t, corpusOf(t, set)) })
	}
	t.Run("omp", func(t *testing.T) {
		db, _ := ompCorpus(t)
		sessions(t, db)
	})
}
