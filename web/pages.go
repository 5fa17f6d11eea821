package web

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"path/filepath"
	"strconv"

	"github.com/pidex-dev/pidex/fts"
	"github.com/pidex-dev/pidex/pi"
	"github.com/pidex-dev/pidex/query"
	"github.com/pidex-dev/pidex/schema"
)

// page is what the layout needs; Data is the page's own view.
type page struct {
	Title string
	Nav   string // sessions | search | cost: the highlighted tab
	Data  any
}

//go:embed assets/templates
var templateFS embed.FS

// pages are the parsed templates, one set per page, each the layout plus
// the page's "main". html/template escapes every value for its context.
var pages = parsePages()

func parsePages() map[string]*template.Template {
	funcs := template.FuncMap{
		"comma": func(n any) string {
			switch x := n.(type) {
			case int:
				return comma(int64(x))
			case int64:
				return comma(x)
			case float64: // token sums (saturating floats)
				return comma(int64(x))
			}
			return fmt.Sprint(n)
		},
		"treeArgs": func(g *treeGroup, u func(string) string) treeArgs { return treeArgs{g, u} },
		"money":    func(v float64) string { return "$" + strconv.FormatFloat(v, 'f', 2, 64) },
		"ptime":    func(t query.JSTime) string { return displayTime(t.Time()) },
		"iso":      func(t query.JSTime) string { return pi.FormatDate(int64(t)) },
		"size":     size,
		"tokens":   func(v float64) string { return comma(int64(v)) },
		"fragment": func(id string) string {
			return "e-" + url.PathEscape(id)
		},
	}
	out := map[string]*template.Template{}
	for _, name := range []string{"sessions", "session", "search", "cost", "error"} {
		out[name] = template.Must(template.New(name).Funcs(funcs).ParseFS(templateFS,
			"assets/templates/layout.html", "assets/templates/"+name+".html"))
	}
	return out
}

// renderPage writes a page, or with ?partial=1 only its "results" part
// (the page's script swaps it in as the filters change). Rendered to a
// buffer first, so a template failure is an error page, not half a page.
func renderPage(w http.ResponseWriter, r *http.Request, code int, name string, p page) {
	var buf bytes.Buffer
	tmpl := "layout"
	if boolParam(r.URL.Query(), "partial") {
		tmpl = "results"
	}
	if err := pages[name].ExecuteTemplate(&buf, tmpl, p); err != nil {
		httpError(w, r, fmt.Errorf("render %s page: %w", name, err))
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_, _ = w.Write(buf.Bytes())
}

// sessionsView is the sessions page: filters, one page of rows, pager.
type sessionsView struct {
	Form       url.Values
	Rows       []sessionRow
	Total      int
	From, To   int
	Prev, Next string
	Sorts      []string
	Error      string
}

type sessionRow struct {
	URL      string
	Name     string
	First    string
	Project  string
	Cwd      string
	Messages int64
	Cost     float64
	Modified query.JSTime
}

// pageSize is the number of sessions a page shows: 10,000 sessions are a
// hundred pages, never a 10,000-row table.
const pageSize = 100

func (s *Server) sessionsPage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	v := sessionsView{Form: q, Sorts: []string{query.SortModified, query.SortCreated, query.SortCost, query.SortSize}}
	code := http.StatusOK
	f, err := listFilter(q)
	start, _ := strconv.Atoi(q.Get("start"))
	start = max(0, start)
	var rows []query.SessionInfo
	if err == nil {
		// One page from SQLite (its top-N sort), and the count for the pager:
		// never the whole listing.
		if v.Total, err = s.eng.Count(r.Context(), f); err == nil {
			start = min(start, max(0, v.Total-1))
			f.Offset, f.Limit = start, pageSize
			rows, err = s.eng.List(r.Context(), f)
		}
	}
	if err != nil && !formError(w, r, err, &v.Error, &code) {
		return
	}
	end := start + len(rows)
	v.From, v.To = start+1, end
	for _, si := range rows {
		row := sessionRow{URL: sessionURL(si.ID, si.Path), First: pi.Cut(pi.OneLine(pi.Cut(si.FirstMessage, 600)), 160),
			Project: project(si.Cwd), Cwd: si.Cwd, Messages: si.MessageCount, Cost: si.Cost, Modified: si.Modified}
		if si.Name != nil {
			row.Name = *si.Name
		}
		v.Rows = append(v.Rows, row)
	}
	pageURL := func(at int) string {
		u := url.Values{}
		for k, vs := range q {
			if k != "start" && k != "partial" && len(vs) > 0 && vs[0] != "" {
				u.Set(k, vs[0])
			}
		}
		if at > 0 {
			u.Set("start", strconv.Itoa(at))
		}
		return "/?" + u.Encode()
	}
	if start > 0 {
		v.Prev = pageURL(max(0, start-pageSize))
	}
	if end < v.Total {
		v.Next = pageURL(end)
	}
	renderPage(w, r, code, "sessions", page{Title: "Sessions", Nav: "sessions", Data: v})
}

