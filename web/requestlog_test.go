package web

import (
	"strings"
	"sync"
	"testing"
	"time"
)

// logLines collects a server's log.
type logLines struct {
	mu    sync.Mutex
	lines []string
}

func (l *logLines) add(msg string) { l.mu.Lock(); l.lines = append(l.lines, msg); l.mu.Unlock() }

func (l *logLines) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.lines
	l.lines = nil
	return out
}

// The request log: a line for each failed or slow request (every one with
// LogRequests), without the token's value; an internal error's cause is
// logged and the browser is told only that it happened.
func TestRequestLog(t *testing.T) {
	var log logLines
	f := newFixture(t, Options{Log: log.add})
	tests := []struct {
		path string
		want string // the line logged; "" for none
	}{
		{"/", ""},
		{"/api/sessions", ""},
		{"/nosuch", "GET /nosuch 404 "},
		{"/api/sessions?limit=-1", "GET /api/sessions?limit=-1 400 "},
		{"/s/nosuch", "GET /s/nosuch 404 "},
	}
	for _, tt := range tests {
		f.get(t, tt.path)
		lines := log.take()
		switch {
		case tt.want == "" && len(lines) > 0:
			t.Errorf("%s: logged %q", tt.path, lines)
		case tt.want != "" && (len(lines) != 1 || !strings.HasPrefix(lines[0], tt.want)):
			t.Errorf("%s: logged %q, want one line %q…", tt.path, lines, tt.want)
		}
	}

	// An internal error: the catalog closed under the server (a file that
	// went away or changed is a 404 or 409, not the server's fault).
	if err := f.eng.Close(); err != nil {
		t.Fatal(err)
	}
	code, _, body := f.get(t, "/s/"+evilID)
	lines := log.take()
	if code != 500 || strings.Contains(body, "evil.jsonl") || strings.Contains(body, "closed") || !strings.Contains(body, "internal error") {
		t.Errorf("the browser got %d: %.300s", code, body)
	}
	if len(lines) != 2 || !strings.Contains(lines[0], "closed") || !strings.HasPrefix(lines[1], "GET /s/"+evilID+" 500 ") {
		t.Errorf("logged %q, want the cause, then the request", lines)
	}
}

// With LogRequests every request is logged; a token's value never is; a
// slow request says so (here every request is slow: a nanosecond is the
// limit).
func TestRequestLogAllAndSlow(t *testing.T) {
	var log logLines
	f := newFixture(t, Options{Log: log.add, LogRequests: true, Token: "sekret", SlowRequest: time.Nanosecond})
	f.get(t, "/?token=sekret")
	lines := log.take()
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "GET /?token=%E2%80%A6 200 ") || strings.Contains(lines[0], "sekret") || !strings.HasSuffix(lines[0], " (slow)") {
		t.Errorf("logged %q", lines)
	}
}
