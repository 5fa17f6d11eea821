// Package web is pidex's HTTP server: HTML pages for reading sessions, a
// JSON API with the shapes of the CLI's --json, and server-sent events
// when the catalog changes. It is HTTP over engine and render, as the CLI
// is flags over them: it runs no SQL of its own, changes nothing (every
// route is GET), and escapes every piece of session text.
package web

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/htmlview"
	"github.com/pidex-dev/pidex/internal/httpguard"
)

//go:embed assets
var assets embed.FS

// Options configure a Server.
type Options struct {
	// Addr is the address the server listens on (host:port); requests
	// must name it, or localhost, in their Host header.
	Addr string
	// Token, if set, must come with every request (see guard).
	Token string
	// Log receives one-line messages (nil: dropped): internal errors with
	// their cause, and the request log (see logRequests).
	Log func(msg string)
	// LogRequests logs every request, not only the failed and slow ones.
	LogRequests bool
	// SlowRequest is how long a request may take before it is logged as
	// slow (0: DefaultSlowRequest).
	SlowRequest time.Duration
}

// Catalog is what the server reads: every read of a catalog, and when it
// changed (the pages are live).
type Catalog interface {
	pidex.Catalog
	pidex.Live
}

// Server serves one catalog.
type Server struct {
	cat  Catalog
	opts Options
	mux  *http.ServeMux
}

// New builds the server's routes over cat. It does not listen.
func New(cat Catalog, opts Options) (*Server, error) {
	s := &Server{cat: cat, opts: opts, mux: http.NewServeMux()}
	static, err := fs.Sub(assets, "assets/static")
	if err != nil {
		return nil, fmt.Errorf("load assets: %w", err)
	}
	m := s.mux
	m.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(static)))
	// The stylesheet and the script an exported page holds too.
	m.HandleFunc("GET /static/app.css", serveAsset("app.css", htmlview.Stylesheet))
	m.HandleFunc("GET /static/shared.js", serveAsset("shared.js", htmlview.Script))
	m.HandleFunc("GET /{$}", s.sessionsPage)
	m.HandleFunc("GET /s/{id}", s.withSession(s.sessionPage))
	m.HandleFunc("GET /s/{id}/export", s.withSession(s.download))
	m.HandleFunc("GET /search", s.searchPage)
	m.HandleFunc("GET /cost", s.costPage)
	m.HandleFunc("GET /activity", s.activityPage)
	m.HandleFunc("GET /events", s.events)
	m.HandleFunc("GET /api/sessions", s.apiSessions)
	m.HandleFunc("GET /api/sessions/{id}", s.withSession(s.apiSession))
	m.HandleFunc("GET /api/sessions/{id}/tree", s.withSession(s.apiTree))
	m.HandleFunc("GET /api/sessions/{id}/path", s.withSession(s.apiPath))
	m.HandleFunc("GET /api/sessions/{id}/context", s.withSession(s.apiContext))
	m.HandleFunc("GET /api/sessions/{id}/entries", s.withSession(s.apiEntries))
	m.HandleFunc("GET /api/search", s.apiSearch)
	m.HandleFunc("GET /api/cost", s.apiCost)
	m.HandleFunc("GET /api/stats", s.apiStats)
	m.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.httpError(w, r, errNotFound)
	})
	return s, nil
}

// serveAsset serves a file held in a string (content type by its name).
func serveAsset(name, content string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		http.ServeContent(w, r, name, time.Time{}, strings.NewReader(content))
	}
}

// Handler is the server's whole HTTP surface, guarded (see guard) and
// logged (see logRequests).
func (s *Server) Handler() http.Handler { return s.logRequests(s.guard(s.mux)) }

// Serve answers on ln until ctx ends, then shuts down (open event streams
// are closed by ctx too).
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	return httpguard.Serve(ctx, ln, s.Handler())
}

func (s *Server) log(format string, args ...any) {
	if s.opts.Log != nil {
		s.opts.Log(fmt.Sprintf(format, args...))
	}
}