// project is the last element of a cwd, as the CLI shows it.
func project(cwd string) string {
	if cwd == "" {
		return "-"
	}
	return filepath.Base(cwd)
}

// treeArgs carry a tree group and the link maker into the recursive
// "group" template.
type treeArgs struct {
	G   *treeGroup
	URL func(string) string
}

// sessionView is the session page.
type sessionView struct {
	Info       query.SessionInfo
	Title      string
	Model      string
	Thinking   string
	Context    bool
	Full       bool
	Leaf       string // the end of the path shown
	Current    bool   // it is pi's leaf
	Entries    []entryView
	Tree       *treeGroup
	Abandoned  *float64 // cost on abandoned branches, when known
	BranchURL  string
	ContextURL string
	FullURL    string
	// The window of entries shown, 1-based, of how many; links to the
	// entries before and after it.
	From, To, Of         int
	EarlierURL, LaterURL string
	TreeURL              func(leaf string) string
}

func (s *Server) sessionPage(w http.ResponseWriter, r *http.Request, ref schema.SessionRef) {
	ctx := r.Context()
	q := r.URL.Query()
	info, err := s.eng.Info(ctx, ref)
	if err != nil {
		httpError(w, r, err)
		return
	}
	roots, err := s.eng.Tree(ctx, ref)
	if err != nil {
		httpError(w, r, err)
		return
	}
	leaf, at := q.Get("leaf"), q.Get("at")
	if at != "" && leaf == "" {
		n := find(roots, at)
		if n == nil {
			httpError(w, r, fmt.Errorf("entry %q in session %s: %w", at, ref.SessionID, schema.ErrNotFound))
			return
		}
		leaf = branchLeaf(n)
	}
	sc, err := s.sessionContext(ctx, ref, info, leaf, at, q)
	if err != nil {
		httpError(w, r, err)
		return
	}
	previews, err := s.previews.previews(ref, roots)
	if err != nil {
		httpError(w, r, err)
		return
	}
	v := sessionView{Info: info, Title: sessionTitle(info), Model: sc.Model.String(), Thinking: sc.Level(),
		Context: q.Get("view") == "context", Full: boolParam(q, "full")}
	onPath := make(map[string]bool, len(sc.Path))
	for _, p := range sc.Path {
		onPath[p.ID] = true
	}
	if n := len(sc.Path); n > 0 {
		v.Leaf = sc.Path[n-1].ID
	}
	v.Current = info.LeafID != nil && v.Leaf == *info.LeafID
	keepLeaf := leaf
	if v.Current {
		keepLeaf = ""
	}
	link := func(extra ...string) string {
		base := []string{"leaf", keepLeaf}
		if v.Context {
			base = append(base, "view", "context")
		}
		if v.Full {
			base = append(base, "full", "1")
		}
		return sessionURL(info.ID, info.Path, append(base, extra...)...)
	}
	v.BranchURL = sessionURL(info.ID, info.Path)
	if v.Context {
		v.ContextURL = sessionURL(info.ID, info.Path, "leaf", keepLeaf)
	} else {
		v.ContextURL = link("view", "context")
	}
	v.FullURL = link("full", "1")
	view := ""
	if v.Context {
		view = "context"
	}
	treeBase := sessionURL(info.ID, info.Path, "view", view) + "&leaf=" // built once: the tree may have thousands of links
	v.TreeURL = func(id string) string {
		return treeBase + url.QueryEscape(id) + "#e-" + url.PathEscape(id)
	}
	v.Tree = treeView(roots, previews, onPath, v.Leaf)
	// The session's own calls (every copy it holds, like its total) off
	// its current branch.
	rep, err := s.eng.Cost(ctx, query.CostFilter{FileID: ref.FileID, Branch: "abandoned", NoDedup: true})
	if err != nil {
		httpError(w, r, err)
		return
	}
	v.Abandoned = &rep.Totals.Cost
	vw := viewer{full: v.Full}
	if v.Context {
		type msg struct {
			raw json.RawMessage
			src *pi.PathItem
		}
		var msgs []msg
		target := -1
		for _, ce := range sc.Entries {
			for _, m := range ce.Messages {
				if sc.Path[ce.Index].ID == at && target < 0 {
					target = len(msgs)
				}
				msgs = append(msgs, msg{m, &sc.Path[ce.Index]})
			}
		}
		from, to := span(q, len(msgs), target)
		for i := from; i < to; i++ {
			v.Entries = append(v.Entries, vw.message(i+1, msgs[i].raw, msgs[i].src))
		}
		v.windowLinks(link, from, to, len(msgs))
	} else {
		from, to := branchWindow(q, at, len(sc.Path), func(i int) string { return sc.Path[i].ID })
		v.Entries = pathEntries(vw, sc, from, to)
		v.windowLinks(link, from, to, len(sc.Path))
	}
	for i := range v.Entries {
		v.Entries[i].Target = v.Entries[i].ID == at
	}
	renderPage(w, r, http.StatusOK, "session", page{Title: v.Title, Nav: "sessions", Data: v})
}

