package indexer

import "time"

// seams are where tests step into a refresh, each nil or zero in pidex's
// own use: a test sets them on the Indexer it runs, and nothing else does.
type seams struct {
	// afterApply runs after each committed batch; an error aborts the
	// refresh as a crash would. beforeApply runs before each batch's
	// transaction (a test interleaves another refresh there).
	afterApply  func(*batch) error
	beforeApply func(*batch)
	// beforeText runs before each transaction of the text pass.
	beforeText func()
	// onStampRows runs when a refresh reads the stamps from the rows
	// rather than the blob; onListRoots when it lists its folders.
	onStampRows func()
	onListRoots func()
	// beforeFingerprint runs before a batch's fingerprints;
	// onCheckContent for each file whose content a refresh reads to tell
	// a touch from an edit.
	beforeFingerprint func(path string)
	onCheckContent    func(path string)
	// onAttribute is told how many records the model attribution derived
	// and over how many entries.
	onAttribute func(records, entries int)
	// bulkNew, textAhead, textBatchBytes, textIdle and compactRows
	// replace their defaults (the constants of the same names) when set:
	// many batches from small files.
	bulkNew                   int
	textAhead, textBatchBytes int64
	compactRows               int64
	textIdle                  time.Duration
}

// or is v, or def when v is zero.
func or[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}
