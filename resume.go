package pidex

import (
	"fmt"
	"strings"
)

// An AgentCLI is how one agent's command line continues a session file,
// as its documentation says: pidex resume starts the agent that wrote the
// session, and pidex never writes a session file itself.
type AgentCLI struct {
	Program string
	// Open and Fork are the arguments that open the file, and that start
	// a new session from it; ArgPath stands for the file's path, ArgKey
	// for the agent's own key for the session. Fork nil: the agent cannot.
	Open, Fork []string
	// InCwd: the agent runs the session in the folder it is started in
	// (or starts a fork there), so pidex starts it in the session's cwd.
	InCwd bool
	// Tree is how, inside the agent, a reader moves to another entry of
	// the session ("": it has no way).
	Tree string
	// Migrates: opening a file older than version 3 rewrites it in place.
	Migrates bool
	// Install is how to install it, for the message that it is missing.
	Install string
}

// Placeholders of AgentCLI's arguments.
const (
	ArgPath = "{path}"
	ArgKey  = "{key}"
)

// Agents are the command lines of the agents whose files pidex reads, by
// Source. pi 1.6.0: `pi --session <path>` runs the session in its own
// working directory, `pi --fork <path>` copies it into a new session of
// the current one (docs/sessions.md); oh-my-pi: `omp --resume <path>` and
// `omp --fork <path>` (src/cli/flag-tables.ts); OpenClaw keeps sessions
// on its Gateway and attaches its TUI with `openclaw resume <key>`, the
// key of its sessions.json (docs.openclaw.ai/cli/resume).
var Agents = map[string]AgentCLI{
	SourcePi: {Program: "pi", Open: []string{"--session", ArgPath}, Fork: []string{"--fork", ArgPath}, InCwd: true, Tree: "/tree", Migrates: true,
		Install: "npm install -g @earendil-works/pi-coding-agent"},
	SourceOmp: {Program: "omp", Open: []string{"--resume", ArgPath}, Fork: []string{"--fork", ArgPath}, InCwd: true, Tree: "/tree", Migrates: true,
		Install: "bun install -g @oh-my-pi/pi-coding-agent"},
	SourceOpenClaw: {Program: "openclaw", Open: []string{"resume", ArgKey}, Install: "npm install -g openclaw"},
}

// ResumeOptions say how to continue a session (pidex resume).
type ResumeOptions struct {
	// Leaf is the entry to continue from ("": the session's current leaf,
	// where the agent opens it).
	Leaf string
	// Fork starts a new session from the file (the agent writes it) and
	// leaves the file as it is.
	Fork bool
	// Args are more arguments for the agent, after pidex's.
	Args []string
}

// ResumeFacts are what the catalog knows that the command depends on.
type ResumeFacts struct {
	Session Session
	Version int // the file's format version (pi migrates older ones)
	// Target is the entry ResumeOptions.Leaf names, when it is not the
	// session's current leaf: its line and a preview to find it by.
	Target *EntryMark
	// Key is the agent's own name for the session ("" when unknown): an
	// OpenClaw session key. Checkpoint: the file is OpenClaw's copy of
	// the session taken before a compaction, not the session itself.
	Key        string
	Checkpoint bool
}

// Resume is how to continue one session in the agent that wrote it
// (`pidex resume --print --json`).
type Resume struct {
	Source  string   `json:"source"`
	Path    string   `json:"path"`
	Program string   `json:"program"`
	Args    []string `json:"args"`
	// Dir is where to run it: the session's working directory ("" where
	// the agent does not care).
	Dir string `json:"dir,omitempty"`
	// Command is the line to paste into a POSIX shell.
	Command string `json:"command"`
	// Leaf is the entry the agent opens the session at (its current leaf);
	// Target the entry asked for, when that is another one (see Notes).
	Leaf   string `json:"leaf,omitempty"`
	Target string `json:"target,omitempty"`
	Fork   bool   `json:"fork,omitempty"`
	// Notes are what else the user should know: how to reach Target in
	// the agent, what the agent will do to the file.
	Notes []string `json:"notes,omitempty"`
}

