package pidex

import "strconv"

// SessionRef identifies one session of the catalog: its file (sessions are
// files; two files may share a session id, a copied file or a fork's
// source) and what people call it.
type SessionRef struct {
	FileID    int64  `db:"file_id" json:"-"`
	Path      string `db:"path" json:"path"`
	SessionID string `db:"session_id" json:"id"`
	Name      string `db:"name" json:"name,omitempty"`
	// Machine is the machine that holds the file, in a team catalog
	// (`pidex push --machine`); "" in a local one.
	Machine string `db:"machine" json:"machine,omitempty"`
}

// Session is one row of the session listing (`pidex list --json`). Its
// first nine fields are exactly pi's SessionInfo (SessionManager.listAll),
// with the same values; pidex's own follow.
type Session struct {
	Path              string   `json:"path"`
	ID                string   `json:"id"`
	Cwd               string   `json:"cwd"`
	Name              *string  `json:"name"`
	ParentSessionPath *string  `json:"parentSessionPath"`
	Created           *Time    `json:"created"` // null when the header time does not parse (pi: Invalid Date)
	Modified          Time     `json:"modified"`
	MessageCount      int64    `json:"messageCount"`
	FirstMessage      string   `json:"firstMessage"`
	EntryCount        int64    `json:"entryCount"`
	LeafID            *string  `json:"leafId"`
	BranchPoints      int64    `json:"branchPoints"`
	Models            []string `json:"models"`
	Tokens            Tokens   `json:"tokens"`
	Cost              float64  `json:"cost"`
	SizeBytes         int64    `json:"sizeBytes"`
	// Source is the agent that wrote the file: pi, omp or openclaw.
	Source string `json:"source"`
	// Machine holds the file, in a team catalog (absent from a local
	// catalog's listing).
	Machine string `json:"machine,omitempty"`
	// A subagent's session (pi-subagents' child runs, oh-my-pi's task
	// transcripts): SpawnedBy is the file of the session that started it
	// (which may be gone), Run the run's name (omp's task id,
	// pi-subagents' "<run id>/run-<i>").
	SpawnedBy string `json:"spawnedBy,omitempty"`
	Run       string `json:"run,omitempty"`
	// Subagents are the sessions this one started, in the order they
	// started, each with its own: a listing shows them beneath it.
	Subagents []Session `json:"subagents,omitempty"`

	FileID int64 `json:"-"`
}

// Ref is the session's reference.
func (s *Session) Ref() SessionRef {
	r := SessionRef{FileID: s.FileID, Path: s.Path, SessionID: s.ID, Machine: s.Machine}
	if s.Name != nil {
		r.Name = *s.Name
	}
	return r
}

// Tokens is a token total split by kind.
type Tokens struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cacheRead"`
	CacheWrite float64 `json:"cacheWrite"`
	Total      float64 `json:"total"`
}

// Entry is one entry of a session as the catalog knows it: its id and
// links, kind, time, and where its line lies in the file (`pidex path
// --json`). The line itself stays in the file.
type Entry struct {
	ID        string  `db:"id" json:"id"`
	ParentID  *string `db:"parent_id" json:"parentId"`
	Type      string  `db:"type" json:"type"`
	Role      string  `db:"role" json:"role,omitempty"` // message entries only
	Timestamp string  `db:"ts" json:"timestamp"`
	Offset    int64   `db:"offset" json:"offset"`
	Length    int64   `db:"length" json:"length"`
	Line      int64   `db:"line" json:"line"` // 1-based physical line
}

// Kind is the entry's role for messages, else its type: what a tree or a
// hit calls it.
func (e *Entry) Kind() string {
	if e.Role != "" {
		return e.Role
	}
	return e.Type
}

// TreeNode is one entry of a session's tree, like a node of pi's
// getTree(): the entry, its current label, and its children.
type TreeNode struct {
	Entry
	Label          *string     `json:"label,omitempty"`
	LabelTimestamp *string     `json:"labelTimestamp,omitempty"`
	Leaf           bool        `json:"leaf,omitempty"` // the current leaf
	Children       []*TreeNode `json:"children"`
}

// Label is an entry's current label.
type Label struct {
	TargetID  string `db:"target_id" json:"targetId"`
	Label     string `db:"label" json:"label"`
	Timestamp string `db:"ts" json:"timestamp"`
}

// Warning is a problem with one line of one file: the line was skipped,
// the rest of the file was still read. Line 0 is the file itself (it could
// not be opened).
type Warning struct {
	Path    string `db:"path" json:"path"`
	Line    int64  `db:"line" json:"line"`
	Message string `db:"message" json:"message"`
	Machine string `db:"machine" json:"machine,omitempty"` // a team catalog's machine
}

func (w Warning) String() string {
	return w.Path + ":" + strconv.FormatInt(w.Line, 10) + ": " + w.Message
}

// TreeOptions choose what a tree shows.
type TreeOptions struct {
	// PathOnly keeps only the path from the root to the current leaf.
	PathOnly bool
}
