package render

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/text"
	"github.com/pidex-dev/pidex/internal/view"
)

// Sessions writes a session listing, each session's subagents beneath
// it (view.Flatten). On a terminal: aligned columns, relative times, each
// session as its handle (handles, in view.Flatten's order: the shortest
// reference that opens exactly its file; where there is none, the id
// whole), the first message cut to the width, a subagent's run under its
// parent's as "└ run". Piped: tab-separated, full values, RFC 3339
// times, a header line; a subagent's row names the file of the session
// that started it (spawned_by) and its run.
func Sessions(w io.Writer, ss []pidex.Session, tty bool, width int, now time.Time, handles []string) error {
	rows := view.Flatten(ss, 0)
	// A team catalog's sessions name their machine: a column of its own
	// (piped, after the columns it had before machines were pushed, so
	// those keep their places).
	team := slices.ContainsFunc(rows, func(s view.Listed) bool { return s.Machine != "" })
	var t *Table
	switch {
	case tty && team:
		t = NewTable(w, true, "MODIFIED", "MACHINE", "ID", "MSGS", "COST", "PROJECT", "NAME / FIRST MESSAGE")
	case tty:
		t = NewTable(w, true, "MODIFIED", "ID", "MSGS", "COST", "PROJECT", "NAME / FIRST MESSAGE")
	case team:
		t = NewTable(w, false, "modified", "created", "id", "messages", "entries", "tokens", "cost", "size", "cwd", "name", "first_message", "path", "machine",
			"spawned_by", "run")
	default:
		t = NewTable(w, false, "modified", "created", "id", "messages", "entries", "tokens", "cost", "size", "cwd", "name", "first_message", "path",
			"spawned_by", "run")
	}
	for i, s := range rows {
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
			t.Row(append(cells, s.SpawnedBy, s.Run)...)
			continue
		}
		title := text.OneLine(text.Cut(s.FirstMessage, 4*width)) // cut first: messages can be megabytes
		if name != "" {
			title = name + " — " + title
		}
		project := view.Project(s.Cwd)
		if s.SpawnedBy != "" {
			// A subagent: its run says which. Beneath its parent, it goes
			// without the project it shares with it; listed flat (or its
			// parent's file gone), spawnedBy in --json names the parent.
			title = strings.Repeat("  ", max(s.Depth-1, 0)) + "└ " + view.RunLabel(s.Run) + " · " + title
		}
		if s.Depth > 0 {
			project = ""
		}
		// The title gives way first, then the project (then the machine):
		// the other columns are short and never cut.
		cells := []string{RelTime(now, s.Modified.UTC()), handleOf(handles, i, s.ID), text.Count(s.MessageCount), text.Money(s.Cost),
			project, title}
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
