package pidex

// Overview is one session at a glance: its listing record and what its
// tree holds beyond the current branch — the branches (where they fork,
// where each ends, which one is current), the labels, the compactions,
// and the money spent on branches the user left.
type Overview struct {
	Session Session
	// Abandoned is the cost and calls of the session's own usage records
	// off its current root-to-leaf path (every copy the file holds, as in
	// its total: Session.Cost = active + abandoned).
	AbandonedCost  float64
	AbandonedCalls int64
	// Roots is how many entries have no parent in the file (1 for a
	// well-formed session).
	Roots        int
	BranchPoints []BranchPoint
	Labels       []LabelMark
	Compactions  []CompactionMark
}

// BranchPoint is an entry with more than one child: the conversation
// forked there (pi's /tree, /fork).
type BranchPoint struct {
	EntryMark
	// Branches are its children in the order they were written, each with
	// the leaf its branch ends at.
	Branches []Branch
}

// Branch is one child of a branch point and what lies below it.
type Branch struct {
	EntryMark
	// Leaf is where reading this branch ends: the session's current leaf
	// when it lies below, else the newest-written continuation.
	Leaf string
	// Entries counts the entries below the branch point on this side, the
	// child included (every sub-branch too).
	Entries int
	// Current: the session's current leaf lies on this branch.
	Current bool
}

// EntryMark names an entry for an overview: id, kind, time and a
// one-line preview (not yet cut to a width).
type EntryMark struct {
	ID      string
	Kind    string // the role of a message, else the entry type
	Time    *Time  // nil when JavaScript cannot parse the timestamp
	Line    int64
	Preview string
}

// LabelMark is an entry's current label.
type LabelMark struct {
	EntryMark
	Label string
	// OnBranch: the labelled entry lies on the current branch.
	OnBranch bool
}

// CompactionMark is a compaction: pi summarised the context before
// FirstKept into Summary (the entry's preview) when it held TokensBefore
// tokens.
type CompactionMark struct {
	EntryMark
	TokensBefore int64
	FirstKept    string
	// OnBranch: the compaction lies on the current branch (the latest such
	// one shapes the model context there).
	OnBranch bool
}
