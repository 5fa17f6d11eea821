package mcp

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/view"
)

type searchArgs struct {
	Query        string      `json:"query" jsonschema:"what to find. Words match whatever their case and accents; code is found as typed (parse_header, session-manager.ts, ERR_MODULE_NOT_FOUND); \"a phrase\"; prefix*; a OR b; -excluded; (grouping). Several words must all occur in one entry."`
	Where        pidex.Where `json:"where,omitempty" filters:"search"` // the registry's filters: project, cwd, agent, model, …
	Session      string      `json:"session,omitempty" jsonschema:"only this session: an id, a unique prefix of one, a name, or a path"`
	Role         string      `json:"role,omitempty" jsonschema:"only entries of this role: user (what the user typed), assistant (replies, thinking, tool calls), tool (tool results, bash output), summary (compactions, branch summaries)"`
	Since        string      `json:"since,omitempty" jsonschema:"only entries at or after: a date (2026-11-01), an RFC 3339 time, or a duration back from now (12h, 7d, 2w)"`
	Until        string      `json:"until,omitempty" jsonschema:"only entries before this (a bare date includes that day)"`
	Branch       string      `json:"branch,omitempty" jsonschema:"all (default): every branch of every session; active: only entries on a session's current branch"`
	Sort         string      `json:"sort,omitempty" jsonschema:"relevance (default: best match first, recent first among equals) or newest"`
	SessionsOnly bool        `json:"sessions_only,omitempty" jsonschema:"one row per matching session with its number of hits, instead of one row per matching entry"`
	Limit        int         `json:"limit,omitempty" jsonschema:"at most this many hits (or sessions) in this page" cursor:"page"`
	MaxChars     int         `json:"max_chars,omitempty" jsonschema:"character budget of the whole result" cursor:"page"`
	Machine      string      `json:"machine,omitempty" jsonschema:"team catalog: only this machine's sessions (each result names its machine)"`
	Cursor       string      `json:"cursor,omitempty" jsonschema:"next_cursor of a previous result, to get its next page" cursor:"-"`
}

type searchResult struct {
	Query    string       `json:"query"`
	Totals   totalsOut    `json:"totals" jsonschema:"what the whole search matches, past this page"`
	Hits     []hitOut     `json:"hits" jsonschema:"matching entries, best first (or newest first); empty with sessions_only"`
	Sessions []sessionHit `json:"sessions" jsonschema:"with sessions_only: matching sessions, best first; else empty"`
	Note     string       `json:"note,omitempty" jsonschema:"said when part of the text is not indexed yet"`
	page
}

// totalsOut count what a search matches (pidex.SearchTotals).
type totalsOut struct {
	Hits     int  `json:"hits" jsonschema:"matching entries"`
	Sessions int  `json:"sessions" jsonschema:"sessions holding them"`
	AtLeast  bool `json:"at_least" jsonschema:"counting stopped early (it stops at pidex's cap, 10,000 entries): there are more hits, and sessions counts the sessions of those counted"`
}

type hitOut struct {
	Session sessionRef `json:"session"`
	Project string     `json:"project" jsonschema:"last element of the session's working directory"`
	Cwd     string     `json:"cwd"`
	EntryID string     `json:"entry_id"`
	Role    string     `json:"role" jsonschema:"message role (user, assistant, toolResult, bashExecution, custom, …) or entry type (compaction, branch_summary, label, session_info)"`
	Time    string     `json:"time" jsonschema:"the entry's time, ISO 8601 UTC; empty when unknown"`
	Snippet string     `json:"snippet" jsonschema:"about 160 characters around the first match, matches in **bold**"`
	Open    openRef    `json:"open" jsonschema:"the read_session arguments that show this hit in its conversation"`
	Line    int64      `json:"line" jsonschema:"the entry's line in the session file"`
}

// openRef is the call that opens a hit: read_session with these.
type openRef struct {
	Session string `json:"session"`
	Around  string `json:"around"`
	Machine string `json:"machine,omitempty" jsonschema:"team catalog: the session's machine"`
}

