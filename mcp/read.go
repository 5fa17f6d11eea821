package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/render"
	"github.com/pidex-dev/pidex/internal/text"
	"github.com/pidex-dev/pidex/internal/view"
)

// read_session and get_context: a window of a branch's entries, or of the
// model context's messages, bounded by a budget (view.Fit).

type readArgs struct {
	Session         string   `json:"session" jsonschema:"the session: an id (as search_sessions and list_sessions give it), a unique prefix of one, a name, or a path"`
	Leaf            string   `json:"leaf,omitempty" jsonschema:"read the branch that ends at this entry (get_session lists each branch's leaf); default: the current branch, or with around the branch through that entry"`
	Around          string   `json:"around,omitempty" jsonschema:"center the window on this entry: a search hit's entry_id" cursor:"position"`
	Offset          *int     `json:"offset,omitempty" jsonschema:"start the window at this position on the branch (0 is its first entry); default: its last entries" cursor:"position"`
	Limit           int      `json:"limit,omitempty" jsonschema:"entries in the window" cursor:"page"`
	Roles           []string `json:"roles,omitempty" jsonschema:"only these kinds of entry: user, assistant, tool (tool results, bash), summary (compactions, branch summaries), custom, system, other, meta (model changes, labels, …)" cursor:"page"`
	Thinking        bool     `json:"thinking,omitempty" jsonschema:"show the model's thinking (folded to its size by default)" cursor:"page"`
	ToolOutput      bool     `json:"tool_output,omitempty" jsonschema:"show tool results and whole tool-call arguments (folded to their size by default)" cursor:"page"`
	MaxMessageChars int      `json:"max_message_chars,omitempty" jsonschema:"characters kept of each entry before it is cut" cursor:"page"`
	MaxChars        int      `json:"max_chars,omitempty" jsonschema:"character budget of the whole result" cursor:"page"`
	Machine         string   `json:"machine,omitempty" jsonschema:"team catalog: the session's machine, when its id is on several (a search hit's open gives it)"`
	Cursor          string   `json:"cursor,omitempty" jsonschema:"next_cursor or prev_cursor of a previous result, to move the window" cursor:"-"`
}

type readResult struct {
	Session       sessionRef `json:"session"`
	Leaf          string     `json:"leaf" jsonschema:"the entry the branch ends at"`
	CurrentLeaf   bool       `json:"current_leaf" jsonschema:"it is the session's current leaf (where pi resumes)"`
	Resume        *resumeOut `json:"resume,omitempty" jsonschema:"how the user continues the session from this leaf in the agent that wrote it"`
	Model         string     `json:"model" jsonschema:"provider/model in effect at the leaf"`
	ThinkingLevel string     `json:"thinking_level"`
	Total         int        `json:"total" jsonschema:"entries on the branch (get_context: messages in the context)"`
	From          int        `json:"from" jsonschema:"the window: positions from (included) …"`
	To            int        `json:"to" jsonschema:"… to (excluded)"`
	Items         []itemOut  `json:"items"`
	Truncated     string     `json:"truncated,omitempty" jsonschema:"what was cut, folded or left out, and how to get it; absent when nothing was"`
	NextCursor    string     `json:"next_cursor,omitempty" jsonschema:"pass as cursor for the entries after the window"`
	PrevCursor    string     `json:"prev_cursor,omitempty" jsonschema:"pass as cursor for the entries before the window"`
}

type itemOut struct {
	Position int    `json:"position" jsonschema:"place on the branch (or in the context), from 0"`
	ID       string `json:"id" jsonschema:"entry id (pass as around or leaf)"`
	Line     int64  `json:"line" jsonschema:"line in the session file"`
	Role     string `json:"role" jsonschema:"user, assistant, tool, summary, custom, system, other or meta"`
	Title    string `json:"title"`
	Detail   string `json:"detail,omitempty"`
	Time     string `json:"time,omitempty"`
	Label    string `json:"label,omitempty"`
	Note     string `json:"note,omitempty" jsonschema:"how it stands to the model context: compacted, not in context, edited by …"`
	Text     string `json:"text" jsonschema:"the entry as text, folded and cut as the truncated note says"`
}

