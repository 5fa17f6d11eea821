package web

import (
	"bufio"
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/engine"
	"github.com/pidex-dev/pidex/internal/catalogtest"
)

// A change to a session file reaches an open event stream within a
// second: the watcher refreshes and the server says "change".
func TestEventsOnChange(t *testing.T) {
	f := newFixture(t, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	watching := make(chan struct{}, 1)
	go f.eng.Watch(ctx, engine.WatchOptions{Text: true, OnRefresh: func(_ *pidex.IndexStats, _ error) {
		select {
		case watching <- struct{}{}:
		default:
		}
	}})
	<-watching // the first refresh: the watcher is up

	req, _ := http.NewRequestWithContext(ctx, "GET", f.ts.URL+"/events", nil)
	res, err := f.ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if ct := res.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(res.Body)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	if l := <-lines; !strings.HasPrefix(l, "retry:") {
		t.Fatalf("first line %q", l)
	}
	start := time.Now()
	catalogtest.AppendFile(t, filepath.Join(f.root, "--evil--", "evil.jsonl"),
		`{"type":"message","id":"u2","parentId":"l1","timestamp":"2026-10-01T10:01:00.000Z","message":{"role":"user","content":"one more","timestamp":1790848860000}}`+"\n")
	deadline := time.After(time.Second)
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatal("stream ended")
			}
			if l == "event: change" {
				t.Logf("change after %v", time.Since(start))
				_, _, body := f.get(t, "/s/"+evilID)
				if !strings.Contains(body, "one more") {
					t.Error("the page does not show the appended message")
				}
				return
			}
		case <-deadline:
			t.Fatal("no change event within a second")
		}
	}
}