type sessionHit struct {
	Session  sessionRef `json:"session"`
	Project  string     `json:"project"`
	Cwd      string     `json:"cwd"`
	Hits     int64      `json:"hits" jsonschema:"entries of the session that match"`
	Modified string     `json:"modified" jsonschema:"the session's last activity, ISO 8601 UTC"`
}

const searchDesc = `Search the text of every pi session the user has had, in every project and on every branch: user and assistant messages, thinking, tool calls and their results, bash commands and output, summaries, session names and labels. Use it to recall what was decided, which session fixed an error, where a file or command came up.
Each hit gives the session, project, role, time, a snippet with the matches in **bold**, and open: the read_session arguments that show it in its conversation. sessions_only=true lists matching sessions with their hit counts instead.
Query language: words (all must occur; case and accents ignored), "a phrase", prefix*, a OR b, -exclude, (grouping); code as typed (parse_header, src/query/path.go, ERR_MODULE_NOT_FOUND). Results are bounded (limit, max_chars); next_cursor gets the next page.`

func (s *Server) addSearch() {
	v := s.cat.Vocabulary()
	addTool(s, toolSpec[searchArgs, searchResult]{
		name: "search_sessions", title: "Search sessions", desc: searchDesc, text: true, quotes: true,
		patch: func(sc *jsonschema.Schema) {
			enum(sc, "role", v.RoleGroups...)
			enum(sc, "branch", pidex.BranchAll, pidex.BranchActive)
			enum(sc, "sort", pidex.SortRelevance, pidex.SortNewest)
			bounds(sc, "limit", 1, pidex.MaxPageLimit, pidex.DefaultPageLimit)
			bounds(sc, "max_chars", pidex.MinBudget, pidex.MaxBudget, pidex.DefaultBudget)
		},
		run: s.search,
	})
}

