package mcp

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/text"
	"github.com/pidex-dev/pidex/internal/view"
)

// list_sessions and get_session.

type listArgs struct {
	Where    pidex.Where `json:"where,omitempty" filters:"list"` // the registry's filters: project, cwd, name, agent, …
	Since    string      `json:"since,omitempty" jsonschema:"only sessions active at or after: a date (2026-11-01), an RFC 3339 time, or a duration back from now (12h, 7d, 2w)"`
	Until    string      `json:"until,omitempty" jsonschema:"only sessions last active before this (a bare date includes that day)"`
	Sort     string      `json:"sort,omitempty" jsonschema:"modified (default: most recently active first), created, cost (most expensive first) or size (largest first)"`
	Limit    int         `json:"limit,omitempty" jsonschema:"at most this many sessions in this page" cursor:"page"`
	MaxChars int         `json:"max_chars,omitempty" jsonschema:"character budget of the whole result" cursor:"page"`
	Machine  string      `json:"machine,omitempty" jsonschema:"team catalog: only this machine's sessions (each result names its machine)"`
	Cursor   string      `json:"cursor,omitempty" jsonschema:"next_cursor of a previous result, to get its next page" cursor:"-"`
}

type listResult struct {
	Sessions []sessionOut `json:"sessions"`
	Total    int          `json:"total" jsonschema:"sessions matching the filters, in all pages"`
	page
}

type sessionOut struct {
	Session       sessionRef `json:"session"`
	Name          string     `json:"name" jsonschema:"the session's name; empty when it has none"`
	Project       string     `json:"project" jsonschema:"last element of the working directory"`
	Cwd           string     `json:"cwd"`
	Created       string     `json:"created" jsonschema:"ISO 8601 UTC; empty when unknown"`
	Modified      string     `json:"modified" jsonschema:"last user or assistant message, ISO 8601 UTC"`
	Messages      int64      `json:"messages"`
	Entries       int64      `json:"entries"`
	BranchPoints  int64      `json:"branch_points" jsonschema:"entries where the conversation forked (get_session lists them)"`
	Models        []string   `json:"models" jsonschema:"provider/model of every LLM call"`
	Tokens        float64    `json:"tokens" jsonschema:"total tokens of every LLM call in the file"`
	Cost          float64    `json:"cost" jsonschema:"USD, pi's recorded cost of every call in the file"`
	SizeBytes     int64      `json:"size_bytes"`
	ParentSession string     `json:"parent_session,omitempty" jsonschema:"the session file this one was forked from"`
	SpawnedBy     string     `json:"spawned_by,omitempty" jsonschema:"a subagent's session: the file of the session that started it"`
	Run           string     `json:"run,omitempty" jsonschema:"a subagent's run: oh-my-pi's task id, pi-subagents' <run id>/run-<i>"`
	// Subagents are beneath a session of list_sessions and get_session.
	Subagents []subagentOut `json:"subagents,omitempty" jsonschema:"the subagents this session started (sessions of their own), in the order they started, each followed by those it started in turn"`
}

// subagentOut is a subagent's session beneath the session that started
// it: a flat list in tree order (a schema cannot nest a type in itself).
type subagentOut struct {
	Session  sessionRef `json:"session" jsonschema:"pass its id as session to read_session or get_session"`
	Depth    int        `json:"depth" jsonschema:"1: started by the session above; 2: by the subagent before it of depth 1; …"`
	Run      string     `json:"run"`
	Messages int64      `json:"messages"`
	Cost     float64    `json:"cost" jsonschema:"USD, pi's recorded cost of every call in its file"`
}

const listDesc = `List the user's pi sessions, most recently active first (or by creation, cost or size), with name or first message, project, times, message count, tokens, cost and models; beneath each, the subagents it started (sessions of their own). Filters: project, cwd, name, since, until. Use it to find sessions by when and where they happened; search_sessions finds them by what was said. Results are bounded (limit, max_chars); next_cursor gets the next page.`

