package indexer

import (
	"math"

	"github.com/pidex-dev/pidex/sqlite"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/pi"
	"github.com/pidex-dev/pidex/schema"
)

// batch is one unit of writing: the rows for a run of consecutive lines of
// one file, and the file's state after them. The writer applies a batch in
// one transaction, so the stored offset always matches the stored rows: a
// crash loses at most the batch in flight, which the next refresh reads
// again from the stored offset — no duplicates, no gap.
type batch struct {
	file File // state after this batch (ID 0 until the writer inserts it)
	// expect is the stored state this batch follows on; the writer checks
	// it inside the batch's transaction (else errConflict).
	expect  fileState
	reset   bool        // drop the file's rows first (new or rewritten file)
	remove  bool        // the file is gone: drop it and its rows
	session *sessionRow // nil unless the file is a session
	entries []entryRow
	labels  []labelOp
	usage   []usageRow
	warns   []pidex.Warning
	// inlineText: text holds the entries' searchable text, written with
	// them, and the text cursor follows the offset.
	inlineText bool
	text       []textRow
	// sideText: text holds the entries' searchable text for the side
	// index (sidetext.go), whose rowids are textID's; the writer sets
	// generation, the file's in the batch's transaction.
	sideText   bool
	textID     int64
	generation int64
	calls      []toolCallRow
	// previews: the entries' previews, kept with them (entry_previews);
	// previewData is the block deflated, by the parser (flush).
	previews    sqlite.PreviewBlock
	previewData []byte
	bytes       int64 // bytes read for this batch, for progress
	// grew: the first batch with bytes of a file plan counted unchanged.
	// It grew after its stat (or, unreadable before, reads again): the
	// writer counts it appended (rewritten) instead, so that a watcher,
	// which tells its listeners of changed refreshes only, tells them.
	grew bool
	last bool // last batch of this file in this refresh
	// pathUsage: on the last batch of a file, the offsets of its usage
	// records on the current path; offPath, of its entries off it. The
	// parser sets them for a file it read from its start, the writer
	// (lastPaths) for an append; nil on the batches before the last.
	pathUsage []int64
	offPath   []int64
	// activity: on the last batch of a file read from its start, its
	// activity rows, derived by the parser (nil otherwise).
	activity *activity
	// fromStart: the batch is one of a file read from its start, whose
	// last batch brings the activity rows.
	fromStart bool
	// notSession: this read found that the file is not a session (reported once).
	notSession bool
	// quiet: an unreadable file's warning that was reported before.
	quiet bool
	// sum: the content sum of the file's lines up to file.Offset; racy:
	// the stored stat cannot prove the file unchanged (content.go).
	sum  contentSum
	racy bool
}

type entryRow struct {
	Offset, Length, Line, Seq int64
	ID                        string
	ParentID                  *string
	Type                      string
	Role                      *string
	TS                        string
	MsgTS                     *int64
	TSMs                      *int64 // MsgTS, else TS as JavaScript parses it
	Provider, Model           *string
	TargetID                  *string
	FirstKept                 *string
	FirstKeptSeq              int64 // v1 compaction: parsed index to resolve, or -1
	StopReason, Error         *string
	TokensBefore              *int64
	Command                   *string
}

type labelOp struct {
	Offset   int64
	TargetID string
	Label    string // "" clears
	TS       string
}

type usageRow struct {
	Offset     int64
	Source     string
	EntryID    string
	TSMs       *int64
	Provider   string
	Model      string
	Kind       string
	ResponseID string
	U          schema.Usage
}

// sessionRow is the materialised listing record of one session file,
// carried from batch to batch and rewritten whole each time.
type sessionRow struct {
	SessionID      string  `db:"session_id"`
	Version        int     `db:"version"`
	Cwd            string  `db:"cwd"`
	ParentSession  string  `db:"parent_session"`
	BranchedFrom   string  `db:"branched_from"`
	Created        string  `db:"created"`
	CreatedMs      *int64  `db:"created_ms"`
	Name           *string `db:"name"`
	LastActivityMs *int64  `db:"last_activity_ms"`
	MessageCount   int64   `db:"message_count"`
	FirstMessage   *string `db:"first_message"`
	EntryCount     int64   `db:"entry_count"`
	LeafID         *string `db:"leaf_id"`
	LeafOffset     *int64  `db:"leaf_offset"`
	Input          float64 `db:"input"`
	Output         float64 `db:"output"`
	CacheRead      float64 `db:"cache_read"`
	CacheWrite     float64 `db:"cache_write"`
	TotalTokens    float64 `db:"total_tokens"`
	Cost           float64 `db:"cost"`
	Source         string  `db:"source"`     // pidex.Sources
	Subagent       bool    `db:"subagent"`   // a subagent's session (SpawnedBy set)
	SpawnedBy      string  `db:"spawned_by"` // the session file that started it (spawn.go)
	Family         string  `db:"family"`     // the top of its chain of parents
	Run            string  `db:"run"`        // the run's name
}

// addUsage adds one record to the session's totals. Sums saturate: a
// count or cost of 1e308 written twice (files are anyone's input) must not
// become +Inf, which JSON cannot carry. A saturated total reads as the
// largest finite value.
func (s *sessionRow) addUsage(u schema.Usage) {
	s.Input = addFinite(s.Input, u.Input)
	s.Output = addFinite(s.Output, u.Output)
	s.CacheRead = addFinite(s.CacheRead, u.CacheRead)
	s.CacheWrite = addFinite(s.CacheWrite, u.CacheWrite)
	s.TotalTokens = addFinite(s.TotalTokens, pi.TotalTokens(u))
	s.Cost = addFinite(s.Cost, u.Cost.Total)
}

func addFinite(a, b float64) float64 {
	c := a + b
	switch {
	case math.IsNaN(c):
		return a
	case math.IsInf(c, 1):
		return math.MaxFloat64
	case math.IsInf(c, -1):
		return -math.MaxFloat64
	}
	return c
}

// toolCallRow is a tool call (Index ≥ 0) or a tool result (Index -1).
type toolCallRow struct {
	Offset   int64
	Index    int
	ID, Name string
	IsError  *bool
	Command  *string // bash calls: the command's first word
	Size     *int64  // results: text bytes
}

// fileState is what a batch expects the catalog to hold for its file:
// the offset the previous batch reached, and the generation (rewrites).
type fileState struct{ Offset, Generation int64 }
