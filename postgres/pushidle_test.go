package postgres

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// A request body that stops sending is cut after the idle time, however
// long the request has run; one that keeps sending, slowly, is read
// whole.
func TestIdleBodyCutsAStalledClient(t *testing.T) {
	const idle = 300 * time.Millisecond
	got := make(chan string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(idleBody(w, r.Body, idle))
		if err != nil {
			got <- "error after " + string(b)
			return
		}
		got <- "read " + string(b)
	}))
	defer srv.Close()
	send := func(parts []string, pause time.Duration) string {
		pr, pw := io.Pipe()
		go func() {
			for _, p := range parts {
				if _, err := pw.Write([]byte(p)); err != nil {
					return
				}
				time.Sleep(pause)
			}
			pw.Close()
		}()
		req, err := http.NewRequest("POST", srv.URL, pr)
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			if resp, err := http.DefaultClient.Do(req); err == nil {
				resp.Body.Close()
			}
		}()
		select {
		case s := <-got:
			pw.CloseWithError(io.ErrClosedPipe)
			return s
		case <-time.After(10 * time.Second):
			t.Fatal("the server still waits for the body")
			return ""
		}
	}
	// Slow but steady: five parts 150 ms apart (750 ms in all).
	if s := send(strings.Split("a,b,c,d,e", ","), idle/2); s != "read abcde" {
		t.Errorf("a slow body: %s", s)
	}
	// Two parts, then nothing for ten times the idle time.
	start := time.Now()
	if s := send([]string{"x", "y"}, 10*idle); !strings.HasPrefix(s, "error after x") {
		t.Errorf("a stalled body: %s", s)
	}
	if d := time.Since(start); d > 6*idle {
		t.Errorf("a stalled body was cut after %v (idle %v)", d, idle)
	}
}
