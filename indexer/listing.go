package indexer

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"slices"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"
)

// Listing is the session files of a set of roots, listed ahead of the
// refresh that takes it (Indexer.Listing): a command that refreshes first
// lists its folders while the catalog opens (the schema's parse, about a
// core's worth of milliseconds, leaves the other core to the stats).
type Listing struct {
	roots []string      // root specs, as Indexer.Roots
	done  chan struct{} // closed when the fields below are set
	l     listed
}

// listed is what a listing found, and when it began.
type listed struct {
	statNs int64 // taken before the first stat (see content.go: racy stamps)
	cands  []candidate
	errs   []error
}

// StartListing lists the files of roots (root specs, as Indexer.Roots)
// in the background.
func StartListing(roots []string) *Listing {
	l := &Listing{roots: slices.Clone(roots), done: make(chan struct{})}
	go func() {
		defer close(l.done)
		specs, err := resolveRoots(l.roots)
		if err != nil {
			l.l.errs = []error{err} // never taken: Refresh lists again and says why
			return
		}
		l.l = listRoots(specs, nil)
	}()
	return l
}

// listRoots lists the files of every root, in order; listing (a test's)
// is told first.
func listRoots(specs []root, listing func()) listed {
	if listing != nil {
		listing()
	}
	l := listed{statNs: time.Now().UnixNano()}
	for _, r := range specs {
		c, errs := discover(r.path, r.source)
		if l.cands == nil {
			l.cands = c // the common case, one root: not copied
		} else {
			l.cands = append(l.cands, c...)
		}
		l.errs = append(l.errs, errs...)
	}
	if len(specs) > 1 {
		// In path order as the stamps are, whatever the roots' order
		// (pi's, then omp's and OpenClaw's): a refresh that changes
		// nothing compares them side by side (unchangedAll).
		slices.SortStableFunc(l.cands, func(a, b candidate) int { return strings.Compare(a.Path, b.Path) })
	}
	return l
}

// list lists the roots' files and loads their stored stamps, at once, and
// says whether nothing changed (unchangedAll).
//
// A listing made ahead (ix.Listing, of the same roots) is taken as it is
// only when it shows nothing changed. Anything else it shows may be stale:
// another process may have refreshed a file it saw as new, changed or gone
// after it was listed, and planning from its stat would read that file
// again from scratch or remove it. Those files are stat'ed again
// (recheck), or, where that cannot tell, the folders are listed again, as
// without it. A listing that agrees with stamps loaded after it is as
// current as one listed just before the stamps, as far as this refresh
// can tell.
func (ix *Indexer) list(ctx context.Context, specs []root, roots []string) (listed, storedStamps, bool, error) {
	early := ix.Listing
	ix.Listing = nil // taken once: a later refresh lists afresh
	if early != nil && slices.Equal(early.roots, ix.Roots) {
		stored, err := loadStamps(ctx, ix.DB, roots, ix.onStampRows)
		if err != nil {
			return listed{}, storedStamps{}, false, err
		}
		select {
		case <-early.done:
		case <-ctx.Done():
			return listed{}, storedStamps{}, false, ctx.Err()
		}
		if len(early.l.errs) == 0 {
			if unchangedAll(early.l.cands, stored.list) {
				return early.l, stored, true, nil
			}
			if l, ok := recheck(early.l, stored.list); ok {
				return l, stored, unchangedAll(l.cands, stored.list), nil
			}
		}
		l := listRoots(specs, ix.onListRoots)
		return l, stored, unchangedAll(l.cands, stored.list), nil
	}
	// Listing the folders and loading the stored stats are independent:
	// do them at once (both are most of a no-change refresh).
	var l listed
	var stored storedStamps
	var g errgroup.Group
	g.Go(func() error {
		l = listRoots(specs, ix.onListRoots)
		return nil
	})
	g.Go(func() (err error) {
		stored, err = loadStamps(ctx, ix.DB, roots, ix.onStampRows)
		return err
	})
	if err := g.Wait(); err != nil {
		return listed{}, storedStamps{}, false, err
	}
	return l, stored, unchangedAll(l.cands, stored.list), nil
}

// unchangedAll says whether a listing is exactly what the catalog holds:
// the same files, each with its stored stat, none of whose stamps needs a
// second look (racy, unreadable or irregular: plan decides those). Then
// there is nothing to plan, and no map of either side to build: stored is
// in strictly increasing path order (storedStamps), as a listing is
// (listRoots), so the two are compared side by side.
func unchangedAll(cands []candidate, stored []fileStamp) bool {
	if len(cands) != len(stored) {
		return false
	}
	for i := range cands {
		if !unchanged(&cands[i], &stored[i]) {
			return false
		}
	}
	return true
}

// unchanged says whether c is stored as s, with nothing for the plan to
// look at again.
func unchanged(c *candidate, s *fileStamp) bool {
	return c.Path == s.Path && !s.Racy && s.Kind != FileUnreadable && c.irregular == "" && c.fileStat == s.fileStat
}

// recheck brings a listing made ahead up to date where it disagrees with
// the stamps, file by file, instead of listing every folder again (a
// refresh that finds pi's session appended paid the whole listing twice).
// What it shows as new or changed is stat'ed again: another process may
// have refreshed it since, or it may be gone. A stored file it did not see
// may have been added by another process since it was listed: if that file
// is there, one stat cannot mend the listing, and recheck gives up (ok
// false: the folders are listed again), as it does for a file listed twice
// (nested roots) and for a link or anything else not regular, which the
// listing stats another way. Both lists are in path order.
func recheck(l listed, stored []fileStamp) (out listed, ok bool) {
	// The listing's time, not now's: a stamp is racy when its mtime is
	// not clearly older than the stat, and the earlier time says so of
	// more files, never fewer.
	out = listed{statNs: l.statNs, cands: make([]candidate, 0, len(l.cands))}
	j := 0
	for i := range l.cands {
		c := l.cands[i]
		if i > 0 && l.cands[i-1].Path >= c.Path {
			return listed{}, false
		}
		for ; j < len(stored) && stored[j].Path < c.Path; j++ {
			if !gone(stored[j].Path) {
				return listed{}, false
			}
		}
		if j < len(stored) && stored[j].Path == c.Path {
			j++
			if unchanged(&c, &stored[j-1]) {
				out.cands = append(out.cands, c)
				continue
			}
		}
		if c.irregular != "" {
			return listed{}, false
		}
		fi, err := os.Lstat(c.Path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			// Gone since it was listed (another process may have removed
			// its rows already): not listed.
		case err != nil || !fi.Mode().IsRegular():
			return listed{}, false
		default:
			c.fileStat = statOf(fi)
			out.cands = append(out.cands, c)
		}
	}
	for ; j < len(stored); j++ {
		if !gone(stored[j].Path) {
			return listed{}, false
		}
	}
	return out, true
}

// gone says whether nothing is at p now.
func gone(p string) bool {
	_, err := os.Lstat(p)
	return errors.Is(err, fs.ErrNotExist)
}
