package render

import (
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/text"
	"github.com/pidex-dev/pidex/internal/view"
)

// Sessions writes a session listing. On a terminal: aligned columns,
// relative times, each session as its handle (handles, in ss's order:
// the shortest reference that opens exactly its file; where there is
// none, the id whole), the first message cut to the width. Piped:
// tab-separated, full values, RFC 3339 times, a header line.
func Sessions(w io.Writer, ss []pidex.Session, tty bool, width int, now time.Time, handles []string) error {
	// A team catalog's sessions name their machine: a column of its own
	// (the last one piped, so the others keep their places).
	team := slices.ContainsFunc(ss, func(s pidex.Session) bool { return s.Machine != "" })
	var t *Table
	switch {
	case tty && team:
		t = NewTable(w, true, "MODIFIED", "MACHINE", "ID", "MSGS", "COST", "PROJECT", "NAME / FIRST MESSAGE")
	case tty:
		t = NewTable(w, true, "MODIFIED", "ID", "MSGS", "COST", "PROJECT", "NAME / FIRST MESSAGE")
	case team:
		t = NewTable(w, false, "modified", "created", "id", "messages", "entries", "tokens", "cost", "size", "cwd", "name", "first_message", "path", "machine")
	default:
		t = NewTable(w, false, "modified", "created", "id", "messages", "entries", "tokens", "cost", "size", "cwd", "name", "first_message", "path")
	}
	for i, s := range ss {
		name := ""
		if s.Name != nil {
			name = *s.Name
		}
		if !tty {
			created := ""
			if s.Created != nil {
				created = s.Created.UTC().Format(time.RFC3339)
			}
			cells := []string{s.Modified.UTC().Format(time.RFC3339), created, s.ID, Itoa(s.MessageCount), Itoa(s.EntryCount),
				Num(s.Tokens.Total), fmt.Sprintf("%.4f", s.Cost), Itoa(s.SizeBytes), s.Cwd, name, s.FirstMessage, s.Path}
			if team {
				cells = append(cells, s.Machine)
			}
			t.Row(cells...)
			continue
		}
		title := text.OneLine(text.Cut(s.FirstMessage, 4*width)) // cut first: messages can be megabytes
		if name != "" {
			title = name + " — " + title
		}
		// The title gives way first, then the project (then the machine):
		// the other columns are short and never cut.
		cells := []string{RelTime(now, s.Modified.UTC()), handleOf(handles, i, s.ID), text.Count(s.MessageCount), text.Money(s.Cost),
			view.Project(s.Cwd), title}
		if team {
			cells = slices.Insert(cells, 1, s.Machine)
		}
		t.Row(cells...)
	}
	if team {
		return t.Fit(width, 6, 5, 1).Flush()
	}
	return t.Fit(width, 5, 4).Flush()
}

// handleOf is the i-th of handles, else id whole.
func handleOf(handles []string, i int, id string) string {
	if i < len(handles) && handles[i] != "" {
		return handles[i]
	}
	return id
}

// Path writes the entries of a root-to-leaf path as a table, fitted to
// width cells on a terminal (ids give way first: they are the longest).
func Path(w io.Writer, path []pidex.Entry, tty bool, width int) error {
	t := NewTable(w, tty, "LINE", "ID", "PARENT", "TYPE", "TIMESTAMP")
	for _, e := range path {
		kind := e.Type
		if e.Role != "" {
			kind += "/" + e.Role
		}
		parent := "-"
		if e.ParentID != nil {
			parent = *e.ParentID
		}
		t.Row(Itoa(e.Line), e.ID, parent, kind, e.Timestamp)
	}
	return t.Fit(width, 1, 2, 3).Flush()
}
