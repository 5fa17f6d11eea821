package query_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/indexer"
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

// TestEntryObjectsMemory checks that show --json holds a few lines of a
// session at a time, not the session: midway through the entries of a
// generated 40 MB session (320 tool results of 128 KB), the heap holds
// far less than the session. Built whole, the path's lines alone were its
// size (and the objects made of them as much again).
func TestEntryObjectsMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 40 MB session")
	}
	ctx := context.Background()
	root := t.TempDir()
	dir := filepath.Join(root, "--home-big--")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	const n, size = 320, 128 << 10
	var b bytes.Buffer
	b.WriteString(`{"type":"session","version":3,"id":"0b160000-0000-4000-8000-000000000001","timestamp":"2026-01-02T03:04:05.000Z","cwd":"/home/big"}` + "\n")
	parent := "null"
	body := strings.Repeat("output line of a long tool result\n", size/34)
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("%08x", i+1)
		text, _ := json.Marshal(fmt.Sprintf("%d %s", i, body))
		fmt.Fprintf(&b, `{"type":"message","id":"%s","parentId":%s,"timestamp":"2026-01-02T03:04:05.000Z","message":{"role":"toolResult","toolCallId":"c%d","toolName":"bash","content":[{"type":"text","text":%s}],"isError":false,"timestamp":1767323045000}}`+"\n", id, parent, i, text)
		parent = `"` + id + `"`
	}
	file := filepath.Join(dir, "2026-01-02T03-04-05-000Z_0b160000-0000-4000-8000-000000000001.jsonl")
	if err := os.WriteFile(file, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	sessionBytes := uint64(b.Len())
	b = bytes.Buffer{}
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "c.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := (&indexer.Indexer{DB: db, Roots: []string{root}}).Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	rd := newReader(db, nil)
	ref, err := rd.Resolve(ctx, file, "")
	if err != nil {
		t.Fatal(err)
	}
	var heap uint64
	seen := 0
	err = rd.EntryObjects(ctx, ref, "", func(e json.RawMessage) error {
		if seen++; seen == n/2 {
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			heap = ms.HeapAlloc
		}
		return nil
	})
	if err != nil || seen != n {
		t.Fatalf("%d entries: %v", seen, err)
	}
	t.Logf("heap midway %d MB, session %d MB", heap>>20, sessionBytes>>20)
	if heap > sessionBytes/3 {
		t.Errorf("midway through a %d MB session, the heap holds %d MB: the entries are not streamed", sessionBytes>>20, heap>>20)
	}
}
