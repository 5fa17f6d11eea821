package web

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"strings"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/render"
)

// Errors of the HTTP layer itself, mapped like the catalog's.
var (
	errNotFound     = pageNotFound{}
	errForbidden    = errors.New("forbidden")
	errUnauthorized = errors.New("unauthorized")
	errMethod       = errors.New("method not allowed: pidex serve is read-only")
	errCrossSite    = fmt.Errorf("%w: the request came from another site's page (pidex serve answers only its own pages and addresses opened directly)", errForbidden)
)

// pageNotFound: no route has the URL (errors.Is(err, ErrNotFound), without
// the sentinel's words in its message).
type pageNotFound struct{}

func (pageNotFound) Error() string {
	return "no such page: the pages are /, /s/ID, /s/ID/export, /search, /cost and /activity"
}

func (pageNotFound) Is(target error) bool { return target == pidex.ErrNotFound }

// status maps an error to its HTTP status: the one place where sentinel
// errors become codes (as main.exitCode makes them exit codes).
func status(err error) int {
	switch {
	case errors.Is(err, pidex.ErrUsage):
		return http.StatusBadRequest
	case errors.Is(err, pidex.ErrNotFound):
		return http.StatusNotFound
	case errors.Is(err, pidex.ErrAmbiguous):
		return http.StatusConflict
	case errors.Is(err, fs.ErrNotExist): // the session file went away since it was indexed
		return http.StatusNotFound
	case errors.Is(err, pidex.ErrFileChanged): // rewritten between the catalog's answer and the read
		return http.StatusConflict
	case errors.Is(err, errForbidden):
		return http.StatusForbidden
	case errors.Is(err, errUnauthorized):
		return http.StatusUnauthorized
	case errors.Is(err, errMethod):
		return http.StatusMethodNotAllowed
	case errors.Is(err, context.Canceled):
		return 499 // the client went away; nobody reads this
	default:
		return http.StatusInternalServerError
	}
}

// httpError writes err: {"error": message} under /api/, a page
// elsewhere. A client's mistake (a bad parameter, a missing session) is
// named in the message; an internal error is logged on the server and the
// client is told only that it happened.
func (s *Server) httpError(w http.ResponseWriter, r *http.Request, err error) {
	code := status(err)
	msg := err.Error()
	// A session file that changed under the server (the watcher catches
	// up within a second) is a moment's state, not the server's fault.
	switch {
	case errors.Is(err, fs.ErrNotExist):
		msg = "the session file is no longer there (deleted or moved since it was indexed): the list shows the sessions as they are now"
	case errors.Is(err, pidex.ErrFileChanged):
		msg = "the session file changed while it was read (pi is writing it): reload in a moment"
	}
	if code == http.StatusInternalServerError {
		s.log("%s %s: %v", r.Method, r.URL.Path, err)
		msg = "internal error: the server could not answer (its log says why)"
	}
	if strings.HasPrefix(r.URL.Path, "/api/") {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		_ = render.WriteJSON(w, map[string]string{"error": msg})
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(code)
	_ = pages()["error"].ExecuteTemplate(w, "layout", page{Title: http.StatusText(code), Data: errorView{code, http.StatusText(code), msg}})
}

type errorView struct {
	Code    int
	Status  string
	Message string
}

// formError keeps a page up when its form holds a bad value: a usage
// error becomes the message above the form (and 400), and formError says
// true; any other error is answered with the error page (false).
func (s *Server) formError(w http.ResponseWriter, r *http.Request, err error, msg *string, code *int) bool {
	if status(err) != http.StatusBadRequest {
		s.httpError(w, r, err)
		return false
	}
	*msg, *code = err.Error(), http.StatusBadRequest
	return true
}