const readDesc = `Read a pi session's conversation: a window of the entries on one branch (by default the last entries of the current branch), as text — user and assistant messages, tool calls, summaries, labels. Open a search hit with around=its entry_id; page with next_cursor/prev_cursor, or offset. Thinking and tool output are folded to their size unless thinking=true / tool_output=true; each entry is cut at max_message_chars and the whole at max_chars, and the result says what was cut and how to get it. roles keeps only some kinds of entry (e.g. ["user","assistant"]).`

const contextDesc = `Show exactly what pi would send the model if this session were resumed at a leaf (the current one by default): the messages of its rebuilt context — a compaction's summary instead of what it replaced, branch summaries, custom messages, edited tool results — in order, with the model and thinking level in effect. Same window, folding and budget arguments as read_session; positions count messages, not entries.`

func (s *Server) addRead() {
	v := s.cat.Vocabulary()
	patch := func(sc *jsonschema.Schema) {
		enum(sc, "roles", v.Classes...)
		bounds(sc, "limit", 1, pidex.MaxReadWindow, pidex.DefaultReadWindow)
		bounds(sc, "offset", 0, 1<<31-1, 0)
		bounds(sc, "max_message_chars", pidex.MinItemBudget, pidex.MaxBudget, pidex.DefaultItemBudget)
		bounds(sc, "max_chars", pidex.MinBudget, pidex.MaxBudget, pidex.DefaultBudget)
	}
	rename := map[string]string{"maxItemChars": "max_message_chars", "classes": "roles"}
	addTool(s, toolSpec[readArgs, readResult]{name: "read_session", title: "Read a session", desc: readDesc, patch: patch, rename: rename, quotes: true,
		run: func(ctx context.Context, in *readArgs) (reply[readResult], error) {
			return s.read(ctx, "read_session", in, false)
		}})
	addTool(s, toolSpec[readArgs, readResult]{name: "get_context", title: "Model context", desc: contextDesc, patch: patch, rename: rename, quotes: true,
		run: func(ctx context.Context, in *readArgs) (reply[readResult], error) {
			return s.read(ctx, "get_context", in, true)
		}})
}