func (s *Server) addList() {
	addTool(s, toolSpec[listArgs, listResult]{
		name: "list_sessions", title: "List sessions", desc: listDesc, quotes: true,
		patch: func(sc *jsonschema.Schema) {
			enum(sc, "sort", pidex.ListSorts...)
			bounds(sc, "limit", 1, pidex.MaxPageLimit, pidex.DefaultPageLimit)
			bounds(sc, "max_chars", pidex.MinBudget, pidex.MaxBudget, pidex.DefaultBudget)
		},
		run: s.list,
	})
}

func (s *Server) list(ctx context.Context, in *listArgs) (reply[listResult], error) {
	var r reply[listResult]
	offset, limit, budget, err := s.paged("list_sessions", in.Cursor, in, &in.Limit, pidex.DefaultPageLimit, pidex.MaxPageLimit, &in.MaxChars)
	if err != nil {
		return r, err
	}
	o := pidex.ListOptions{Where: in.Where, Since: in.Since, Until: in.Until, Sort: in.Sort, Machine: s.machine(in.Machine)}
	total, err := s.cat.Count(ctx, o)
	if err != nil {
		return r, err
	}
	o.Limit, o.Offset = limit, offset
	rows, err := s.cat.List(ctx, o)
	if err != nil {
		return r, err
	}
	out := listResult{Sessions: []sessionOut{}, Total: total}
	out.Offset = offset
	var lines []string
	shared := map[string]string{}
	for i := range rows {
		so := sessionInfo(&rows[i])
		id := s.handle(ctx, so.Session.ID, so.Session.Path, so.Session.Machine, shared)
		models := ""
		if len(so.Models) > 0 {
			models = " · " + strings.Join(so.Models, ", ")
		}
		l := fmt.Sprintf("%d. %s · %s%s\n   session=%s · modified %s · %s %s · %s tokens · %s%s\n",
			offset+i+1, quoted(so.Session.Title), quoted(so.Project), oneLine(models), quoted(id)+onMachine(so.Session.Machine), shortTime(&rows[i].Modified),
			count(so.Messages), text.Plural(int(so.Messages), "message", "messages"), count(so.Tokens), money(so.Cost), branchWord(so.BranchPoints))
		if so.SpawnedBy != "" { // listed alone: its parent's file is gone
			l += fmt.Sprintf("   subagent %s of %s\n", oneLine(so.Run), oneLine(so.SpawnedBy))
		}
		var sub []string
		so.Subagents, sub = s.subagents(ctx, rows[i].Subagents, shared, "   ")
		l += strings.Join(sub, "")
		lines = append(lines, l)
		out.Sessions = append(out.Sessions, so)
	}
	keep := view.Take(len(lines), budget.Chars-reserve, func(i int) int { return size(lines[i], out.Sessions[i]) })
	if keep < len(lines) {
		out.Sessions, lines = out.Sessions[:keep], lines[:keep]
		out.Truncated = budgetNote(keep, budget.Chars)
	}
	out.Returned = keep
	if offset+keep < total {
		out.NextCursor = encodeCursor("list_sessions", cursorKey(*in), offset+keep, "")
	}
	var b strings.Builder
	order := map[string]string{"": "most recently active first", pidex.SortModified: "most recently active first",
		pidex.SortCreated: "newest first", pidex.SortCost: "most expensive first", pidex.SortSize: "largest first"}[in.Sort]
	switch {
	case total == 0:
		b.WriteString("No sessions match.")
		if len(in.Where) > 0 || in.Since != "" || in.Until != "" || in.Machine != "" {
			b.WriteString(" Fewer filters may find some.")
		}
		b.WriteString("\n")
	case keep == 0:
		fmt.Fprintf(&b, "No more sessions: all %s were listed.\n", count(total))
	default:
		fmt.Fprintf(&b, "%s %s, %d–%d shown, %s.\n\n", count(total), text.Plural(total, "session", "sessions"), offset+1, offset+keep, order)
	}
	for _, l := range lines {
		b.WriteString(l + "\n")
	}
	b.WriteString(pageNote(out.page, "sessions"))
	r.data, r.text = out, strings.TrimRight(b.String(), "\n")
	return r, nil
}

