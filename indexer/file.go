package indexer

// FileKind is what the catalog knows a discovered .jsonl file to be.
type FileKind string

// File kinds.
const (
	FileSession    FileKind = "session"     // first parsed line is a session header
	FileNotSession FileKind = "not_session" // first parsed line is something else: skipped, reported once
	FileEmpty      FileKind = "empty"       // nothing parsed yet (0 bytes, blank, or a header still being written)
	FileUnreadable FileKind = "unreadable"  // cannot be opened (permissions, a dangling or looping link): reported once, retried every refresh
)

// File is the catalog's record of one discovered .jsonl file and how far
// it has been ingested. The stat fields make an unchanged file cost one
// stat; the fingerprints detect a file rewritten in place.
type File struct {
	ID      int64    `db:"id" json:"-"`
	Path    string   `db:"path" json:"path"`
	Root    string   `db:"root" json:"root"`
	Kind    FileKind `db:"kind" json:"kind"`
	Dev     int64    `db:"dev" json:"-"`
	Ino     int64    `db:"ino" json:"-"`
	Size    int64    `db:"size" json:"size"`
	MtimeNs int64    `db:"mtime_ns" json:"-"`
	// Offset is the byte offset up to which lines have been ingested
	// (always the start of a line, or the end of the file).
	Offset int64 `db:"offset" json:"offset"`
	// HeadHash and TailHash fingerprint the first bytes of the file and the
	// bytes just before Offset: if either differs on the next refresh, the
	// file was rewritten and is re-ingested from scratch.
	HeadHash string `db:"head_hash" json:"-"`
	TailHash string `db:"tail_hash" json:"-"`
	// OpenTail is set when the last ingested line had no final newline (pi
	// reads such a line). If the next byte appended is not a newline, that
	// line was not complete after all and the file is re-ingested.
	OpenTail bool `db:"open_tail" json:"-"`
	// Lines is the number of physical lines before Offset; Seq the number of
	// lines that parsed (pi's index, header = 0, used by v1 compactions).
	Lines int64 `db:"lines" json:"lines"`
	Seq   int64 `db:"seq" json:"-"`
	// Version is the header's format version (1 when absent).
	Version int `db:"version" json:"version"`
	// LastID is the id of the last entry, which the next v1 entry links to.
	LastID   string `db:"last_id" json:"-"`
	Warnings int64  `db:"warnings" json:"warnings"`
	// TextOffset is how far the entries' text is in the full-text index
	// (the text pass runs behind Offset); Generation counts rewrites.
	TextOffset int64 `db:"text_offset" json:"-"`
	Generation int64 `db:"generation" json:"-"`
	// SlotLen is the length of omp's title slot, the first line, newline
	// included (0: none), and SlotHash its fingerprint. A slotted file's
	// head fingerprint and content sum start after it: omp rewrites the
	// slot in place when the title changes (slot.go).
	SlotLen  int64  `db:"slot_len" json:"-"`
	SlotHash string `db:"slot_hash" json:"-"`
}