func (s *Server) read(ctx context.Context, tool string, in *readArgs, asContext bool) (reply[readResult], error) {
	var r reply[readResult]
	w := pidex.Window{From: -1, Around: in.Around, Centre: true}
	leaf := in.Leaf
	if in.Cursor != "" {
		c, err := decodeCursor(tool, in.Cursor)
		if err != nil {
			return r, err
		}
		if err := resume(tool, c, in); err != nil {
			return r, err
		}
		w.From, leaf = c.Offset, c.Leaf
	}
	if in.Offset != nil && in.Around != "" {
		return r, pidex.Usagef("give offset or around, not both")
	}
	if in.Offset != nil {
		w.From = *in.Offset
		if w.From < 0 {
			return r, &pidex.OptionError{Option: "offset", Value: fmt.Sprint(w.From), Want: "want a position, 0 or more"}
		}
	}
	var err error
	if w.Size, err = pidex.Bounded("limit", in.Limit, pidex.DefaultReadWindow, 1, pidex.MaxReadWindow); err != nil {
		return r, err
	}
	budget, err := pidex.BudgetOptions{Chars: in.MaxChars, ItemChars: in.MaxMessageChars, Thinking: in.Thinking, ToolOutput: in.ToolOutput,
		Classes: in.Roles}.Filter(s.cat.Vocabulary())
	if err != nil {
		return r, err
	}
	ref, err := s.session(ctx, in.Session, s.machine(in.Machine))
	if err != nil {
		return r, err
	}
	if leaf == "" && in.Around != "" && !asContext {
		if leaf, err = s.cat.BranchThrough(ctx, ref, in.Around); err != nil {
			return r, entryError(err, "around", in.Around, ref)
		}
	}
	// A branch reads only the entries its window shows (a 200 MB tool
	// result elsewhere costs nothing), a context every message of the
	// branch; a line over pidex.ReadCutLine is read cut either way (its
	// strings keep their first ReadCutString bytes, and its item says it
	// was cut), so that a huge tool result costs kilobytes, not gigabytes.
	doc, err := s.cat.Read(ctx, ref, pidex.ReadOptions{Leaf: leaf, Context: asContext, Window: w})
	if err != nil {
		return r, entryError(err, "leaf", leaf, ref)
	}
	if w.From > doc.From {
		// The window's span pulls a last page back to fill it; a page asked
		// for by position starts exactly there, so that pages never overlap.
		skip := min(w.From-doc.From, len(doc.Items))
		doc.Items, doc.From = doc.Items[skip:], doc.From+skip
	}
	if in.Around != "" && !hasItem(doc, in.Around) {
		if asContext {
			return r, pidex.Usagef("around: entry %q puts no message in the model context at this leaf (read_session shows every entry)", in.Around)
		}
		return r, pidex.Usagef("around: entry %q is not on the branch ending at %s (leave out leaf to read the branch through it)", in.Around, doc.Leaf)
	}
	out := readResult{Session: sessionRef{ID: ref.SessionID, Title: ref.Name, Path: ref.Path, Machine: ref.Machine}, Leaf: doc.Leaf, CurrentLeaf: doc.Current,
		Model: doc.Model, ThinkingLevel: doc.Thinking, Total: doc.Total, From: doc.From, To: doc.To, Items: []itemOut{}}
	if out.Session.Title == "" {
		if info, err := s.cat.Info(ctx, ref); err == nil {
			out.Session.Title = view.SessionTitle(&info, 80)
		}
	}
	if res, err := s.cat.Resume(ctx, ref, pidex.ResumeOptions{Leaf: doc.Leaf}); err == nil {
		out.Resume = resumeOf(res)
	}
	head := readHeader(doc, &out, asContext)
	opts := render.ShowOptions{Thinking: true, Full: budget.ToolOutput}
	itemOf := func(it *pidex.DocItem) (string, itemOut) {
		_, body := render.ItemLines(doc, it, opts)
		o := itemOut{Position: it.N - 1, ID: it.ID, Line: it.Line, Role: it.Class, Title: it.Title, Detail: it.Detail,
			Time: isoTime(it.Time), Label: it.Label, Note: it.Note, Text: strings.Join(body, "\n")}
		var t strings.Builder
		t.WriteString(itemHead(it, o))
		t.WriteString(quoteLines("  ", body...))
		t.WriteString("\n")
		return t.String(), o
	}
	// Fit measures the items it keeps, in order, and at most one more (the
	// one that did not fit): each is rendered once, here.
	type rendered struct {
		text string
		item itemOut
	}
	var measured []rendered
	cuts := view.Fit(doc, budget, budget.Chars-chars(head)-reserve, func(it *pidex.DocItem) int {
		t, o := itemOf(it)
		measured = append(measured, rendered{t, o})
		return size(t, o)
	})
	var b strings.Builder
	b.WriteString(head)
	for _, r := range measured[:len(doc.Items)] {
		b.WriteString(r.text)
		out.Items = append(out.Items, r.item)
	}
	next := -1
	switch {
	case cuts.Stopped:
		next = cuts.Next
	case doc.To < doc.Total:
		next = doc.To
	}
	if next >= 0 {
		out.NextCursor = encodeCursor(tool, cursorKey(*in), next, doc.Leaf)
	}
	if doc.From > 0 {
		out.PrevCursor = encodeCursor(tool, cursorKey(*in), max(0, doc.From-w.Size), doc.Leaf)
	}
	out.Truncated = cutNote(cuts, budget, doc, in, asContext)
	if len(doc.Items) == 0 {
		what := "entries"
		if asContext {
			what = "messages"
		}
		if doc.Total == 0 {
			fmt.Fprintf(&b, "(no %s)\n", what)
		} else {
			fmt.Fprintf(&b, "(no %s of the kinds asked in this window)\n", what)
		}
	}
	if out.Truncated != "" {
		b.WriteString("\n" + out.Truncated + "\n")
	}
	if out.NextCursor != "" {
		fmt.Fprintf(&b, "Later: cursor=%s\n", quoted(out.NextCursor))
	}
	if out.PrevCursor != "" {
		fmt.Fprintf(&b, "Earlier: cursor=%s\n", quoted(out.PrevCursor))
	}
	r.data, r.text = out, strings.TrimRight(b.String(), "\n")
	return r, nil
}

