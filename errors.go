package pidex

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors. Faces map them to exit codes and HTTP statuses, each in
// one function; errors.Is finds them through any wrapping.
var (
	// ErrUsage: the caller asked for something malformed (an option's
	// value, a search query, a SQL statement that would write).
	ErrUsage = errors.New("usage error")
	// ErrNotFound: no session or entry matches.
	ErrNotFound = errors.New("not found")
	// ErrAmbiguous: more than one session matches (see *AmbiguousError).
	ErrAmbiguous = errors.New("ambiguous")
	// ErrReadOnly: the catalog cannot be written by this process.
	ErrReadOnly = errors.New("read-only")
	// ErrNewerCatalog: a newer pidex (a later derivation) built the
	// catalog; this one answers from it as it is and never writes it, so
	// that two builds sharing one catalog never empty each other's.
	ErrNewerCatalog = errors.New("built by a newer pidex")
	// ErrNotCatalog: a file is not a pidex catalog (another program's
	// database, or not a database at all); it is never changed.
	ErrNotCatalog = errors.New("not a pidex catalog")
	// ErrTimeout: a query ran past its deadline and was interrupted.
	ErrTimeout = errors.New("query interrupted: it ran past its time limit")
	// ErrPermission: the team catalog's server refused this role what it
	// asked (a push of a machine not bound to it, a statement on what it
	// may not read or write).
	ErrPermission = errors.New("permission denied")
	// ErrFileChanged: a session file changed since it was indexed, so the
	// catalog's offsets no longer point at its entries.
	ErrFileChanged = errors.New("session file changed since it was indexed (refresh the catalog: pidex index)")
)

// OptionError is a bad option value: a usage error (errors.Is(err,
// ErrUsage)). Option is the option's name in the domain ("tz", "limit",
// "sessionsOnly"); a face names it its own way (Named).
type OptionError struct {
	Option string
	Value  string
	// Want says what the option accepts ("relevance or newest").
	Want string
}

func (e *OptionError) Error() string { return e.Named(e.Option) }

// Named is the message with the option called name (a face's flag or
// parameter name): `tz "Mars/Olympus": want an IANA time zone …`.
func (e *OptionError) Named(name string) string {
	return fmt.Sprintf("%s %q: %s", name, e.Value, e.Want)
}

// Is makes every OptionError a usage error.
func (e *OptionError) Is(target error) bool { return target == ErrUsage }

func badOption(option, value, want string) error {
	return &OptionError{Option: option, Value: value, Want: want}
}

// oneOf is the "want" of an option that takes one of a list of words.
func oneOf(words []string) string { return "want " + alternatives(words) }

// alternatives is "a, b or c".
func alternatives(words []string) string {
	switch len(words) {
	case 0:
		return "nothing (none is known)"
	case 1:
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// AmbiguousError: a session reference matches several sessions
// (errors.Is(err, ErrAmbiguous)). Matches is how many match; Candidates
// lists the first of them.
type AmbiguousError struct {
	Ref        string
	Matches    int
	Candidates []SessionRef
	// Handles are the candidates' handles, in their order: each opens
	// exactly that file (ID@N where files share an id).
	Handles []string
}

func (e *AmbiguousError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "session %q matches %d sessions:", e.Ref, e.Matches)
	for i, r := range e.Candidates {
		h := r.SessionID
		if i < len(e.Handles) {
			h = e.Handles[i]
		}
		fmt.Fprintf(&b, "\n  %s  %s", h, r.Path)
		if r.Name != "" {
			fmt.Fprintf(&b, "  (%s)", r.Name)
		}
	}
	if more := e.Matches - len(e.Candidates); more > 0 {
		fmt.Fprintf(&b, "\n  … and %d more", more)
	}
	b.WriteString("\nname one by its handle as shown, more of its id, or its file's path")
	return b.String()
}

// Is makes every AmbiguousError an ErrAmbiguous.
func (e *AmbiguousError) Is(target error) bool { return target == ErrAmbiguous }

// NotFoundError: a reference names no session, or no entry of a session
// (errors.Is(err, ErrNotFound)). Its message says what was looked for in
// neutral words; a face adds where to find the right one.
type NotFoundError struct {
	// Entry is set for an entry of Session that does not exist; else Ref
	// is a session reference that matches no session.
	Ref, Entry, Session string
}

func (e *NotFoundError) Error() string {
	if e.Entry != "" {
		return fmt.Sprintf("session %s has no entry %q", e.Session, e.Entry)
	}
	return fmt.Sprintf("no session matches %q", e.Ref)
}

// Is makes every NotFoundError an ErrNotFound.
func (e *NotFoundError) Is(target error) bool { return target == ErrNotFound }

// Usagef formats a usage error (errors.Is(err, ErrUsage)) whose message is
// exactly its text: the sentinel's own words are not appended.
func Usagef(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

type usageError struct{ error }

func (e usageError) Is(target error) bool { return target == ErrUsage }
func (e usageError) Unwrap() error        { return e.error }
