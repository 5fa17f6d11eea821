package web

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/pidex-dev/pidex/fts"
	"github.com/pidex-dev/pidex/query"
	"github.com/pidex-dev/pidex/schema"
)

// URL parameters are the CLI's flags by the same names (--since is
// ?since=, --sessions-only is ?sessionsOnly=1), parsed by the same code
// (query.ParseDate, query.SearchOptions), so a bad value is the same
// usage error, answered 400.

// listFilter reads `pidex list`'s filters.
func listFilter(q url.Values) (query.ListFilter, error) {
	f := query.ListFilter{Cwd: q.Get("cwd"), Project: q.Get("project"), Name: q.Get("name"), Sort: q.Get("sort")}
	if f.Sort == "" {
		f.Sort = query.SortModified
	}
	var err error
	if f.Since, err = query.ParseDate(q.Get("since"), false); err != nil {
		return f, err
	}
	if f.Until, err = query.ParseDate(q.Get("until"), true); err != nil {
		return f, err
	}
	if f.Limit, err = intParam(q, "limit", 0); err != nil {
		return f, err
	}
	return f, nil
}

// searchFilter reads `pidex search`'s query and filters; session is the
// --session filter's value, resolved by the caller.
func searchFilter(q url.Values) (f query.SearchFilter, session string, err error) {
	if f.Query, err = fts.Parse(q.Get("q")); err != nil {
		return f, "", err
	}
	f.Project, f.Cwd, f.Role, f.Model = q.Get("project"), q.Get("cwd"), q.Get("role"), q.Get("model")
	if f.Limit, err = intParam(q, "limit", 20); err != nil {
		return f, "", err
	}
	opts := query.SearchOptions{Since: q.Get("since"), Until: q.Get("until"), Sort: q.Get("sort"), Branch: q.Get("branch")}
	return f, q.Get("session"), opts.Apply(&f)
}

func intParam(q url.Values, name string, def int) (int, error) {
	s := q.Get(name)
	if s == "" {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%s=%q (want a number ≥ 0): %w", name, s, schema.ErrUsage)
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
func (s *Server) session(r *http.Request, arg string) (schema.SessionRef, error) {
	if arg == "" || strings.ContainsAny(arg, `/\`) || strings.HasSuffix(arg, ".jsonl") || arg == "." || arg == ".." {
		return schema.SessionRef{}, fmt.Errorf("session %q: %w", arg, schema.ErrNotFound)
	}
	ref, _, err := s.eng.Session(r.Context(), arg, false)
	file := r.URL.Query().Get("file")
	if !errors.Is(err, schema.ErrAmbiguous) || file == "" {
		return ref, err
	}
	all, lerr := s.eng.List(r.Context(), query.ListFilter{})
	if lerr != nil {
		return ref, lerr
	}
	for _, si := range all {
		if si.ID == arg && filepath.Base(si.Path) == file {
			name := ""
			if si.Name != nil {
				name = *si.Name
			}
			return schema.SessionRef{FileID: si.FileID, Path: si.Path, SessionID: si.ID, Name: name}, nil
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