func branchWord(n int64) string {
	switch n {
	case 0:
		return ""
	case 1:
		return " · 1 branch point"
	}
	return " · " + count(n) + " branch points"
}

// sessionInfo is a listing record as the tools give it.
func sessionInfo(si *pidex.Session) sessionOut {
	so := sessionOut{Session: sessionRef{ID: si.ID, Title: view.SessionTitle(si, 80), Path: si.Path, Machine: si.Machine}, Project: view.Project(si.Cwd), Cwd: si.Cwd,
		Created: isoTime(si.Created), Modified: si.Modified.String(), Messages: si.MessageCount, Entries: si.EntryCount,
		BranchPoints: si.BranchPoints, Models: si.Models, Tokens: si.Tokens.Total, Cost: si.Cost, SizeBytes: si.SizeBytes}
	if so.Models == nil {
		so.Models = []string{}
	}
	if si.Name != nil {
		so.Name = *si.Name
	}
	if si.ParentSessionPath != nil {
		so.ParentSession = *si.ParentSessionPath
	}
	so.SpawnedBy, so.Run = si.SpawnedBy, si.Run
	return so
}

// subagents are a session's subagents as the tools give them, in
// view.Flatten's order (each followed by those it started), each named by
// its handle, and a line for each, after indent, two spaces a level
// deeper.
func (s *Server) subagents(ctx context.Context, subs []pidex.Session, shared map[string]string, indent string) ([]subagentOut, []string) {
	var out []subagentOut
	var lines []string
	for _, si := range view.Flatten(subs, 1) {
		id := s.handle(ctx, si.ID, si.Path, si.Machine, shared)
		o := subagentOut{Session: sessionRef{ID: id, Title: view.SessionTitle(si.Session, 80), Path: si.Path, Machine: si.Machine},
			Depth: si.Depth, Run: si.Run, Messages: si.MessageCount, Cost: si.Cost}
		lines = append(lines, fmt.Sprintf("%s└ subagent %s · session=%s · %s %s · %s · %s\n", indent+strings.Repeat("  ", si.Depth-1), oneLine(view.RunLabel(si.Run)),
			quoted(id)+onMachine(si.Machine), count(si.MessageCount), plural(si.MessageCount, "message", "messages"), money(si.Cost), quoted(o.Session.Title)))
		out = append(out, o)
	}
	return out, lines
}

func plural(n int64, one, many string) string { return text.Plural(int(n), one, many) }

type sessionArgs struct {
	Session  string `json:"session" jsonschema:"the session: an id (as search_sessions and list_sessions give it), a unique prefix of one, a name, or a path"`
	MaxChars int    `json:"max_chars,omitempty" jsonschema:"character budget of the whole result"`
	Machine  string `json:"machine,omitempty" jsonschema:"team catalog: the session's machine, when its id is on several"`
}

type overviewOut struct {
	Session        sessionOut      `json:"session"`
	Tokens         tokensOut       `json:"tokens"`
	LeafID         string          `json:"leaf_id" jsonschema:"the current leaf: where pi resumes; read_session reads the branch ending there"`
	Resume         *resumeOut      `json:"resume,omitempty" jsonschema:"how the user continues the session in the agent that wrote it"`
	AbandonedCost  float64         `json:"abandoned_cost" jsonschema:"USD spent on LLM calls off the current branch (branches the user left)"`
	AbandonedCalls int64           `json:"abandoned_calls"`
	Roots          int             `json:"roots" jsonschema:"entries without a parent (1 for a well-formed session)"`
	BranchPoints   []branchPoint   `json:"branch_points" jsonschema:"entries where the conversation forked, in the order written"`
	Labels         []labelOut      `json:"labels" jsonschema:"labelled entries (pi's /label bookmarks)"`
	Compactions    []compactionOut `json:"compactions" jsonschema:"where pi summarised the context to free room"`
	Truncated      string          `json:"truncated,omitempty" jsonschema:"what the budget left out and how to get it; absent when nothing was"`
}

