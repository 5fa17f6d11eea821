package web

import (
	"net/http"
	"net/url"
	"time"

	"github.com/pidex-dev/pidex/internal/text"
)

// The request log: one line on the server's log for every request that
// failed (status 400 and up; a client that went away is not a failure)
// or was slow, and for every request with Options.LogRequests. The line
// names the method, the path and query (a token's value left out), the
// status, the time taken and the bytes sent. Internal errors also have a
// line of their own with the cause (httpError), which the browser never
// sees.

// DefaultSlowRequest is how long a request may take before it is logged
// as slow: a page renders in milliseconds; one that takes this long is
// worth knowing about.
const DefaultSlowRequest = 500 * time.Millisecond

func (s *Server) logRequests(next http.Handler) http.Handler {
	slow := s.opts.SlowRequest
	if slow == 0 {
		slow = DefaultSlowRequest
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		next.ServeHTTP(rec, r)
		took := time.Since(start)
		stream := r.URL.Path == "/events" // open as long as the page is: never slow
		failed := rec.status >= 400 && rec.status != 499
		isSlow := took >= slow && !stream
		if !failed && !isSlow && !s.opts.LogRequests {
			return
		}
		note := ""
		if isSlow {
			note = " (slow)"
		}
		s.log("%s %s %d %s %s%s", r.Method, logURL(r.URL), rec.status, took.Round(100*time.Microsecond), text.Bytes(rec.bytes), note)
	})
}

// logURL is the request's path and query with a token's value left out.
func logURL(u *url.URL) string {
	q := u.Query()
	if q.Has("token") {
		q.Set("token", "…")
	}
	if len(q) == 0 {
		return u.Path
	}
	return u.Path + "?" + q.Encode()
}

// statusRecorder notes the status and the size of an answer; it still
// streams (server-sent events flush through it).
type statusRecorder struct {
	http.ResponseWriter
	status int
	bytes  int64
	wrote  bool
}

func (r *statusRecorder) WriteHeader(code int) {
	if !r.wrote {
		r.status, r.wrote = code, true
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *statusRecorder) Write(b []byte) (int, error) {
	r.wrote = true
	n, err := r.ResponseWriter.Write(b)
	r.bytes += int64(n)
	return n, err
}

// Flush passes flushes on (the event stream needs them).
func (r *statusRecorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection.
func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }
