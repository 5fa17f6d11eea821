package web

import (
	"bytes"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/export"
	"github.com/pidex-dev/pidex/internal/render"
)

// The JSON API: each endpoint answers with exactly what the matching
// `pidex … --json` prints, written by the same render functions.

// writeJSON buffers a whole document (render's writers build it first
// anyway), so a failure is an error answer, not half a document.
func (s *Server) writeJSON(w http.ResponseWriter, r *http.Request, write func(*bytes.Buffer) error) {
	var buf bytes.Buffer
	if err := write(&buf); err != nil {
		s.httpError(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(buf.Bytes())
}

// streamJSON answers with what write writes as it writes it, for a
// document of any size (a session's entries).
func (s *Server) streamJSON(w http.ResponseWriter, r *http.Request, write func(io.Writer) error) {
	s.stream(w, r, func(h http.Header) { h.Set("Content-Type", "application/json") }, write)
}

// stream answers with what write writes as it writes it, with the
// headers header sets. An error before the first byte is the answer
// (httpError); one after it can only end the answer (a JSON stream is
// closed valid, render.StreamJSON) and go to the log.
func (s *Server) stream(w http.ResponseWriter, r *http.Request, header func(http.Header), write func(io.Writer) error) {
	out := &lazyWriter{w: w, header: header}
	if err := write(out); err != nil {
		if !out.started {
			s.httpError(w, r, err)
			return
		}
		s.log("%s %s: the answer was cut: %v", r.Method, r.URL.Path, err)
	}
}

// lazyWriter sets the answer's headers at its first byte, so that an
// error before it can still be an error's answer.
type lazyWriter struct {
	w       http.ResponseWriter
	header  func(http.Header)
	started bool
}

func (l *lazyWriter) Write(p []byte) (int, error) {
	if !l.started {
		l.started = true
		l.header(l.w.Header())
	}
	return l.w.Write(p)
}

// withSession resolves the URL's {id} before h runs; an unknown or
// ambiguous one is the answer.
func (s *Server) withSession(h func(http.ResponseWriter, *http.Request, pidex.SessionRef)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ref, err := s.session(r, r.PathValue("id"))
		if err != nil {
			s.httpError(w, r, err)
			return
		}
		h(w, r, ref)
	}
}

// GET /api/sessions = pidex list --json (?cwd ?project ?name ?since ?until ?sort ?limit ?subagents=1).
func (s *Server) apiSessions(w http.ResponseWriter, r *http.Request) {
	o, err := listOptions(r.URL.Query())
	if err != nil {
		s.httpError(w, r, err)
		return
	}
	ss, err := s.cat.List(r.Context(), o)
	if err != nil {
		s.httpError(w, r, err)
		return
	}
	s.writeJSON(w, r, func(b *bytes.Buffer) error { return render.WriteJSONLines(b, ss) })
}

// GET /api/sessions/{id}: one object of pidex list --json.
func (s *Server) apiSession(w http.ResponseWriter, r *http.Request, ref pidex.SessionRef) {
	si, err := s.cat.Info(r.Context(), ref)
	if err != nil {
		s.httpError(w, r, err)
		return
	}
	s.writeJSON(w, r, func(b *bytes.Buffer) error { return render.WriteJSON(b, si) })
}

// GET /api/sessions/{id}/tree = pidex tree --json (?flat=1, ?pathOnly=1).
func (s *Server) apiTree(w http.ResponseWriter, r *http.Request, ref pidex.SessionRef) {
	q := r.URL.Query()
	roots, err := s.cat.Tree(r.Context(), ref, pidex.TreeOptions{PathOnly: boolParam(q, "pathOnly")})
	if err != nil {
		s.httpError(w, r, err)
		return
	}
	s.writeJSON(w, r, func(b *bytes.Buffer) error {
		if boolParam(q, "flat") {
			return render.WriteJSONLines(b, render.FlatTree(roots))
		}
		return render.TreeJSON(b, roots)
	})
}

// GET /api/sessions/{id}/path = pidex path --json (?leaf=).
func (s *Server) apiPath(w http.ResponseWriter, r *http.Request, ref pidex.SessionRef) {
	path, err := s.cat.Path(r.Context(), ref, r.URL.Query().Get("leaf"))
	if err != nil {
		s.httpError(w, r, err)
		return
	}
	s.writeJSON(w, r, func(b *bytes.Buffer) error { return render.WriteJSON(b, path) })
}

// GET /api/sessions/{id}/context = pidex show --context --json (?leaf=).
func (s *Server) apiContext(w http.ResponseWriter, r *http.Request, ref pidex.SessionRef) {
	s.apiShow(w, r, ref, true)
}

// GET /api/sessions/{id}/entries = pidex show --json (?leaf=).
func (s *Server) apiEntries(w http.ResponseWriter, r *http.Request, ref pidex.SessionRef) {
	s.apiShow(w, r, ref, false)
}

func (s *Server) apiShow(w http.ResponseWriter, r *http.Request, ref pidex.SessionRef, context bool) {
	leaf := r.URL.Query().Get("leaf")
	if !context {
		s.streamJSON(w, r, func(out io.Writer) error {
			return export.EntriesJSON(r.Context(), s.cat, ref, leaf, false, out)
		})
		return
	}
	doc, err := s.cat.Context(r.Context(), ref, leaf)
	if err != nil {
		s.httpError(w, r, err)
		return
	}
	s.writeJSON(w, r, func(b *bytes.Buffer) error { return render.WriteJSON(b, doc) })
}

// GET /api/search?q= = pidex search --json (?project ?cwd ?session ?role
// ?model ?since ?until ?branch ?sort ?limit ?sessionsOnly=1).
func (s *Server) apiSearch(w http.ResponseWriter, r *http.Request) {
	res, err := s.search(r)
	if err != nil {
		s.httpError(w, r, err)
		return
	}
	// The body is exactly pidex search --json; the totals and the pages
	// around this one are headers (Link as RFC 8288 and GitHub's API).
	h := w.Header()
	h.Set("Pidex-Total-Hits", strconv.Itoa(res.page.Totals.Hits))
	h.Set("Pidex-Total-Sessions", strconv.Itoa(res.page.Totals.Sessions))
	if res.page.Totals.AtLeast {
		h.Set("Pidex-Total-At-Least", "1") // counting stopped at pidex.CountCap
	}
	var links []string
	if res.page.Next >= 0 {
		links = append(links, "<"+offsetURL(r.URL, res.page.Next)+`>; rel="next"`)
	}
	if res.page.Prev >= 0 {
		links = append(links, "<"+offsetURL(r.URL, res.page.Prev)+`>; rel="prev"`)
	}
	if len(links) > 0 {
		h.Set("Link", strings.Join(links, ", "))
	}
	s.writeJSON(w, r, func(b *bytes.Buffer) error {
		if res.sessionsOnly {
			return render.WriteJSONLines(b, res.sessions)
		}
		return render.WriteJSONLines(b, res.hits)
	})
}
