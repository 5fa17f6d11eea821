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
// relative times, the first message cut to the width. Piped:
// tab-separated, full values, RFC 3339 times, a header line.
func Sessions(w io.Writer, ss []pidex.Session, tty bool, width int, now time.Time) error {
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
	for _, s := range ss {
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
		// The fixed columns take about 60 cells; the title gets the rest.
		cells := []string{RelTime(now, s.Modified.UTC()), text.Cut(s.ID, 13), Itoa(s.MessageCount), fmt.Sprintf("$%.2f", s.Cost),
			text.Cut(view.Project(s.Cwd), 20), text.Cut(title, max(20, width-62))}
		if team {
			cells = slices.Insert(cells, 1, text.Cut(s.Machine, 16))
			cells[len(cells)-1] = text.Cut(title, max(20, width-80))
		}
		t.Row(cells...)
	}
	return t.Flush()
}

// Path writes the entries of a root-to-leaf path as a table.
func Path(w io.Writer, path []pidex.Entry, tty bool) error {
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
	return t.Flush()
}
