package pidex

import "sync/atomic"

// IndexStats says what a refresh of the catalog did (`pidex index
// --json`).
type IndexStats struct {
	Files       int       `json:"files"` // session and other .jsonl files seen
	New         int       `json:"new"`
	Appended    int       `json:"appended"`
	Rewritten   int       `json:"rewritten"`
	Removed     int       `json:"removed"`
	Unchanged   int       `json:"unchanged"`
	NotSessions []string  `json:"notSessions"` // newly found .jsonl files that are not sessions
	Entries     int64     `json:"entries"`     // entries added
	Bytes       int64     `json:"bytes"`       // bytes read
	Pending     []string  `json:"pending"`     // files ending in an incomplete line (a write in progress)
	Warnings    []Warning `json:"warnings"`    // lines skipped, with file and line
	Errors      []string  `json:"errors"`      // files or folders that could not be read
	// Text is what the text pass did (nil when it did not run).
	Text *TextStats `json:"text,omitempty"`
	// Wrote: the refresh wrote to the catalog (Changed, or only a file's
	// stat after a touch, or the cost derivation a stopped bulk load
	// left): an answer read before it may differ from one read after it.
	Wrote bool `json:"-"`
}

// Changed reports whether the refresh changed the catalog.
func (st *IndexStats) Changed() bool {
	return st != nil && st.New+st.Appended+st.Rewritten+st.Removed > 0
}

// TextStats says what a pass of the full-text index did.
type TextStats struct {
	Files   int   `json:"files"`   // files whose text was (partly) indexed
	Entries int64 `json:"entries"` // entries with text written
	Bytes   int64 `json:"bytes"`   // bytes of lines read
	// Errors lists files whose lines could not be read back, or whose
	// text is not caught up.
	Errors []string `json:"errors"`
}

// Progress counts the work of a refresh as it goes; safe for concurrent
// use. A face polls it to draw a bar (counting is apart from drawing).
// The work comes in phases (PhaseFiles, then PhaseText): each starts its
// counters again, so that a bar can say which part it measures and run
// to the end of each.
type Progress struct {
	FilesTotal, FilesDone atomic.Int64
	BytesTotal, BytesDone atomic.Int64
	phase                 atomic.Pointer[string]
}

// Phases of the work, as Progress.Phase says them.
const (
	PhaseFiles = "files" // reading the session files into the catalog
	PhaseText  = "text"  // filling the search index behind them
	PhasePush  = "push"  // sending the catalog to a team catalog
)

// Reset zeroes the counters before a new piece of work.
func (p *Progress) Reset() {
	for _, c := range []*atomic.Int64{&p.FilesTotal, &p.FilesDone, &p.BytesTotal, &p.BytesDone} {
		c.Store(0)
	}
}

// Begin starts a phase: the counters count from zero again.
func (p *Progress) Begin(phase string) {
	p.Reset()
	p.phase.Store(&phase)
}

// Phase is the phase under way ("" before any).
func (p *Progress) Phase() string {
	if s := p.phase.Load(); s != nil {
		return *s
	}
	return ""
}
