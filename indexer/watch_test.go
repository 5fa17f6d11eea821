package indexer

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

// The watcher refreshes after an append and after a new project folder
// appears, and stops cleanly when its context ends.
func TestWatch(t *testing.T) {
	root := t.TempDir()
	a := filepath.Join(root, "--w-app--", "a.jsonl")
	write(t, a, header+msg("a1", "", "user", "hello", 1))
	ix := newIndexer(t, root)
	refreshed := make(chan *Stats, 16)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- ix.Watch(ctx, WatchOptions{Debounce: 20 * time.Millisecond, OnRefresh: func(st *Stats, err error) {
			if err != nil {
				t.Error(err)
			}
			refreshed <- st
		}})
	}()
	// waitFor returns the first refresh that satisfies ok, failing after a
	// generous deadline (an event that never comes is the failure here).
	waitFor := func(what string, ok func(*Stats) bool) {
		t.Helper()
		deadline := time.After(10 * time.Second)
		for {
			select {
			case st := <-refreshed:
				if ok(st) {
					return
				}
			case <-deadline:
				t.Fatalf("no refresh with %s", what)
			}
		}
	}
	waitFor("the first file", func(st *Stats) bool { return st.New == 1 })
	appendTo(t, a, msg("a2", "a1", "assistant", "hi", 2))
	waitFor("the appended line", func(st *Stats) bool { return st.Appended == 1 && st.Entries == 1 })
	write(t, filepath.Join(root, "--w-new--", "b.jsonl"), header+msg("b1", "", "user", "new", 3))
	waitFor("the new project folder", func(st *Stats) bool { return st.New == 1 })
	appendTo(t, filepath.Join(root, "--w-new--", "b.jsonl"), msg("b2", "b1", "assistant", "ok", 4))
	waitFor("an append in the new folder", func(st *Stats) bool { return st.Appended == 1 })
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Watch did not stop")
	}
	assertSameAsFresh(t, ix)
}
