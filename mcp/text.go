package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/render"
	"github.com/pidex-dev/pidex/internal/text"
)

// Shared pieces of the tools' results.

// sessionRef is how a result names a session: enough to pass it to
// another tool (id, or path when two files share the id) and to tell it
// apart (name, or the start of its first message).
type sessionRef struct {
	ID    string `json:"id" jsonschema:"session id: pass it as session to the other tools"`
	Title string `json:"title" jsonschema:"the session's name, else the start of its first message"`
	Path  string `json:"path" jsonschema:"the session file"`
	// Machine is empty on a local catalog (and left out of the JSON).
	Machine string `json:"machine,omitempty" jsonschema:"team catalog: the machine the session is from (pass it as machine with session)"`
}

// page says where a page of a result lies and how to get the rest.
type page struct {
	Offset     int    `json:"offset" jsonschema:"position of the first item of this page in the whole result"`
	Returned   int    `json:"returned" jsonschema:"items in this page"`
	NextCursor string `json:"next_cursor,omitempty" jsonschema:"pass as cursor (alone: it holds the other arguments) for the next page; absent on the last page"`
	Truncated  string `json:"truncated,omitempty" jsonschema:"what this page left out and how to get it; absent when nothing was left out"`
}

// oneLine is a value shown inside a line of text: its control characters
// (a tab or a newline in a session's name) escaped, so that the line stays
// one.
func oneLine(s string) string { return render.Safe(s) }

// isoTime is a time as the CLI's --json writes it ("" when unknown).
func isoTime(t *pidex.Time) string {
	if t == nil {
		return ""
	}
	return t.String()
}

// shortTime is a time for reading: "2026-09-18 07:30 UTC".
func shortTime(t *pidex.Time) string {
	if t == nil {
		return "time unknown"
	}
	return t.UTC().Format("2006-01-02 15:04 UTC")
}

// chars counts characters (code points), the unit of every budget.
func chars(s string) int { return utf8.RuneCountInString(s) }

// size is what an item takes of a budget: the larger of its text and its
// JSON, since the result carries both and a client may show either, each
// as it is written, its hidden characters escaped (render.ForAgent).
func size(textPart string, data any) int {
	b, _ := json.Marshal(data)
	return max(render.ForAgentLen(textPart), jsonChars(string(b)))
}

// jsonChars is the length of JSON once its strings are escaped for a
// model: each escape's backslash is doubled in JSON.
func jsonChars(j string) int {
	esc := render.ForAgent(j)
	if len(esc) == len(j) {
		return utf8.RuneCountInString(j)
	}
	return utf8.RuneCountInString(esc) + strings.Count(esc, `\`) - strings.Count(j, `\`)
}

// money is a cost in dollars for reading, as every face writes it
// (text.Money: cents, or four decimals when small).
func money(v float64) string { return text.Money(v) }

// count is a whole number for reading, digits grouped.
func count[T int | int64 | float64](n T) string { return text.Count(int64(n)) }

// session resolves a session argument, with suggestions when it matches
// none (see sessionNotFound). A path names a session only when the
// catalog has it: the server reads only the session roots' files.
func (s *Server) session(ctx context.Context, arg, machine string) (pidex.SessionRef, error) {
	ref, err := s.cat.Resolve(ctx, arg, machine)
	if err == nil || !errors.Is(err, pidex.ErrNotFound) || strings.TrimSpace(arg) == "" {
		return ref, err
	}
	sugg, serr := s.cat.Suggest(ctx, arg, 5)
	if serr != nil {
		return ref, serr
	}
	named := false
	for _, si := range sugg {
		if si.Name != nil && strings.Contains(strings.ToLower(*si.Name), strings.ToLower(arg)) {
			named = true
		}
	}
	return ref, &sessionNotFound{Ref: arg, Suggestions: sugg, Named: named}
}

// handle is what a result tells the model to pass as session: the id,
// with @N when other files share it (a copy: see query.Reader.Handles);
// the id alone if the handle cannot be had.
func (s *Server) handle(ctx context.Context, id, path, machine string, cache map[string]string) string {
	key := machine + "\x00" + path
	h, ok := cache[key]
	if !ok {
		h = id
		if hs, err := s.cat.Handles(ctx, []pidex.SessionRef{{Path: path, SessionID: id, Machine: machine}}, false); err == nil {
			h = hs[0]
		}
		cache[key] = h
	}
	return h
}

// onMachine is what follows a session handle in a result's text on a
// team catalog: the machine argument that goes with it ("" locally).
func onMachine(machine string) string {
	if machine == "" {
		return ""
	}
	return " machine=" + quoted(machine)
}

// machine is the machine a call reads: its own argument, else the
// server's (Options.Machine).
func (s *Server) machine(arg string) string {
	if arg != "" {
		return arg
	}
	return s.opts.Machine
}

// pageNote is the line that closes a page: how many of what, and the
// cursor for the rest.
func pageNote(p page, what string) string {
	var b strings.Builder
	if p.Truncated != "" {
		b.WriteString(p.Truncated)
		b.WriteString("\n")
	}
	if p.NextCursor != "" {
		fmt.Fprintf(&b, "More %s: call again with cursor=%s\n", what, quoted(p.NextCursor))
	}
	return b.String()
}

// budgetNote says a page stopped at its budget.
func budgetNote(shown, budget int) string {
	return fmt.Sprintf("Stopped after %d to stay within %s characters (max_chars); the next_cursor continues.", shown, count(budget))
}