// sessionContext is the rebuilt context the page needs: pi's exact one
// for the model-context view; for the conversation, one whose entries are
// read whole only in the window shown (the others cut: a 50 MB session
// decoded whole took a second).
func (s *Server) sessionContext(ctx context.Context, ref schema.SessionRef, info query.SessionInfo, leaf, at string,
	q url.Values) (*query.SessionContext, error) {
	key := contextKey{ref.Path, info.SizeBytes, info.EntryCount, leaf, ""}
	if q.Get("view") == "context" {
		return s.contexts.get(key, func() (*query.SessionContext, error) { return s.eng.Context(ctx, ref, leaf) })
	}
	whole := boolParam(q, "full")
	key.window = fmt.Sprintf("from=%s&at=%s&full=%v", q.Get("from"), at, whole)
	return s.contexts.get(key, func() (*query.SessionContext, error) {
		sc, _, _, err := s.eng.ContextWindow(ctx, ref, leaf, whole, func(rows []schema.PathEntry) (int, int) {
			return branchWindow(q, at, len(rows), func(i int) string { return rows[i].ID }) // as the page picks it
		})
		return sc, err
	})
}

// window is how many entries (or context messages) a session page shows
// at once: the largest sessions hold thousands, and a page must stay
// light. Links page through the rest.
const window = 200

// branchWindow is the window of a branch of n entries (id(i): the i-th
// one's id) to show: around the last entry with id at, as span picks it.
func branchWindow(q url.Values, at string, n int, id func(int) string) (from, to int) {
	target := -1
	for i := range n {
		if id(i) == at {
			target = i
		}
	}
	return span(q, n, target)
}

// span is the window of n items to show: from ?from=, else starting a
// little before the target (-1: none), else the last ones.
func span(q url.Values, n, target int) (from, to int) {
	switch f, err := strconv.Atoi(q.Get("from")); {
	case err == nil:
		from = f
	case target >= 0:
		from = target - 20
	default:
		from = n - window
	}
	from = max(0, min(from, n-window))
	return from, min(n, from+window)
}

// windowLinks sets the links to the entries before and after the window.
func (v *sessionView) windowLinks(link func(...string) string, from, to, n int) {
	v.From, v.To, v.Of = from+1, to, n
	if from > 0 {
		v.EarlierURL = link("from", strconv.Itoa(max(0, from-window)))
	}
	if to < n {
		v.LaterURL = link("from", strconv.Itoa(to))
	}
}

