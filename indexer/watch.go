package indexer

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/files"
)

// WatchOptions tune Watch. Zero values pick the defaults.
//
// The defaults make a session being written live within about a fifth of
// a second. pi appends a line per entry, often several in a burst: a 50 ms
// debounce folds a burst into one refresh, and the 200 ms maximum wait
// bounds the latency when appends keep coming closer together than the
// debounce, which alone would then wait for a pause. The cost: at most one
// refresh per 50 ms (a burst's first event starts a wait of at least
// min(Debounce, MaxWait)), and an incremental refresh is one stat per file
// (about 14 ms for 3,000 files) plus the new bytes.
type WatchOptions struct {
	// Debounce is how long the folders must stay quiet before a refresh:
	// pi appends a line per entry, often several in a burst.
	Debounce time.Duration // default 50ms
	// MaxWait bounds the debounce: a refresh happens at the latest MaxWait
	// after the first event of a burst, even while events keep coming.
	MaxWait time.Duration // default 200ms
	// Every is a safety-net refresh interval: events can be lost (queue
	// overflow, network file systems), a periodic refresh costs one stat
	// per file.
	Every time.Duration // default 1 minute
	// Text: after each refresh, also bring the full-text index up to date
	// (IndexText); its figures are in Stats.Text.
	Text bool
	// OnRefresh is called after every refresh, from Watch's goroutine.
	OnRefresh func(*pidex.IndexStats, error)
	// CatalogEvery is how often the watcher checks that the catalog file
	// is still the one it uses (one stat): deleted or replaced, it is
	// refreshed at once, which moves to the file now at the path (see
	// catalog.DB.Verify). Default 1 s.
	CatalogEvery time.Duration
}

// Watch keeps the catalog current until ctx ends: it refreshes once, then
// again whenever something changes under the roots. File events are only
// hints (as in zoekt's and litestream's watchers): they are debounced, with
// a maximum wait, and the refresh itself rescans by stored offsets, so a
// coalesced or missed event costs latency, never correctness. Refresh
// errors go to OnRefresh and do not stop the watch; only a failure to watch
// at all is returned.
func (ix *Indexer) Watch(ctx context.Context, opt WatchOptions) error {
	if opt.Debounce <= 0 {
		opt.Debounce = 50 * time.Millisecond
	}
	if opt.MaxWait <= 0 {
		opt.MaxWait = 200 * time.Millisecond
	}
	if opt.Every <= 0 {
		opt.Every = time.Minute
	}
	if opt.CatalogEvery <= 0 {
		opt.CatalogEvery = time.Second
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("start watcher: %w", err)
	}
	defer w.Close()
	roots, err := resolveRoots(ix.Roots)
	if err != nil {
		return err
	}
	watchRoots(w, roots)

	var gen int64 // the catalog file the last refresh wrote
	once := func() (*pidex.IndexStats, error) {
		ix.SideText = true // its text pass follows
		st, err := ix.Refresh(ctx)
		gen = ix.DB.Generation()
		if err == nil && opt.Text {
			st.Text, err = ix.IndexText(ctx)
		}
		return st, err
	}
	refresh := func() {
		watchRoots(w, roots) // a root or project folder may have appeared
		st, err := once()
		// The catalog deleted or replaced during the refresh: its reads
		// fail on the vanished files (disk I/O error). That is not the
		// user's error: once more, on the file now at the path.
		if err != nil && ctx.Err() == nil && (ix.DB.Moved() || ix.DB.Generation() != gen) {
			st, err = once()
		}
		if ctx.Err() != nil {
			return
		}
		if opt.OnRefresh != nil {
			opt.OnRefresh(st, err)
		}
	}
	refresh()

	// due fires the pending refresh: Debounce after the latest event, but
	// no later than MaxWait after the first event since the last refresh.
	// (Since Go 1.23 a stopped or reset timer delivers no stale tick.)
	due := time.NewTimer(time.Hour)
	due.Stop()
	var first time.Time // first event of the pending burst; zero when none
	hint := func() {
		now := time.Now()
		if first.IsZero() {
			first = now
		}
		due.Reset(max(0, min(opt.Debounce, opt.MaxWait-now.Sub(first))))
	}
	// Every refresh rescans everything, so it covers all the events
	// received before it: the pending burst ends with it.
	refreshNow := func() {
		due.Stop()
		first = time.Time{}
		refresh()
	}
	safety := time.NewTicker(opt.Every)
	defer safety.Stop()
	// The catalog is not under the roots: no event says it was deleted.
	// Moved: the path names another file (or none); a new generation: a
	// connection opened since found that and moved the handle already,
	// to a catalog that may be empty.
	catalogCheck := time.NewTicker(opt.CatalogEvery)
	defer catalogCheck.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-w.Events:
			if !ok {
				return errors.New("watcher closed")
			}
			if ev.Op == fsnotify.Chmod {
				continue // metadata only
			}
			hint()
		case _, ok := <-w.Errors:
			if !ok {
				return errors.New("watcher closed")
			}
			// An overflow means events were dropped: refresh soon, as for any event.
			hint()
		case <-due.C:
			refreshNow()
		case <-safety.C:
			refreshNow()
		case <-catalogCheck.C:
			if ix.DB.Moved() || ix.DB.Generation() != gen {
				refreshNow()
			}
		}
	}
}

// watchRoots adds a watch on every root and on each of its immediate
// folders (project folders), where session files live, and on the deeper
// folders of the root's layout (omp's artifacts folders, pi-subagents'
// child runs, OpenClaw's agents' sessions). Adding an existing watch is a no-op; a root that does
// not exist yet is picked up by a later call.
func watchRoots(w *fsnotify.Watcher, roots []root) {
	for _, r := range roots {
		if err := w.Add(r.path); err != nil {
			// Not there yet (pi has not run): watch the nearest folder that
			// exists, so its creation is an event like any other instead of
			// waiting for the safety-net refresh.
			watchNearest(w, r.path)
			continue
		}
		for _, d := range subfolders(r.path) {
			_ = w.Add(d)
			for _, dd := range deeperDirs(r.source, subfolders(d)) {
				if r.source != pidex.SourcePi {
					_ = w.Add(dd)
					continue
				}
				for _, run := range runDirs(dd) { // pi-subagents' child runs
					_ = w.Add(run)
				}
			}
		}
	}
}

// subfolders lists the folders in dir (links to folders included).
func subfolders(dir string) []string {
	ents, err := files.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		p := dir + string(os.PathSeparator) + e.Name()
		if isDir(e, p) {
			out = append(out, p)
		}
	}
	return out
}

// watchNearest watches the nearest existing ancestor of a missing root.
func watchNearest(w *fsnotify.Watcher, root string) {
	for dir := filepath.Dir(root); ; dir = filepath.Dir(dir) {
		if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
			_ = w.Add(dir)
			return
		}
		if parent := filepath.Dir(dir); parent == dir {
			return
		}
	}
}
