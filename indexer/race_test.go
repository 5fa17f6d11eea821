package indexer

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// Two first refreshes of one large file, the second one running entirely
// between two batches of the first: the first must back off (its next
// batch no longer follows what the catalog holds), leaving no gap and no
// duplicate warning. The check used to run outside the batch's
// transaction, and batches that reset a file skipped it.
func TestInterleavedFirstRefreshesLeaveNoGap(t *testing.T) {
	root := t.TempDir()
	var b strings.Builder
	b.WriteString(header)
	parent := ""
	var wantEntries, wantWarnings int
	for i := range 3 * batchEntries {
		if i%10 == 5 {
			b.WriteString("{malformed\n")
			wantWarnings++
			continue
		}
		wantEntries++
		id := fmt.Sprintf("e%d", i)
		b.WriteString(msg(id, parent, "user", "line", int64(i)))
		parent = id
	}
	write(t, filepath.Join(root, "p", "big.jsonl"), b.String())
	dbPath := filepath.Join(t.TempDir(), "c.sqlite")
	first, second := openIndexer(t, dbPath, root), openIndexer(t, dbPath, root)
	batches := 0
	first.beforeApply = func(*batch) {
		if batches++; batches == 2 {
			refresh(t, second) // the other process, start to finish
		}
	}
	refresh(t, first)
	refresh(t, first) // and whatever is left, as the next refresh would
	var n, warnings int
	if err := first.DB.Get(&n, "SELECT count(*) FROM entries"); err != nil {
		t.Fatal(err)
	}
	if err := first.DB.Get(&warnings, "SELECT count(*) FROM warnings"); err != nil {
		t.Fatal(err)
	}
	if n != wantEntries || warnings != wantWarnings {
		t.Errorf("%d entries and %d warnings, want %d and %d", n, warnings, wantEntries, wantWarnings)
	}
	assertSameAsFresh(t, first)
}