func (s *Server) search(ctx context.Context, in *searchArgs) (reply[searchResult], error) {
	var r reply[searchResult]
	offset, limit, budget, err := s.paged("search_sessions", in.Cursor, in, &in.Limit, pidex.DefaultPageLimit, pidex.MaxPageLimit, &in.MaxChars)
	if err != nil {
		return r, err
	}
	o := pidex.SearchOptions{Query: in.Query, Where: in.Where, Role: in.Role,
		Since: in.Since, Until: in.Until, Branch: in.Branch, Sort: in.Sort, Limit: limit + 1, Offset: offset, Machine: s.machine(in.Machine)}
	if in.Session != "" {
		ref, err := s.session(ctx, in.Session, o.Machine)
		if err != nil {
			return r, err
		}
		o.Session = ref.Path
	}
	out := searchResult{Query: in.Query, Hits: []hitOut{}, Sessions: []sessionHit{}}
	out.Offset = offset
	indexed, total, err := s.cat.TextCoverage(ctx)
	if err != nil {
		return r, err
	}
	if note := view.Coverage(indexed, total); note != "" {
		out.Note = note + ": some matches may be missing until indexing finishes"
	}
	totals, err := s.cat.SearchTotals(ctx, o)
	if err != nil {
		return r, err
	}
	out.Totals = totalsOut{Hits: totals.Hits, Sessions: totals.Sessions, AtLeast: totals.AtLeast}
	var lines []string // one block of text per hit or session
	more := false
	shared := map[string]string{}
	if in.SessionsOnly {
		ss, err := s.cat.SearchSessions(ctx, o)
		if err != nil {
			return r, err
		}
		more = len(ss) > limit
		for i := range ss[:min(len(ss), limit)] {
			h := &ss[i]
			title := view.Title(h.Name, h.FirstMessage, 80)
			sh := sessionHit{Session: sessionRef{ID: h.SessionID, Title: title, Path: h.Path, Machine: h.Machine}, Project: view.Project(h.Cwd), Cwd: h.Cwd,
				Hits: h.Hits, Modified: h.Modified.String()}
			id := s.handle(ctx, h.SessionID, h.Path, h.Machine, shared)
			ref := quoted(id) + onMachine(h.Machine)
			lines = append(lines, fmt.Sprintf("%d. %s · %s · %s · modified %s\n   session=%s — its hits: search_sessions with session=%s; read it: read_session session=%s\n",
				offset+i+1, quoted(title), quoted(sh.Project), hitsWord(h.Hits), shortTime(&h.Modified), ref, ref, ref))
			out.Sessions = append(out.Sessions, sh)
		}
	} else {
		hits, err := s.cat.Search(ctx, o)
		if err != nil {
			return r, err
		}
		more = len(hits) > limit
		for i := range hits[:min(len(hits), limit)] {
			h := &hits[i]
			title := view.Title(&h.Name, h.FirstMessage, 80)
			id := s.handle(ctx, h.SessionID, h.Path, h.Machine, shared)
			ho := hitOut{Session: sessionRef{ID: h.SessionID, Title: title, Path: h.Path, Machine: h.Machine}, Project: view.Project(h.Cwd), Cwd: h.Cwd,
				EntryID: h.EntryID, Role: h.Role, Time: isoTime(h.Timestamp), Snippet: bolded(h.Segments),
				Open: openRef{Session: id, Around: h.EntryID, Machine: h.Machine}, Line: h.Line}
			lines = append(lines, fmt.Sprintf("%d. %s · %s · %s · %s\n%s   open: read_session session=%s around=%s\n",
				offset+i+1, quoted(title), quoted(ho.Project), oneLine(h.Role), shortTime(h.Timestamp), quoteLines("   ", oneLine(ho.Snippet)), quoted(id)+onMachine(h.Machine), quoted(h.EntryID)))
			out.Hits = append(out.Hits, ho)
		}
	}
	// Fit the page to its budget: a reserve for the header and the notes.
	n := len(lines)
	item := func(i int) int {
		if in.SessionsOnly {
			return size(lines[i], out.Sessions[i])
		}
		return size(lines[i], out.Hits[i])
	}
	keep := view.Take(n, budget.Chars-reserve, item)
	if keep < n {
		out.Hits, out.Sessions, lines = out.Hits[:min(keep, len(out.Hits))], out.Sessions[:min(keep, len(out.Sessions))], lines[:keep]
		out.Truncated = budgetNote(keep, budget.Chars)
		more = true
	}
	out.Returned = len(lines)
	if more {
		out.NextCursor = encodeCursor("search_sessions", cursorKey(*in), offset+len(lines), "")
	}
	what := "hits"
	if in.SessionsOnly {
		what = "sessions"
	}
	var b strings.Builder
	order := "best first"
	if in.Sort == pidex.SortNewest {
		order = "newest first"
	}
	switch {
	case out.Returned == 0 && offset == 0:
		fmt.Fprintf(&b, "No %s for %s.", what, quoted(in.Query))
		if len(in.Where) > 0 || in.Session != "" || in.Role != "" || in.Since != "" || in.Until != "" || in.Branch == pidex.BranchActive {
			b.WriteString(" Fewer filters, fewer words or a prefix* may find more.")
		} else {
			b.WriteString(" Other words, fewer words, a prefix* or OR may find more.")
		}
		b.WriteString("\n")
	case out.Returned == 0:
		fmt.Fprintf(&b, "No more %s for %s.\n", what, quoted(in.Query))
	default: // "Hits 1–3 of 60 in 21 sessions for …", as the CLI says it
		p := view.NewSearchPage(totals, offset, limit, out.Returned, in.SessionsOnly).String()
		fmt.Fprintf(&b, "%s for %s, %s.\n\n", strings.ToUpper(p[:1])+p[1:], quoted(in.Query), order)
	}
	for _, l := range lines {
		b.WriteString(l)
		b.WriteString("\n")
	}
	if out.Note != "" {
		b.WriteString("Note: " + out.Note + ".\n")
	}
	b.WriteString(pageNote(out.page, what))
	r.data, r.text = out, strings.TrimRight(b.String(), "\n")
	return r, nil
}

// reserve is what a page keeps of its budget for its header and notes.
const reserve = 1_000

func hitsWord(n int64) string {
	if n == 1 {
		return "1 hit"
	}
	return count(n) + " hits"
}

// bolded is a snippet with its matches in Markdown bold.
func bolded(segs []pidex.Segment) string {
	var b strings.Builder
	for _, s := range segs {
		if s.Hit {
			b.WriteString("**" + s.Text + "**")
		} else {
			b.WriteString(s.Text)
		}
	}
	return b.String()
}
