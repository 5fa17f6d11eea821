package render

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/text"
	"github.com/pidex-dev/pidex/internal/view"
)

// Hits writes search hits. On a terminal each hit is a block: time,
// project, session, role and entry; the snippet with the matched words in
// bold; and the commands that open it and resume it, by the session's handle (handles,
// in the hits' order: each opens exactly the hit's file). Piped:
// tab-separated, one hit a line, with a header.
func Hits(w io.Writer, hits []pidex.Hit, tty bool, width int, handles []string) error {
	if !tty {
		cols := []string{"score", "time", "session_id", "session", "entry_id", "role", "cwd", "path", "line", "snippet", "open", "resume"}
		team := slices.ContainsFunc(hits, func(h pidex.Hit) bool { return h.Machine != "" })
		if team { // a team catalog's hits name their machine, last
			cols = append(cols, "machine")
		}
		t := NewTable(w, false, cols...)
		for i, h := range hits {
			cells := []string{fmt.Sprintf("%.3f", h.Score), hitTime(h, false), h.SessionID, sessionTitle(h, 80), h.EntryID, h.Role, h.Cwd, h.Path,
				Itoa(h.Line), h.Snippet, openCommand(h, handleOf(handles, i, h.SessionID)), resumeCommand(h, handleOf(handles, i, h.SessionID))}
			if team {
				cells = append(cells, h.Machine)
			}
			t.Row(cells...)
		}
		return t.Flush()
	}
	ew := &errWriter{w: w}
	for i, h := range hits {
		if i > 0 {
			ew.str("\n")
		}
		where := view.Project(h.Cwd)
		if h.Machine != "" {
			where = h.Machine + ":" + where
		}
		head := Safe(fmt.Sprintf("%s  %s  %s  %s %s", hitTime(h, true), where, sessionTitle(h, 200), h.Role, h.EntryID))
		ew.str(text.CutWidth(head, width) + "\n")
		ew.str(highlighted(h.Segments, width, "  "))
		handle := handleOf(handles, i, h.SessionID)
		ew.str("  " + Safe(openCommand(h, handle)) + "  ·  " + Safe(resumeCommand(h, handle)) + "\n")
	}
	return ew.err
}

// SessionHits writes sessions with their hit counts; on a terminal each
// session is its handle (handles, as Sessions).
func SessionHits(w io.Writer, ss []pidex.SessionHits, tty bool, width int, handles []string) error {
	if !tty {
		t := NewTable(w, false, "hits", "session_id", "cwd", "name", "first_message", "path")
		for _, s := range ss {
			name := ""
			if s.Name != nil {
				name = *s.Name
			}
			t.Row(Itoa(s.Hits), s.SessionID, s.Cwd, name, s.FirstMessage, s.Path)
		}
		return t.Flush()
	}
	t := NewTable(w, true, "HITS", "ID", "PROJECT", "NAME / FIRST MESSAGE")
	for i, s := range ss {
		title := text.OneLine(text.Cut(s.FirstMessage, 4*width))
		if s.Name != nil {
			title = *s.Name + " — " + title
		}
		t.Row(text.Count(s.Hits), handleOf(handles, i, s.SessionID), view.Project(s.Cwd), title)
	}
	return t.Fit(width, 3, 2).Flush()
}

// sessionTitle is the session's name, else its first message, on one line.
func sessionTitle(h pidex.Hit, n int) string {
	if h.Name != "" {
		return h.Name
	}
	return text.OneLine(text.Cut(h.FirstMessage, n))
}

func hitTime(h pidex.Hit, short bool) string {
	if h.Timestamp == nil {
		return "-"
	}
	if short {
		return h.Timestamp.UTC().Local().Format("2006-01-02 15:04")
	}
	return h.Timestamp.UTC().Format("2006-01-02T15:04:05Z07:00")
}

// openCommand is how to see the hit in its conversation: its session by
// handle.
func openCommand(h pidex.Hit, handle string) string { return hitCommand("show", h, handle) }

// resumeCommand is the command that continues a hit's session from its
// entry in the agent that wrote it.
func resumeCommand(h pidex.Hit, handle string) string { return hitCommand("resume", h, handle) }

func hitCommand(verb string, h pidex.Hit, handle string) string {
	if h.Machine != "" { // a team catalog: the session may be on several machines
		return "pidex --machine " + h.Machine + " " + verb + " " + handle + " --leaf " + h.EntryID
	}
	return "pidex " + verb + " " + handle + " --leaf " + h.EntryID
}

// highlighted writes snippet segments with the matches in bold, wrapped
// between words to width cells (0: one line), each line after indent:
// the terminal's own wrap at its edge split words ("docke / r-compose").
func highlighted(segs []pidex.Segment, width int, indent string) string {
	var plain strings.Builder
	var hits [][2]int // the matches' spans in plain
	for _, s := range segs {
		t := Safe(s.Text)
		if s.Hit {
			hits = append(hits, [2]int{plain.Len(), plain.Len() + len(t)})
		}
		plain.WriteString(t)
	}
	p := plain.String()
	var b strings.Builder
	for _, l := range text.Wrap(p, max(0, width-text.Width(indent))) {
		b.WriteString(indent)
		at := l[0]
		for _, h := range hits { // a match broken over two lines is bold on both
			from, to := max(h[0], l[0]), min(h[1], l[1])
			if from >= to {
				continue
			}
			b.WriteString(p[at:from] + string(styleBold) + p[from:to] + sgrReset)
			at = to
		}
		b.WriteString(p[at:l[1]] + "\n")
	}
	return b.String()
}
