package mcp

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/view"
)

// How failures reach the model: as a tool result with isError set and a
// message saying what was wrong and what to call instead — never a Go
// error string, a stack or a protocol error (which a client shows the
// user, not the model). This is the one place where the domain's errors
// become those messages, as main.exitCode makes them exit codes and
// web.status HTTP statuses.

// sessionNotFound: a session argument matched no session; Suggestions are
// sessions it may have meant.
type sessionNotFound struct {
	Ref         string
	Suggestions []pidex.Session
	Named       bool // the suggestions' names contain Ref
}

func (e *sessionNotFound) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "no session matches %q (a session is named by its id, a unique prefix of it, its name, or its file path).", e.Ref)
	if len(e.Suggestions) > 0 {
		if e.Named {
			b.WriteString(" Sessions whose name contains it:")
		} else {
			b.WriteString(" The most recent sessions:")
		}
		for _, s := range e.Suggestions {
			fmt.Fprintf(&b, "\n- %s  %s  (%s)", oneLine(s.ID), quoted(view.SessionTitle(&s, 80)), quoted(view.Project(s.Cwd)))
		}
	}
	b.WriteString("\nsearch_sessions finds a session by what was said in it; list_sessions lists them.")
	return b.String()
}

func (e *sessionNotFound) Is(target error) bool { return target == pidex.ErrNotFound }

// message is what the model reads for err, and whether the server's log
// must hear of it (an internal error the model cannot fix).
func message(err error, rename map[string]string) (msg string, internal bool) {
	var opt *pidex.OptionError
	var amb *pidex.AmbiguousError
	var nf *sessionNotFound
	var stmt *pidex.StatementError
	switch {
	case errors.As(err, &opt):
		return opt.Named(argName(opt.Option, rename)), false
	case errors.As(err, &amb):
		return ambiguous(amb), false
	case errors.As(err, &nf):
		return nf.Error(), false
	case errors.As(err, &stmt):
		return "the statement failed: " + sqliteMessage(stmt.Err), false
	case errors.Is(err, pidex.ErrTimeout):
		return "the statement ran past its time limit and was stopped: narrow it (a WHERE on session_id or ts_ms, a LIMIT), or give a larger timeout_ms", false
	case errors.Is(err, fs.ErrNotExist):
		return "the session file is no longer there (deleted or moved since it was indexed; the catalog catches up within a second): list_sessions shows the sessions as they are now", false
	case errors.Is(err, pidex.ErrFileChanged):
		return "the session file changed while it was read (pi is writing it): call again in a moment", false
	case errors.Is(err, pidex.ErrUsage), errors.Is(err, pidex.ErrNotFound):
		return strings.TrimSpace(err.Error()), false
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return "the call was cancelled before it finished", false
	}
	return "internal error: pidex could not answer this call (the server's log says why); other arguments or another tool may still work", true
}

// sqliteMessage is SQLite's message without the driver's decoration
// ("SQL logic error: …", a trailing result code).
func sqliteMessage(err error) string {
	msg := strings.TrimPrefix(err.Error(), "SQL logic error: ")
	if i := strings.LastIndex(msg, " ("); i > 0 && strings.HasSuffix(msg, ")") {
		if _, err := strconv.Atoi(msg[i+2 : len(msg)-1]); err == nil {
			msg = msg[:i]
		}
	}
	return msg
}

// ambiguous lists the sessions a reference matches, with what tells them
// apart.
func ambiguous(e *pidex.AmbiguousError) string {
	var b strings.Builder
	fmt.Fprintf(&b, "session %q matches %d sessions; pass one of these ids (or, when two files share an id, the path) as session:", e.Ref, e.Matches)
	for _, r := range e.Candidates {
		fmt.Fprintf(&b, "\n- %s", oneLine(r.SessionID))
		if r.Name != "" {
			fmt.Fprintf(&b, "  %s", quoted(r.Name))
		}
		fmt.Fprintf(&b, "  %s", oneLine(r.Path))
	}
	if more := e.Matches - len(e.Candidates); more > 0 {
		fmt.Fprintf(&b, "\n- and %d more: give more of the id", more)
	}
	return b.String()
}