type tokensOut struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cache_read"`
	CacheWrite float64 `json:"cache_write"`
	Total      float64 `json:"total"`
}

type markOut struct {
	ID      string `json:"id"`
	Kind    string `json:"kind" jsonschema:"message role, or entry type"`
	Time    string `json:"time"`
	Line    int64  `json:"line"`
	Preview string `json:"preview"`
}

type branchPoint struct {
	Entry    markOut     `json:"entry"`
	Branches []branchOut `json:"branches" jsonschema:"its children, in the order written"`
}

type branchOut struct {
	First   markOut `json:"first" jsonschema:"the branch's first entry"`
	Leaf    string  `json:"leaf" jsonschema:"where the branch ends: pass as leaf to read_session to read it"`
	Entries int     `json:"entries" jsonschema:"entries on this side of the fork, sub-branches included"`
	Current bool    `json:"current" jsonschema:"the current leaf lies on this branch"`
}

type labelOut struct {
	Entry    markOut `json:"entry"`
	Label    string  `json:"label"`
	OnBranch bool    `json:"on_current_branch"`
}

type compactionOut struct {
	Entry        markOut `json:"entry" jsonschema:"the compaction; its preview is the start of the summary"`
	TokensBefore int64   `json:"tokens_before" jsonschema:"context size when pi compacted"`
	FirstKept    string  `json:"first_kept" jsonschema:"the first entry kept whole after it"`
	OnBranch     bool    `json:"on_current_branch"`
}

const sessionDesc = `Overview of one pi session: name, project, times, models, tokens, cost and the cost of abandoned branches, the current leaf, every branch point with where each branch ends (pass a branch's leaf to read_session to read it), labels, compactions with their summaries, and the subagents it started (or the session that started it). Use it before reading a long or branched session.`

func (s *Server) addSession() {
	addTool(s, toolSpec[sessionArgs, overviewOut]{
		name: "get_session", title: "Session overview", desc: sessionDesc, quotes: true,
		patch: func(sc *jsonschema.Schema) {
			bounds(sc, "max_chars", pidex.MinBudget, pidex.MaxBudget, pidex.DefaultBudget)
		},
		run: s.overview,
	})
}

