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

// where reads the registry's filters of operation op (pidex.Filters), by
// their names.
func where(q url.Values, op pidex.Op) pidex.Where {
	var w pidex.Where
	for _, f := range pidex.Filters(op) {
		if v := q.Get(f.Name); v != "" {
			if w == nil {
				w = pidex.Where{}
			}
			w[f.Name] = v
		}
	}
	return w
}

// listOptions reads `pidex list`'s filters.
func listOptions(q url.Values) (pidex.ListOptions, error) {
	o := pidex.ListOptions{Where: where(q, pidex.OpList), Since: q.Get("since"), Until: q.Get("until"), Sort: q.Get("sort"),
		Machine: q.Get("machine"), Subagents: boolParam(q, "subagents")}
	var err error
	o.Limit, err = intParam(q, "limit")
	return o, err
}

// searchOptions reads `pidex search`'s query and filters. Its session is
// resolved as the {id} of a URL (never a path).
func (s *Server) searchOptions(r *http.Request) (pidex.SearchOptions, error) {
	q := r.URL.Query()
	o := pidex.SearchOptions{Query: q.Get("q"), Where: where(q, pidex.OpSearch), Role: q.Get("role"),
		Since: q.Get("since"), Until: q.Get("until"), Branch: q.Get("branch"), Sort: q.Get("sort"), Machine: q.Get("machine")}
	var err error
	if o.Limit, err = intParam(q, "limit"); err != nil {
		return o, err
	}
	if o.Offset, err = intParam(q, "offset"); err != nil {
		return o, err
	}
	o.Session, o.Machine, err = s.sessionParam(r, o.Machine)
	return o, err
}

// statsOptions reads what `pidex stats` and `pidex cost` take alike
// (?by ?tz ?since ?until ?session ?branch ?machine ?rollup=1, and the registry's
// cost filters: ?project ?cwd ?agent ?model …); bare dates and periods are
// in ?tz (the pages pass the browser's zone).
func (s *Server) statsOptions(r *http.Request) (pidex.StatsOptions, error) {
	q := r.URL.Query()
	o := pidex.StatsOptions{TZ: q.Get("tz"), Since: q.Get("since"), Until: q.Get("until"), Where: where(q, pidex.OpCost),
		Branch: q.Get("branch"), Machine: q.Get("machine"), Rollup: boolParam(q, "rollup")}
	if q.Has("by") {
		o.By = strings.Split(q.Get("by"), ",")
	}
	var err error
	o.Session, o.Machine, err = s.sessionParam(r, o.Machine)
	return o, err
}

// costOptions reads `pidex cost`'s filters: stats' (statsOptions), and
// ?source ?noDedup=1 ?estimate=1.
func (s *Server) costOptions(r *http.Request) (pidex.CostOptions, error) {
	so, err := s.statsOptions(r)
	q := r.URL.Query()
	return pidex.CostOptions{By: so.By, Source: q.Get("source"), TZ: so.TZ, Since: so.Since, Until: so.Until, Where: so.Where,
		Session: so.Session, Machine: so.Machine, Branch: so.Branch, Rollup: so.Rollup, NoDedup: boolParam(q, "noDedup"), Estimate: boolParam(q, "estimate")}, err
}

// sessionParam is ?session= resolved to a session of this server, as the
// path the engine resolves again ("" for none), and its machine (a team
// catalog's; machine, the ?machine= filter, otherwise).
func (s *Server) sessionParam(r *http.Request, machine string) (string, string, error) {
	id := r.URL.Query().Get("session")
	if id == "" {
		return "", machine, nil
	}
	ref, err := s.session(r, id)
	if err != nil {
		return "", machine, err
	}
	if ref.Machine != "" {
		machine = ref.Machine
	}
	return ref.Path, machine, nil
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

// session resolves the {id} of a URL: a handle (what the pages link to:
// the session id, with @N where several files hold it), a unique prefix or
// a unique name, never a path (the server reads only the roots' files).
// Links of older pages told copies apart by ?file=, the file's base name,
// and on a team catalog by ?machine=; both still work.
func (s *Server) session(r *http.Request, arg string) (pidex.SessionRef, error) {
	if arg == "" || strings.ContainsAny(arg, `/\`) || strings.HasSuffix(arg, ".jsonl") || arg == "." || arg == ".." {
		return pidex.SessionRef{}, &pidex.NotFoundError{Ref: arg}
	}
	machine := r.URL.Query().Get("machine")
	ref, err := s.cat.Resolve(r.Context(), arg, machine)
	file := r.URL.Query().Get("file")
	if !errors.Is(err, pidex.ErrAmbiguous) || file == "" {
		return ref, err
	}
	all, lerr := s.cat.List(r.Context(), pidex.ListOptions{Machine: machine})
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

// handles are the handles of refs that the pages link to, whole ids (a
// link is kept, not typed), each naming exactly one file: one call for
// all the links of a page.
func (s *Server) handles(r *http.Request, refs []pidex.SessionRef) ([]string, error) {
	return s.cat.Handles(r.Context(), refs, false)
}

// resultHandles are the handles of the sessions a search's page links to
// (one call for the page), by file and machine.
func (s *Server) resultHandles(r *http.Request, res *searchResult) (func(path, machine string) string, error) {
	type file struct{ path, machine string }
	var refs []pidex.SessionRef
	seen := map[file]bool{}
	add := func(path, id, machine string) {
		if f := (file{path, machine}); !seen[f] {
			seen[f] = true
			refs = append(refs, pidex.SessionRef{Path: path, SessionID: id, Machine: machine})
		}
	}
	for _, sh := range res.sessions {
		add(sh.Path, sh.SessionID, sh.Machine)
	}
	for _, h := range res.hits {
		add(h.Path, h.SessionID, h.Machine)
	}
	hs, err := s.handles(r, refs)
	if err != nil {
		return nil, err
	}
	byFile := make(map[file]string, len(refs))
	for i, ref := range refs {
		byFile[file{ref.Path, ref.Machine}] = hs[i]
	}
	return func(path, machine string) string { return byFile[file{path, machine}] }, nil
}

// entryURL is the page of the session handle names on the branch
// through entry id, scrolled to it (how search hits and a report's
// entries link), plus extra parameters as sessionURL's.
func entryURL(handle, id string, extra ...string) string {
	return sessionURL(handle, append([]string{"at", id}, extra...)...) + "#e-" + url.PathEscape(id)
}

// sessionURL is the page of the session handle names, plus extra
// parameters (name, value, …; an empty value is left out).
func sessionURL(handle string, extra ...string) string {
	v := url.Values{}
	for i := 0; i+1 < len(extra); i += 2 {
		if extra[i+1] != "" {
			v.Set(extra[i], extra[i+1])
		}
	}
	u := "/s/" + url.PathEscape(handle)
	if len(v) > 0 {
		u += "?" + v.Encode()
	}
	return u
}
