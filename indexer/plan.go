package indexer

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"sort"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/files"
)

// plan compares what is on disk with what the catalog holds and decides,
// per file: unchanged (one stat, nothing read), new, appended (read from
// the stored offset), or rewritten (read from scratch); and which stored
// files are gone.
func (ix *Indexer) plan(ctx context.Context, cands []candidate, stored map[string]fileStamp, st *pidex.IndexStats) ([]job, []string, error) {
	var jobs []job
	seen := make(map[string]bool, len(cands))
	for _, c := range cands {
		seen[c.Path] = true
		stamp, ok := stored[c.Path]
		if !ok {
			st.New++
			jobs = append(jobs, job{cand: c, reset: true})
			continue
		}
		wasUnreadable := stamp.Kind == FileUnreadable
		if c.fileStat == stamp.fileStat && !stamp.Racy && !(wasUnreadable && c.irregular == "" && readable(c.Path)) {
			// Unchanged; an unreadable file is tried again (a chmod changes
			// no stamp) but reported only once. A racy stamp does not
			// prove it unchanged: planChanged checks the content.
			st.Unchanged++
			continue
		}
		f, err := loadFile(ctx, ix.DB.DB, c.Path)
		if errors.Is(err, sql.ErrNoRows) {
			// Another process removed or rebuilt it since the stamps were
			// loaded: it is new to this refresh.
			st.New++
			jobs = append(jobs, job{cand: c, reset: true})
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		var j job
		if c.irregular != "" || wasUnreadable {
			// Read from scratch. Still unreadable, it is not reported
			// again: a link to /proc/self/mem has a new inode in every
			// process, so its stamp never matches.
			j = job{cand: c, reset: true, quiet: wasUnreadable}
		} else if j, err = ix.planChanged(ctx, c, f); err != nil {
			var rerr readErr
			if !errors.As(err, &rerr) {
				ix.addError(st, c.Path, err)
				continue
			}
			// It no longer opens or reads: read from scratch, which
			// records it as unreadable, listed by warnings.
			j = job{cand: c, reset: true}
		}
		j.stored = fileState{Offset: f.Offset, Generation: f.Generation}
		if !j.reset {
			j.sum = storedSum(f.ContentCRC)
		}
		switch {
		case j.quiet:
			st.Unchanged++ // unreadable before, most likely still
			j.unchanged = true
		case j.reset:
			st.Rewritten++
		case c.Size > f.Offset:
			st.Appended++
		default:
			st.Unchanged++ // touched, or a pending tail still incomplete: refresh the stat only
			j.unchanged = true
		}
		jobs = append(jobs, j)
	}
	var removed []string
	for p := range stored {
		if !seen[p] {
			removed = append(removed, p)
		}
	}
	sort.Strings(removed)
	// In name order, which for pi's files is session start order: new files
	// get their ids in that order (reserveIDs), and writing them in id order
	// appends to the catalog's (file, offset)-keyed tables instead of
	// inserting all over them (biggest first, the earlier order, made the
	// writer 20% slower once ids no longer followed write order).
	sort.SliceStable(jobs, func(a, b int) bool {
		return filepath.Base(jobs[a].cand.Path) < filepath.Base(jobs[b].cand.Path)
	})
	return jobs, removed, nil
}

// planChanged decides between append and rewrite for a file whose stat
// changed (or was racy). A rewrite is: another inode, a shrink below the
// ingested offset, changed bytes at the head or just before the offset,
// an unterminated last line that got glued to new bytes, or — when the
// file did not grow — ingested lines whose content changed (content.go).
func (ix *Indexer) planChanged(ctx context.Context, c candidate, sf storedFile) (job, error) {
	f := sf.File
	fresh := job{cand: c, reset: true}
	if c.Ino != f.Ino || c.Dev != f.Dev || c.Size < f.Offset {
		return fresh, nil
	}
	fh, err := files.OpenRegular(c.Path)
	if err != nil {
		return job{}, readErr{fmt.Errorf("open session file: %w", err)}
	}
	defer fh.Close()
	// A title slot (omp) is checked apart: still a slot of the same
	// length, its title may have changed; the head fingerprint starts
	// after it.
	hs := f.SlotLen
	slotChanged := false
	if hs > 0 {
		_, hash, ok, err := readSlot(fh, hs)
		if err != nil {
			return job{}, err
		}
		if !ok {
			return fresh, nil
		}
		slotChanged = hash != f.SlotHash
	}
	head, err := hashRange(fh, hs, min(f.Offset, hs+hashSpan))
	if err != nil {
		return job{}, err
	}
	tail, err := hashRange(fh, max(hs, f.Offset-hashSpan), f.Offset)
	if err != nil {
		return job{}, err
	}
	if head != f.HeadHash || tail != f.TailHash {
		return fresh, nil
	}
	if c.Size <= f.Size && !slotChanged {
		// No growth: touched, edited in place, or a racy stamp. Only
		// the content says which. (A new title slot is omp's title change,
		// made in place: only the slot is read again.)
		if ix.onCheckContent != nil {
			ix.onCheckContent(c.Path)
		}
		if same, err := sameContent(fh, hs, f.Offset, storedSum(sf.ContentCRC)); err != nil {
			return job{}, err
		} else if !same {
			return fresh, nil
		}
	}
	// An append to a file whose text is caught up carries its text in the
	// same transactions as its entries; a new or rewritten file's text is
	// left to the text pass (a cold index must not wait for it).
	j := job{cand: c, file: f, inlineText: f.Kind == FileSession && f.TextOffset == f.Offset}
	if f.OpenTail && c.Size > f.Offset {
		// pi read the last line although it had no newline. Appending a
		// newline completes it; anything else glues the next entry onto it
		// and pi then drops the whole physical line.
		var nl [1]byte
		if _, err := fh.ReadAt(nl[:], f.Offset); err != nil {
			return job{}, readErr{fmt.Errorf("read %s: %w", c.Path, err)}
		}
		if nl[0] != '\n' {
			return fresh, nil
		}
		j.skipNL = true
	}
	if f.Kind == FileSession {
		s, err := ix.loadSession(ctx, f.ID)
		if err != nil {
			return job{}, err
		}
		j.session = s
	}
	return j, nil
}

func (ix *Indexer) loadSession(ctx context.Context, fileID int64) (*sessionRow, error) {
	var s sessionRow
	err := ix.DB.GetContext(ctx, &s, `SELECT session_id, version, cwd, parent_session, branched_from, created, created_ms,
		name, last_activity_ms, message_count, first_message, entry_count, leaf_id, leaf_offset,
		input, output, cache_read, cache_write, total_tokens, cost, source, subagent, spawned_by, family, run
		FROM sessions WHERE file_id = ?`, fileID)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("load session for file %d: catalog row missing", fileID)
	}
	if err != nil {
		return nil, fmt.Errorf("load session: %w", err)
	}
	return &s, nil
}

// readable reports whether a file can be opened now.
func readable(path string) bool {
	f, err := files.OpenRegular(path)
	if err != nil {
		return false
	}
	f.Close()
	return true
}
