package web

import (
	"errors"
	"net/http"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/pidex-dev/pidex"
)

// URL parameters are the CLI's flags by the same names (--since is
// ?since=, --sessions-only is ?sessionsOnly=1) and the domain's options
// by the same names: translated here, checked by the options' own Filter
// (a bad value is the same usage error, answered 400).

// listOptions reads `pidex list`'s filters.
func listOptions(q url.Values) (pidex.ListOptions, error) {
	o := pidex.ListOptions{Cwd: q.Get("cwd"), Project: q.Get("project"), Name: q.Get("name"), Agent: q.Get("agent"),
		Since: q.Get("since"), Until: q.Get("until"), Sort: q.Get("sort")}
	var err error
	o.Limit, err = intParam(q, "limit")
	return o, err
}

// searchOptions reads `pidex search`'s query and filters. Its session is
// resolved as the {id} of a URL (never a path).
func (s *Server) searchOptions(r *http.Request) (pidex.SearchOptions, error) {
	q := r.URL.Query()
	o := pidex.SearchOptions{Query: q.Get("q"), Project: q.Get("project"), Cwd: q.Get("cwd"), Agent: q.Get("agent"), Role: q.Get("role"),
		Model: q.Get("model"), Since: q.Get("since"), Until: q.Get("until"), Branch: q.Get("branch"), Sort: q.Get("sort")}
	var err error
	if o.Limit, err = intParam(q, "limit"); err != nil {
		return o, err
	}
	if o.Offset, err = intParam(q, "offset"); err != nil {
		return o, err
	}
	o.Session, err = s.sessionParam(r)
	return o, err
}

// costOptions reads `pidex cost`'s filters (?by ?tz ?since ?until
// ?project ?cwd ?session ?agent ?model ?source ?branch ?noDedup=1); bare dates
// and periods are in ?tz (the page passes the browser's zone).
func (s *Server) costOptions(r *http.Request) (pidex.CostOptions, error) {
	q := r.URL.Query()
	o := pidex.CostOptions{Source: q.Get("source"), TZ: q.Get("tz"), Since: q.Get("since"), Until: q.Get("until"),
		Project: q.Get("project"), Cwd: q.Get("cwd"), Agent: q.Get("agent"), Model: q.Get("model"), Branch: q.Get("branch"), NoDedup: boolParam(q, "noDedup")}
	if q.Has("by") {
		o.By = strings.Split(q.Get("by"), ",")
	}
	var err error
	o.Session, err = s.sessionParam(r)
	return o, err
}

// sessionParam is ?session= resolved to a session of this server, as a
// full session id the engine resolves again ("" for none).
func (s *Server) sessionParam(r *http.Request) (string, error) {
	id := r.URL.Query().Get("session")
	if id == "" {
		return "", nil
	}
	ref, err := s.session(r, id)
	if err != nil {
		return "", err
	}
	return ref.Path, nil
}

// intParam is a number ≥ 0 (0 when absent: the option's default).
func intParam(q url.Values, name string) (int, error) {
	s := q.Get(name)
	if s == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, &pidex.OptionError{Option: name, Value: s, Want: "want a number, 0 or more"}
	}
	return n, nil
}

func boolParam(q url.Values, name string) bool {
	switch q.Get(name) {
	case "1", "true", "on", "yes":
		return true
	}
	return false
}

// session resolves the {id} of a URL: a session id, a unique prefix or a
// unique name, never a path (the server reads only the roots' files). A
// session id that two files share (a copy of a file) is told apart by
// ?file=, the file's base name.
func (s *Server) session(r *http.Request, arg string) (pidex.SessionRef, error) {
	if arg == "" || strings.ContainsAny(arg, `/\`) || strings.HasSuffix(arg, ".jsonl") || arg == "." || arg == ".." {
		return pidex.SessionRef{}, &pidex.NotFoundError{Ref: arg}
	}
	ref, err := s.eng.Resolve(r.Context(), arg)
	file := r.URL.Query().Get("file")
	if !errors.Is(err, pidex.ErrAmbiguous) || file == "" {
		return ref, err
	}
	all, lerr := s.eng.List(r.Context(), pidex.ListOptions{})
	if lerr != nil {
		return ref, lerr
	}
	for i := range all {
		if si := &all[i]; si.ID == arg && filepath.Base(si.Path) == file {
			return si.Ref(), nil
		}
	}
	return ref, err
}

// sessionURL is the page of a session (with ?file= so that copies sharing
// an id open the right file) plus extra parameters.
func sessionURL(id, path string, extra ...string) string {
	v := url.Values{"file": {filepath.Base(path)}}
	for i := 0; i+1 < len(extra); i += 2 {
		if extra[i+1] != "" {
			v.Set(extra[i], extra[i+1])
		}
	}
	return "/s/" + url.PathEscape(id) + "?" + v.Encode()
}