func (s *Server) overview(ctx context.Context, in *sessionArgs) (reply[overviewOut], error) {
	var r reply[overviewOut]
	budget, err := pidex.BudgetOptions{Chars: in.MaxChars}.Filter(s.cat.Vocabulary())
	if err != nil {
		return r, err
	}
	ref, err := s.session(ctx, in.Session, s.machine(in.Machine))
	if err != nil {
		return r, err
	}
	ov, err := s.cat.Overview(ctx, ref)
	if err != nil {
		return r, err
	}
	si := &ov.Session
	out := overviewOut{Session: sessionInfo(si), AbandonedCost: ov.AbandonedCost, AbandonedCalls: ov.AbandonedCalls, Roots: ov.Roots,
		Tokens:       tokensOut{Input: si.Tokens.Input, Output: si.Tokens.Output, CacheRead: si.Tokens.CacheRead, CacheWrite: si.Tokens.CacheWrite, Total: si.Tokens.Total},
		BranchPoints: []branchPoint{}, Labels: []labelOut{}, Compactions: []compactionOut{}}
	if si.LeafID != nil {
		out.LeafID = *si.LeafID
	}
	id := s.handle(ctx, si.ID, si.Path, si.Machine, map[string]string{})
	var b strings.Builder
	fmt.Fprintf(&b, "Session %s\n", si.ID)
	if out.Session.Name != "" {
		fmt.Fprintf(&b, "Name: %s\n", quoted(out.Session.Name))
	}
	fmt.Fprintf(&b, "First message: %s\n", quoted(text.Cut(text.OneLine(text.Cut(si.FirstMessage, 1200)), 300)))
	fmt.Fprintf(&b, "Project: %s (cwd %s)\nFile: %s (%s)\n", quoted(out.Session.Project), quoted(si.Cwd), oneLine(si.Path), text.Bytes(si.SizeBytes))
	created := "unknown"
	if si.Created != nil {
		created = shortTime(si.Created)
	}
	fmt.Fprintf(&b, "Created %s · last active %s\n", created, shortTime(&si.Modified))
	fmt.Fprintf(&b, "%s entries, %s messages · current leaf %s\n", count(si.EntryCount), count(si.MessageCount), out.LeafID)
	if len(si.Models) > 0 {
		fmt.Fprintf(&b, "Models: %s\n", oneLine(strings.Join(si.Models, ", ")))
	}
	fmt.Fprintf(&b, "Tokens: %s (input %s, output %s, cache read %s, cache write %s)\n", count(si.Tokens.Total),
		count(si.Tokens.Input), count(si.Tokens.Output), count(si.Tokens.CacheRead), count(si.Tokens.CacheWrite))
	if ov.AbandonedCalls > 0 {
		fmt.Fprintf(&b, "Cost: %s in all; %s of it in %s on abandoned branches\n", money(si.Cost), money(ov.AbandonedCost), callsWord(ov.AbandonedCalls))
	} else {
		fmt.Fprintf(&b, "Cost: %s in all; nothing spent on abandoned branches\n", money(si.Cost))
	}
	if out.Session.ParentSession != "" {
		fmt.Fprintf(&b, "Forked from: %s\n", quoted(out.Session.ParentSession))
	}
	if si.SpawnedBy != "" {
		fmt.Fprintf(&b, "Subagent %s, started by: %s\n", oneLine(si.Run), oneLine(si.SpawnedBy))
	}
	var cut []string
	if res, err := s.cat.Resume(ctx, ref, pidex.ResumeOptions{}); err == nil {
		l := resumeLines(res)
		if chars(b.String())+2*chars(l)+reserve <= budget.Chars { // in the text and the JSON
			b.WriteString(l)
			out.Resume = resumeOf(res)
		} else {
			cut = append(cut, "resume command")
		}
	}
	if ov.Roots > 1 {
		fmt.Fprintf(&b, "%d roots: some entries have no parent in the file\n", ov.Roots)
	}
	room := budget.Chars - chars(b.String()) - reserve
	// Each list gets what the ones before it left; what does not fit is
	// counted and named.
	section := func(title string, n int, line func(i int) (string, any), add func(i int)) {
		if n == 0 {
			return
		}
		lines := make([]string, n)
		sizes := make([]int, n)
		for i := range n {
			l, data := line(i)
			lines[i], sizes[i] = l, size(l, data)
		}
		keep := n
		if room <= 0 {
			keep = 0
		} else {
			keep = view.Take(n, room, func(i int) int { return sizes[i] })
		}
		fmt.Fprintf(&b, "\n%s (%d):\n", title, n)
		for i := range keep {
			b.WriteString(lines[i])
			room -= sizes[i]
			add(i)
		}
		if keep < n {
			fmt.Fprintf(&b, "… %d more left out\n", n-keep)
			cut = append(cut, fmt.Sprintf("%d of %d %s", n-keep, n, strings.ToLower(title)))
		}
	}
	// Its subagents (each a session: get_session and read_session take
	// their ids), theirs beneath them.
	subs, subLines := s.subagents(ctx, si.Subagents, map[string]string{}, "")
	section("Subagents", len(subs), func(i int) (string, any) { return subLines[i], subs[i] },
		func(i int) { out.Session.Subagents = append(out.Session.Subagents, subs[i]) })
	bps := make([]branchPoint, len(ov.BranchPoints))
	section("Branch points", len(ov.BranchPoints), func(i int) (string, any) {
		bp := ov.BranchPoints[i]
		o := branchPoint{Entry: mark(bp.EntryMark), Branches: []branchOut{}}
		var l strings.Builder
		fmt.Fprintf(&l, "- %s %s (%s) %s\n", bp.Kind, bp.ID, shortTime(bp.Time), quoted(o.Entry.Preview))
		for _, br := range bp.Branches {
			bo := branchOut{First: mark(br.EntryMark), Leaf: br.Leaf, Entries: br.Entries, Current: br.Current}
			cur := ""
			if br.Current {
				cur = ", current"
			}
			fmt.Fprintf(&l, "  · %s %s: %s %s%s, ends at %s — read_session session=%s leaf=%s\n", br.Kind, br.ID, count(br.Entries),
				text.Plural(br.Entries, "entry", "entries"), cur, br.Leaf, quoted(id)+onMachine(si.Machine), quoted(br.Leaf))
			fmt.Fprintf(&l, "    %s\n", quoted(bo.First.Preview))
			o.Branches = append(o.Branches, bo)
		}
		bps[i] = o
		return l.String(), o
	}, func(i int) { out.BranchPoints = append(out.BranchPoints, bps[i]) })
	labels := make([]labelOut, len(ov.Labels))
	section("Labels", len(ov.Labels), func(i int) (string, any) {
		lm := ov.Labels[i]
		labels[i] = labelOut{Entry: mark(lm.EntryMark), Label: lm.Label, OnBranch: lm.OnBranch}
		where := "off the current branch"
		if lm.OnBranch {
			where = "on the current branch"
		}
		return fmt.Sprintf("- %s on %s %s (%s), %s: %s\n", quoted(lm.Label), lm.Kind, lm.ID, shortTime(lm.Time), where, quoted(labels[i].Entry.Preview)), labels[i]
	}, func(i int) { out.Labels = append(out.Labels, labels[i]) })
	comps := make([]compactionOut, len(ov.Compactions))
	section("Compactions", len(ov.Compactions), func(i int) (string, any) {
		cm := ov.Compactions[i]
		comps[i] = compactionOut{Entry: mark(cm.EntryMark), TokensBefore: cm.TokensBefore, FirstKept: cm.FirstKept, OnBranch: cm.OnBranch}
		where := "off the current branch"
		if cm.OnBranch {
			where = "on the current branch"
		}
		return fmt.Sprintf("- %s (%s), %s, at %s tokens, kept from %s: %s\n", cm.ID, shortTime(cm.Time), where, count(cm.TokensBefore), cm.FirstKept,
			quoted(comps[i].Entry.Preview)), comps[i]
	}, func(i int) { out.Compactions = append(out.Compactions, comps[i]) })
	if len(cut) > 0 {
		out.Truncated = "Left out to stay within " + count(budget.Chars) + " characters: " + strings.Join(cut, ", ") + "; a larger max_chars shows them."
		fmt.Fprintf(&b, "\n%s\n", out.Truncated)
	}
	fmt.Fprintf(&b, "\nRead it: read_session session=%s (the current branch, its latest entries)\n", quoted(id)+onMachine(si.Machine))
	r.data, r.text = out, strings.TrimRight(b.String(), "\n")
	return r, nil
}

func callsWord(n int64) string {
	if n == 1 {
		return "1 call"
	}
	return count(n) + " calls"
}

// markPreview is how long an overview's previews are.
const markPreview = 200

func mark(m pidex.EntryMark) markOut {
	return markOut{ID: m.ID, Kind: m.Kind, Time: isoTime(m.Time), Line: m.Line, Preview: text.Cut(text.OneLine(text.Cut(m.Preview, 4*markPreview)), markPreview)}
}