// NewResume is the command that continues the session f describes.
func NewResume(f ResumeFacts, o ResumeOptions) (*Resume, error) {
	s := &f.Session
	a, ok := Agents[s.Source]
	if !ok {
		return nil, fmt.Errorf("resume session %s: pidex knows no command line for %q sessions", s.ID, s.Source)
	}
	args := a.Open
	if o.Fork {
		if a.Fork == nil {
			return nil, Usagef("%s cannot fork a session from its command line: resume it without --fork", a.Program)
		}
		args = a.Fork
	}
	r := &Resume{Source: s.Source, Path: s.Path, Program: a.Program, Fork: o.Fork}
	if s.LeafID != nil {
		r.Leaf = *s.LeafID
	}
	for _, arg := range args {
		switch arg {
		case ArgPath:
			r.Args = append(r.Args, s.Path)
		case ArgKey:
			if f.Key != "" { // else the agent's own picker
				r.Args = append(r.Args, f.Key)
			}
		default:
			r.Args = append(r.Args, arg)
		}
	}
	r.Args = append(r.Args, o.Args...)
	if a.InCwd {
		r.Dir = s.Cwd
	}
	r.Notes = resumeNotes(a, f, o, r)
	r.Command = ShellCommand(r.Dir, r.Program, r.Args...)
	return r, nil
}

// resumeNotes says what the command alone does not.
func resumeNotes(a AgentCLI, f ResumeFacts, o ResumeOptions, r *Resume) []string {
	var notes []string
	if t := f.Target; t != nil && t.ID != r.Leaf {
		r.Target = t.ID
		where := fmt.Sprintf("entry %s (line %d, %s “%s”)", t.ID, t.Line, t.Kind, t.Preview)
		switch {
		case a.Tree == "":
			notes = append(notes, fmt.Sprintf("%s resumes the session at its latest entry and has no way to start from %s", a.Program, where))
		case o.Fork:
			notes = append(notes, fmt.Sprintf("%s --fork copies the whole session, at its latest entry %s: in the copy, type %s and choose %s", a.Program, r.Leaf, a.Tree, where))
		default:
			notes = append(notes, fmt.Sprintf("%s opens the session at its latest entry %s: type %s and choose %s", a.Program, r.Leaf, a.Tree, where))
		}
	}
	if a.Migrates && !o.Fork && f.Version < 3 {
		notes = append(notes, fmt.Sprintf("the file is in format version %d: %s rewrites it as version 3 when it opens it", max(f.Version, 1), a.Program))
	}
	if f.Session.Source == SourceOpenClaw {
		switch {
		case f.Key == "":
			notes = append(notes, "the session is not in OpenClaw's index (sessions.json) beside the file: choose it from openclaw resume's list")
		case f.Checkpoint:
			notes = append(notes, "the file is a checkpoint OpenClaw kept before a compaction: openclaw resumes the live session "+f.Key+", not this copy")
		}
		notes = append(notes, "openclaw resume attaches to the session on the OpenClaw Gateway, which must be running")
	}
	return notes
}

// ShellCommand is a command line for a POSIX shell: cd dir (when dir is
// not ""), then program with args, each quoted where the shell would
// read it otherwise.
func ShellCommand(dir, program string, args ...string) string {
	var b strings.Builder
	if dir != "" {
		b.WriteString("cd " + ShellQuote(dir) + " && ")
	}
	b.WriteString(ShellQuote(program))
	for _, a := range args {
		b.WriteString(" " + ShellQuote(a))
	}
	return b.String()
}

// ShellQuote quotes s for a POSIX shell: as it is when it holds only
// characters no shell treats specially, else in single quotes.
func ShellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@%+=:,./_-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