// itemHead is an item's first line: "[POSITION] title · id · time ·
// detail · label · note", the position being what offset takes.
func itemHead(it *pidex.DocItem, o itemOut) string {
	parts := []string{fmt.Sprintf("[%d] %s", o.Position, oneLine(it.Title)), oneLine(it.ID)}
	if it.Time != nil {
		parts = append(parts, it.Time.UTC().Format("2006-01-02 15:04:05"))
	}
	if it.Detail != "" { // metadata, its names and labels already quoted (pi's Shown)
		parts = append(parts, oneLine(it.Detail))
	}
	if it.Label != "" {
		parts = append(parts, "label "+quoted(it.Label))
	}
	if it.Note != "" {
		parts = append(parts, "("+it.Note+")")
	}
	if it.CutBytes > 0 {
		// A line too long to read whole was read cut (its long strings keep
		// their first 4 KiB), so that memory does not grow with it.
		parts = append(parts, "("+text.Bytes(it.CutBytes)+" line, its long strings cut when read)")
	}
	return strings.Join(parts, " · ") + "\n"
}

// readHeader describes the session, the branch and the window.
func readHeader(doc *pidex.Document, out *readResult, asContext bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Session %s  %s\n", out.Session.ID, quoted(out.Session.Title))
	cur := ""
	if doc.Current {
		cur = " (the current leaf)"
	}
	what := text.Plural(doc.Total, "entry", "entries")
	if asContext {
		what = text.Plural(doc.Total, "message", "messages")
		fmt.Fprintf(&b, "Model context at leaf %s%s: %s %s\n", doc.Leaf, cur, count(doc.Total), what)
	} else {
		fmt.Fprintf(&b, "Branch ending at %s%s: %s %s\n", doc.Leaf, cur, count(doc.Total), what)
	}
	model, level := doc.Model, doc.Thinking
	if model == "" {
		model = "none"
	}
	if level == "" {
		level = "unknown"
	}
	fmt.Fprintf(&b, "Model %s, thinking %s\n", oneLine(model), oneLine(level))
	if out.Resume != nil {
		b.WriteString(resumeLines(&pidex.Resume{Command: out.Resume.Command, Notes: out.Resume.Notes}))
	}
	if doc.Total > 0 {
		fmt.Fprintf(&b, "Window: positions %d–%d of 0–%d (offset takes a position; [N] below is each one's)\n", doc.From, max(doc.From, doc.To-1), doc.Total-1)
	}
	b.WriteString("\n")
	return b.String()
}

// cutNote says what the budget folded, cut and left out, and which
// arguments get it.
func cutNote(c pidex.Cuts, b pidex.Budget, doc *pidex.Document, in *readArgs, asContext bool) string {
	var parts []string
	if len(c.Cut) > 0 {
		ids := c.Cut
		if len(ids) > 5 {
			ids = append(ids[:5:5], "…")
		}
		parts = append(parts, fmt.Sprintf("%d %s cut at %s characters (%s): read one whole with around=ID limit=1 and a larger max_message_chars",
			len(c.Cut), text.Plural(len(c.Cut), "entry", "entries"), count(b.ItemChars), strings.Join(ids, ", ")))
	}
	if c.Thinking > 0 {
		parts = append(parts, fmt.Sprintf("%d thinking %s folded (thinking=true shows %s)", c.Thinking, text.Plural(c.Thinking, "block", "blocks"), text.Plural(c.Thinking, "it", "them")))
	}
	if c.ToolOutput > 0 {
		parts = append(parts, fmt.Sprintf("%d tool %s folded (tool_output=true shows %s)", c.ToolOutput, text.Plural(c.ToolOutput, "output", "outputs"), text.Plural(c.ToolOutput, "it", "them")))
	}
	if c.Filtered > 0 {
		parts = append(parts, fmt.Sprintf("%d %s of other roles left out (roles=%s)", c.Filtered, text.Plural(c.Filtered, "entry", "entries"), strings.Join(in.Roles, ",")))
	}
	if c.Stopped {
		parts = append(parts, fmt.Sprintf("stopped at position %d to stay within %s characters (max_chars): next_cursor continues there", c.Next, count(b.Chars)))
	}
	if len(parts) == 0 {
		return ""
	}
	return "Left out: " + strings.Join(parts, "; ") + "."
}

func hasItem(doc *pidex.Document, id string) bool {
	for _, it := range doc.Items {
		if it.ID == id {
			return true
		}
	}
	return false
}

// entryError words an unknown entry for the argument that named it.
func entryError(err error, arg, id string, ref pidex.SessionRef) error {
	var nf *sessionNotFound
	if id == "" || !errors.Is(err, pidex.ErrNotFound) || errors.As(err, &nf) {
		return err
	}
	return pidex.Usagef("%s: session %s has no entry %q (entry ids come from search_sessions hits, get_session and read_session)", arg, ref.SessionID, id)
}
