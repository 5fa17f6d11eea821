package web

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/htmlview"
	"github.com/pidex-dev/pidex/internal/text"
	"github.com/pidex-dev/pidex/internal/view"
)

// page is what the layout needs; Data is the page's own view.
type page struct {
	Title string
	Nav   string // sessions | search | cost | activity: the highlighted tab
	Data  any
}

//go:embed assets/templates
var templateFS embed.FS

// pages are the parsed templates, one set per page, each the layout plus
// the page's "main". html/template escapes every value for its context.
// Parsed on first use, not at package init: every pidex command links this
// package, and parsing them was a tenth of `pidex version`. A template
// that does not parse still fails the tests (TestPagesParse).
var pages = sync.OnceValue(parsePages)

func parsePages() map[string]*template.Template {
	funcs := template.FuncMap{
		"comma": func(n any) string {
			switch x := n.(type) {
			case int:
				return text.Count(int64(x))
			case int64:
				return text.Count(x)
			case float64: // token sums (saturating floats)
				return text.Round(x)
			}
			return fmt.Sprint(n)
		},
		"counted": func(n any, one, many string) string {
			switch x := n.(type) {
			case int:
				return text.Counted(int64(x), one, many)
			case int64:
				return text.Counted(x, one, many)
			}
			panic(fmt.Sprintf("counted: a count of type %T", n)) // a template's mistake: fails its test
		},
		// slashBreaks lets a line break after each slash of s (a model's
		// provider/id, a project's path) and nowhere else inside a word.
		"slashBreaks": func(s string) template.HTML {
			parts := strings.Split(s, "/")
			for i, p := range parts {
				parts[i] = template.HTMLEscapeString(p)
			}
			return template.HTML(strings.Join(parts, "/<wbr>"))
		},
		"chartArgs": func(c *chartView, id, class string) chartArgs { return chartArgs{c, id, class} },
		"costSums":  func(s pidex.CostSums, v costView) costSumsArgs { return costSumsArgs{s, v} },
		"join":      strings.Join,
		"isPeriod":  pidex.IsPeriod,
		"money":     text.Money,
		"ptime":     func(t pidex.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") },
		"iso":       func(t pidex.Time) string { return t.String() },
		"size":      text.Bytes,
		"tokens":    text.Round,
		"fragment": func(id string) string {
			return "e-" + url.PathEscape(id)
		},
	}
	out := map[string]*template.Template{}
	for _, name := range []string{"sessions", "session", "search", "cost", "activity", "error"} {
		t := template.Must(htmlview.Parse(template.New(name).Funcs(funcs)))
		out[name] = template.Must(t.ParseFS(templateFS, "assets/templates/layout.html", "assets/templates/"+name+".html"))
	}
	return out
}

// renderPage writes a page, or with ?partial=1 only its "results" part
// (the page's script swaps it in as the filters change). Rendered to a
// buffer first, so a template failure is an error page, not half a page.
func (s *Server) renderPage(w http.ResponseWriter, r *http.Request, code int, name string, p page) {
	var buf bytes.Buffer
	tmpl := "layout"
	if boolParam(r.URL.Query(), "partial") {
		tmpl = "results"
	}
	if err := pages()[name].ExecuteTemplate(&buf, tmpl, p); err != nil {
		s.httpError(w, r, fmt.Errorf("render %s page: %w", name, err))
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
	Modified pidex.Time
	// A subagent's: its run, and how deep beneath the listed session
	// that started it (0: listed itself).
	Run   string
	Depth int
}

// sessionRows are the rows of sessions, each one's subagents beneath it,
// each linked by its handle.
func (s *Server) sessionRows(r *http.Request, ss []pidex.Session, depth int) ([]sessionRow, error) {
	listed := view.Flatten(ss, depth)
	refs := make([]pidex.SessionRef, len(listed))
	for i := range listed {
		refs[i] = listed[i].Ref()
	}
	handles, err := s.handles(r, refs)
	if err != nil {
		return nil, err
	}
	rows := make([]sessionRow, len(listed))
	for i, si := range listed {
		row := sessionRow{URL: sessionURL(handles[i]), First: text.Cut(text.OneLine(text.Cut(si.FirstMessage, 600)), 160),
			Project: view.Project(si.Cwd), Cwd: si.Cwd, Messages: si.MessageCount, Cost: si.Cost, Modified: si.Modified,
			Run: view.RunLabel(si.Run), Depth: si.Depth}
		if si.Name != nil {
			row.Name = *si.Name
		}
		rows[i] = row
	}
	return rows, nil
}

// pageSize is the number of sessions a page shows: 10,000 sessions are a
// hundred pages, never a 10,000-row table.
const pageSize = 100

func (s *Server) sessionsPage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	v := sessionsView{Form: q, Sorts: pidex.ListSorts}
	code := http.StatusOK
	o, err := listOptions(q)
	start, _ := strconv.Atoi(q.Get("start"))
	start = max(0, start)
	var rows []pidex.Session
	if err == nil {
		// One page from SQLite (its top-N sort), and the count for the pager:
		// never the whole listing.
		if v.Total, err = s.cat.Count(r.Context(), o); err == nil {
			start = min(start, max(0, v.Total-1))
			o.Offset, o.Limit = start, pageSize
			rows, err = s.cat.List(r.Context(), o)
		}
	}
	if err != nil && !s.formError(w, r, err, &v.Error, &code) {
		return
	}
	end := start + len(rows)
	v.From, v.To = start+1, end
	if v.Rows, err = s.sessionRows(r, rows, 0); err != nil {
		s.httpError(w, r, err)
		return
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
	s.renderPage(w, r, code, "sessions", page{Title: "Sessions", Nav: "sessions", Data: v})
}

// sessionView is the session page.
type sessionView struct {
	Info       pidex.Session
	Title      string
	Model      string
	Thinking   string
	Context    bool
	Full       bool
	Leaf       string // the end of the path shown
	Current    bool   // it is pi's leaf
	Entries    []htmlview.Entry
	Tree       template.HTML // the tree panel (htmlview.TreePanel)
	Abandoned  *float64      // cost on abandoned branches, when known
	BranchURL  string
	ContextURL string
	FullURL    string
	// The window of items shown, 1-based, of how many; links to the
	// items before and after it.
	From, To, Of         int
	EarlierURL, LaterURL string
	FirstURL, LastURL    string
	Where                string // "Entries 108–307 of 307, the latest."
	// Query is a search's words highlighted in the entries (Marks of
	// them on this page); ClearURL shows the page without.
	Query    string
	Marks    int
	ClearURL string
	// Downloads are the session as a file (pidex export) in each format,
	// of the branch (or the model context) the page shows; Resume the
	// command that continues it there (nil: none known).
	Downloads []download
	Resume    *pidex.Resume
	// A subagent's: the run, and the session that started it (its file,
	// and its link and title, "" when the catalog does not hold it).
	// Subagents: those it started.
	Run, SpawnedBy, ParentURL, ParentTitle string
	Subagents                              []sessionRow
}

// window is how many entries (or context messages) a session page shows
// at once: the largest sessions hold thousands, and a page must stay
// light. Links page through the rest.
const window = 200

func (s *Server) sessionPage(w http.ResponseWriter, r *http.Request, ref pidex.SessionRef) {
	ctx := r.Context()
	q := r.URL.Query()
	info, err := s.cat.Info(ctx, ref)
	if err != nil {
		s.httpError(w, r, err)
		return
	}
	leaf, at := q.Get("leaf"), q.Get("at")
	v := sessionView{Info: info, Title: view.SessionTitle(&info, 100), Context: q.Get("view") == "context", Full: boolParam(q, "full")}
	// The conversation reads only the window it shows, the model context
	// every message of the branch; a line over pidex.ReadCutLine (a huge
	// tool result) is read cut unless full, so that a page never holds it.
	o := pidex.ReadOptions{Leaf: leaf, Context: v.Context, Whole: v.Full,
		Window: pidex.Window{From: -1, Around: at, Size: window}}
	if f, err := strconv.Atoi(q.Get("from")); err == nil {
		o.Window.From = max(0, f)
	}
	// The tree, its previews and the branch are read at once (a session
	// of 9,186 entries: 40, 30 and 200 ms of work): only a branch through
	// an entry (?at=) waits for the tree, which names its leaf.
	var roots []*pidex.TreeNode
	var previews map[int64]string
	var doc *pidex.Document
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() (err error) { roots, err = s.cat.Tree(gctx, ref, pidex.TreeOptions{}); return err })
	g.Go(func() (err error) { previews, err = s.cat.Previews(gctx, ref); return err })
	if at == "" || leaf != "" {
		g.Go(func() (err error) { doc, err = s.cat.Read(gctx, ref, o); return err })
	}
	if err := g.Wait(); err != nil {
		s.httpError(w, r, err)
		return
	}
	if doc == nil {
		n := view.Find(roots, at)
		if n == nil {
			s.httpError(w, r, &pidex.NotFoundError{Entry: at, Session: ref.SessionID})
			return
		}
		leaf = view.BranchLeaf(n)
		o.Leaf = leaf
		if doc, err = s.cat.Read(ctx, ref, o); err != nil {
			s.httpError(w, r, err)
			return
		}
	}
	handles, err := s.handles(r, []pidex.SessionRef{ref})
	if err != nil {
		s.httpError(w, r, err)
		return
	}
	handle := handles[0]
	v.Model, v.Thinking, v.Leaf, v.Current = doc.Model, doc.Thinking, doc.Leaf, doc.Current
	keepLeaf := leaf
	if v.Current {
		keepLeaf = ""
	}
	v.Query = q.Get("q")
	link := func(extra ...string) string {
		base := []string{"leaf", keepLeaf, "q", v.Query} // a search's words stay highlighted
		if v.Context {
			base = append(base, "view", "context")
		}
		if v.Full {
			base = append(base, "full", "1")
		}
		return sessionURL(handle, append(base, extra...)...)
	}
	v.BranchURL = sessionURL(handle)
	if v.Context {
		v.ContextURL = sessionURL(handle, "leaf", keepLeaf)
	} else {
		v.ContextURL = link("view", "context")
	}
	v.FullURL = link("full", "1")
	v.Downloads = downloads(handle, keepLeaf, v.Context)
	// A session whose agent pidex cannot resume is still shown, without
	// the command.
	if v.Resume, err = s.cat.Resume(ctx, ref, pidex.ResumeOptions{Leaf: keepLeaf}); err != nil {
		s.log("resume %s: %v", ref.Path, err)
	}
	viewName := ""
	if v.Context {
		viewName = "context"
	}
	treeBase := sessionURL(handle, "view", viewName, "q", v.Query) // built once: the tree may have thousands of links
	if strings.Contains(treeBase, "?") {
		treeBase += "&leaf="
	} else {
		treeBase += "?leaf="
	}

	onPath := make(map[string]bool, len(doc.Path)) // the branch the page reads
	for _, id := range doc.Path {
		onPath[id] = true
	}
	nodeURL := func(id string) string { return treeBase + url.QueryEscape(id) + "#e-" + url.PathEscape(id) }
	v.Tree = (&htmlview.TreePanel{Previews: previews, OnPath: onPath, Selected: v.Leaf, Link: nodeURL}).HTML(view.Layout(roots))
	abandoned, _, err := s.cat.Abandoned(ctx, ref)
	if err != nil {
		s.httpError(w, r, err)
		return
	}
	v.Abandoned = &abandoned
	if err := s.spawn(r, ref, &v); err != nil {
		s.httpError(w, r, err)
		return
	}
	vw := htmlview.Viewer{Full: v.Full}
	var mark pidex.Marker
	if v.Query != "" {
		// A query that does not parse highlights nothing (it came from a
		// link; the search page says what is wrong with it).
		mark, _ = s.cat.Marker(v.Query)
		v.ClearURL = sessionURL(handle, "leaf", keepLeaf)
	}
	for _, it := range doc.Items {
		it.Target = it.ID == at
		e := vw.Item(doc, it)
		if mark != nil {
			e.Marks = markBlocks(e.Blocks, mark)
			v.Marks += e.Marks
		}
		v.Entries = append(v.Entries, e)
	}
	v.windowLinks(link, doc.From, doc.To, doc.Total, at)
	s.renderPage(w, r, http.StatusOK, "session", page{Title: v.Title, Nav: "sessions", Data: v})
}

// windowLinks says where the window lies in the branch (or the context)
// and sets the links to its first and last windows and to the ones before
// and after it: a long session opens at its end, or at a hit, and the
// reader sees that and how to get to the start.
func (v *sessionView) windowLinks(link func(...string) string, from, to, n int, at string) {
	v.From, v.To, v.Of = from+1, to, n
	one, what := "entry", "entries"
	if v.Context {
		one, what = "message", "messages"
	}
	switch {
	case n == 0:
		v.Where = "No " + what + " on this branch."
	case n == 1 && to == 1:
		v.Where = "The one " + one + "."
	case from == 0 && to == n:
		v.Where = fmt.Sprintf("All %s %s.", text.Count(int64(n)), what)
	default:
		where := ""
		switch {
		case at != "":
			where = ", around the entry you opened"
		case to == n:
			where = ", the latest"
		case from == 0:
			where = ", the first"
		}
		v.Where = fmt.Sprintf("%s %s–%s of %s%s.", strings.ToUpper(what[:1])+what[1:], text.Count(int64(from+1)), text.Count(int64(to)), text.Count(int64(n)), where)
	}
	if from > 0 {
		v.FirstURL = link("from", "0")
		v.EarlierURL = link("from", strconv.Itoa(max(0, from-window)))
	}
	if to < n {
		v.LaterURL = link("from", strconv.Itoa(to))
		v.LastURL = link() // the default window: the end
	}
}

// searchResult is a search's answer, for the page and the API: one page
// of hits (or sessions) and where it lies in the whole answer.
type searchResult struct {
	opts         pidex.SearchOptions
	sessionsOnly bool
	hits         []pidex.Hit
	sessions     []pidex.SessionHits
	page         view.SearchPage
}

func (s *Server) search(r *http.Request) (*searchResult, error) {
	o, err := s.searchOptions(r)
	if err != nil {
		return nil, err
	}
	res := &searchResult{opts: o, sessionsOnly: boolParam(r.URL.Query(), "sessionsOnly")}
	totals, err := s.cat.SearchTotals(r.Context(), o)
	if err != nil {
		return nil, err
	}
	shown := 0
	if res.sessionsOnly {
		res.sessions, err = s.cat.SearchSessions(r.Context(), o)
		shown = len(res.sessions)
	} else {
		res.hits, err = s.cat.Search(r.Context(), o)
		shown = len(res.hits)
	}
	res.page = view.NewSearchPage(totals, o.Offset, o.Limit, shown, res.sessionsOnly)
	return res, err
}

// offsetURL is the request's URL with another offset (0: none), for the
// links to the pages before and after.
func offsetURL(u *url.URL, offset int) string {
	q := u.Query()
	q.Del("partial")
	q.Del("offset")
	if offset > 0 {
		q.Set("offset", strconv.Itoa(offset))
	}
	return u.Path + "?" + q.Encode()
}

type searchView struct {
	Form     url.Values
	Query    string
	Error    string
	Hits     []hitView
	Groups   []hitGroupView // the hits by session, with ?group=session
	Sessions []sessionHitView
	Indexed  string // "42% of the text is indexed so far", when it is not all
	Roles    []string
	Limits   []int
	Count    string // "hits 21–40 of 1,234 in 56 sessions"
	PrevURL  string
	NextURL  string
}

type hitView struct {
	URL      string
	Title    string
	Project  string
	Role     string
	Time     *pidex.Time
	Segments []pidex.Segment
}

// hitGroupView is a session and its hits on the page.
type hitGroupView struct {
	URL     string
	Title   string
	Project string
	Hits    []hitView
}

type sessionHitView struct {
	URL     string
	Title   string
	Project string
	Hits    int64
}

// searchLimits are the page sizes the page offers.
var searchLimits = []int{20, 50, 100}

func (s *Server) searchPage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	v := searchView{Form: q, Query: q.Get("q"), Roles: s.cat.Vocabulary().RoleGroups, Limits: searchLimits}
	code := http.StatusOK
	if v.Query != "" {
		res, err := s.search(r)
		switch {
		case err != nil:
			if !s.formError(w, r, err, &v.Error, &code) {
				return
			}
		case res.sessionsOnly:
			handle, err := s.resultHandles(r, res)
			if err != nil {
				s.httpError(w, r, err)
				return
			}
			for _, sh := range res.sessions {
				// A session opened from a search highlights the query in it.
				v.Sessions = append(v.Sessions, sessionHitView{URL: sessionURL(handle(sh.Path, sh.Machine), "q", v.Query),
					Title: view.Title(sh.Name, sh.FirstMessage, 120), Project: view.Project(sh.Cwd), Hits: sh.Hits})
			}
		default:
			handle, err := s.resultHandles(r, res)
			if err != nil {
				s.httpError(w, r, err)
				return
			}
			hv := func(h *pidex.Hit) hitView {
				return hitView{URL: entryURL(handle(h.Path, h.Machine), h.EntryID, "q", v.Query),
					Title: view.Title(&h.Name, h.FirstMessage, 120), Project: view.Project(h.Cwd), Role: h.Role, Time: h.Timestamp, Segments: h.Segments}
			}
			if q.Get("group") == "session" {
				for _, g := range view.GroupHits(res.hits) {
					gv := hitGroupView{URL: sessionURL(handle(g.Path, g.Hits[0].Machine), "q", v.Query),
						Title: view.Title(&g.Hits[0].Name, g.Hits[0].FirstMessage, 120), Project: view.Project(g.Hits[0].Cwd)}
					for i := range g.Hits {
						h := hv(&g.Hits[i])
						h.Title = "" // the group's heading names the session
						gv.Hits = append(gv.Hits, h)
					}
					v.Groups = append(v.Groups, gv)
				}
			} else {
				for i := range res.hits {
					v.Hits = append(v.Hits, hv(&res.hits[i]))
				}
			}
		}
		if err == nil {
			v.Count = res.page.String()
			if res.page.Prev >= 0 {
				v.PrevURL = offsetURL(r.URL, res.page.Prev)
			}
			if res.page.Next >= 0 {
				v.NextURL = offsetURL(r.URL, res.page.Next)
			}
		}
		if indexed, total, err := s.cat.TextCoverage(r.Context()); err == nil {
			if note := view.Coverage(indexed, total); note != "" {
				v.Indexed = note + "; results will grow"
			}
		}
	}
	title := "Search"
	if v.Query != "" {
		title = v.Query + " · Search"
	}
	s.renderPage(w, r, code, "search", page{Title: title, Nav: "search", Data: v})
}

// spawn fills in a session page's subagents, and the session that
// started it with a link when the catalog holds it.
func (s *Server) spawn(r *http.Request, ref pidex.SessionRef, v *sessionView) error {
	ctx := r.Context()
	subs, err := s.cat.Subagents(ctx, ref)
	if err != nil {
		return err
	}
	if v.Subagents, err = s.sessionRows(r, subs, 1); err != nil {
		return err
	}
	if v.SpawnedBy = v.Info.SpawnedBy; v.SpawnedBy == "" {
		return nil
	}
	v.Run = view.RunLabel(v.Info.Run)
	parent, err := s.cat.Resolve(ctx, v.SpawnedBy, ref.Machine)
	if errors.Is(err, pidex.ErrNotFound) {
		return nil // gone: named, not linked
	} else if err != nil {
		return err
	}
	info, err := s.cat.Info(ctx, parent)
	if err != nil {
		return err
	}
	handles, err := s.handles(r, []pidex.SessionRef{parent})
	if err != nil {
		return err
	}
	v.ParentURL, v.ParentTitle = sessionURL(handles[0]), view.SessionTitle(&info, 120)
	return nil
}