// pathEntries is the entries from..to of the branch, as `pidex show` sees
// them.
func pathEntries(vw viewer, sc *query.SessionContext, from, to int) []entryView {
	before := map[string]bool{} // ids shown so far: a context edit names an earlier entry
	effect := map[string]string{}
	for _, p := range sc.Path {
		if p.Type == schema.TypeContextEdit && p.Line != nil {
			effect[p.ID] = pi.EditEffect(p.Line)
		}
	}
	at := pi.Where{Before: func(id string) bool { return before[id] }}
	out := make([]entryView, 0, to-from)
	for i := range sc.Path[:to] {
		p := &sc.Path[i]
		if i >= from {
			out = append(out, vw.entry(p, at, effect[p.EditedBy]+" by "+p.EditedBy))
		}
		before[p.ID] = true
	}
	return out
}

// sessionTitle is a session's name, else its first message.
func sessionTitle(si query.SessionInfo) string {
	if si.Name != nil && *si.Name != "" {
		return *si.Name
	}
	return pi.Cut(pi.OneLine(pi.Cut(si.FirstMessage, 400)), 100)
}

// searchResult is a search's answer, for the page and the API.
type searchResult struct {
	sessionsOnly bool
	hits         []query.Hit
	sessions     []query.SessionHits
}

func (s *Server) search(r *http.Request) (*searchResult, error) {
	q := r.URL.Query()
	f, session, err := searchFilter(q)
	if err != nil {
		return nil, err
	}
	if session != "" {
		ref, err := s.session(r, session)
		if err != nil {
			return nil, err
		}
		f.FileID = ref.FileID
	}
	res := &searchResult{sessionsOnly: boolParam(q, "sessionsOnly")}
	if res.sessionsOnly {
		res.sessions, err = s.eng.SearchSessions(r.Context(), f)
	} else {
		res.hits, err = s.eng.Search(r.Context(), f)
	}
	return res, err
}

type searchView struct {
	Form     url.Values
	Query    string
	Error    string
	Hits     []hitView
	Sessions []sessionHitView
	Indexed  string // "42% of the text is indexed so far", when it is not all
	Roles    []string
}

type hitView struct {
	URL      string
	Title    string
	Project  string
	Role     string
	Time     *query.JSTime
	Segments []fts.Segment
}

type sessionHitView struct {
	URL     string
	Title   string
	Project string
	Hits    int64
}

func (s *Server) searchPage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	v := searchView{Form: q, Query: q.Get("q"), Roles: []string{"user", "assistant", "tool", "summary"}}
	code := http.StatusOK
	if v.Query != "" {
		res, err := s.search(r)
		switch {
		case err != nil:
			if !formError(w, r, err, &v.Error, &code) {
				return
			}
		case res.sessionsOnly:
			for _, sh := range res.sessions {
				title := pi.Cut(pi.OneLine(pi.Cut(sh.FirstMessage, 400)), 120)
				if sh.Name != nil && *sh.Name != "" {
					title = *sh.Name
				}
				v.Sessions = append(v.Sessions, sessionHitView{URL: sessionURL(sh.SessionID, sh.Path), Title: title, Project: project(sh.Cwd), Hits: sh.Hits})
			}
		default:
			for _, h := range res.hits {
				title := h.Name
				if title == "" {
					title = pi.Cut(pi.OneLine(pi.Cut(h.First, 400)), 120)
				}
				v.Hits = append(v.Hits, hitView{URL: sessionURL(h.SessionID, h.Path, "at", h.EntryID) + "#e-" + url.PathEscape(h.EntryID),
					Title: title, Project: project(h.Cwd), Role: h.Role, Time: h.Timestamp, Segments: h.Segments})
			}
		}
		if indexed, total, err := s.eng.TextCoverage(r.Context()); err == nil && indexed < total {
			v.Indexed = fmt.Sprintf("%.0f%% of the session text is indexed so far; results will grow", 100*float64(indexed)/float64(total))
		}
	}
	title := "Search"
	if v.Query != "" {
		title = v.Query + " · Search"
	}
	renderPage(w, r, code, "search", page{Title: title, Nav: "search", Data: v})
}
