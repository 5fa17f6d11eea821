package web

import (
	"cmp"
	"io"
	"mime"
	"net/http"
	"net/url"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/export"
)

// contentTypes are the downloads' media types, by export format.
var contentTypes = map[string]string{
	pidex.FormatMarkdown: "text/markdown; charset=utf-8",
	pidex.FormatHTML:     "text/html; charset=utf-8",
	pidex.FormatJSON:     "application/json",
}

// GET /s/{id}/export = pidex export (?format=md|html|json ?leaf= ?context=1
// ?redact=1 ?thinking=1 ?maxOutput=): the session as a file to save,
// named after the session's file (its base name, the format's extension).
func (s *Server) download(w http.ResponseWriter, r *http.Request, ref pidex.SessionRef) {
	q := r.URL.Query()
	o := pidex.ExportOptions{Format: q.Get("format"), Leaf: q.Get("leaf"), Context: boolParam(q, "context"),
		Redact: boolParam(q, "redact"), Thinking: boolParam(q, "thinking"), MaxOutput: pidex.DefaultMaxOutput}
	if q.Has("maxOutput") {
		var err error
		if o.MaxOutput, err = intParam(q, "maxOutput"); err != nil {
			s.httpError(w, r, err)
			return
		}
	}
	format := cmp.Or(o.Format, pidex.FormatMarkdown)
	name := export.BaseName(ref.Path) + "." + format
	// JSON goes out as it is read (export.Write): a session of any size.
	s.stream(w, r, func(h http.Header) {
		h.Set("Content-Type", contentTypes[format])
		h.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": name}))
		h.Set("Cache-Control", "no-store")
	}, func(out io.Writer) error { return export.Write(r.Context(), s.cat, ref, o, out) })
}

// download is a link to a download.
type download struct {
	Label, URL string
}

// downloads are the links to the session's exports: Markdown and JSON of
// what the page shows (the branch to leaf, or its model context), the HTML
// page of every branch, opening on that one.
func downloads(handle, leaf string, context bool) []download {
	link := func(format string, context bool) string {
		v := url.Values{"format": {format}}
		if leaf != "" {
			v.Set("leaf", leaf)
		}
		if context {
			v.Set("context", "1")
		}
		return "/s/" + url.PathEscape(handle) + "/export?" + v.Encode()
	}
	return []download{
		{"Markdown", link(pidex.FormatMarkdown, context)},
		{"HTML", link(pidex.FormatHTML, false)},
		{"JSON", link(pidex.FormatJSON, context)},
	}
}
