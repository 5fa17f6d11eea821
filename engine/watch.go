package engine

import (
	"context"
	"fmt"

	"github.com/pidex-dev/pidex/indexer"
)

// Event is one refresh done by Watch, or (a team catalog) a push seen.
type Event struct {
	Stats *indexer.Stats
	Err   error
	// Pushed: a push changed the team catalog.
	Pushed bool
}

// Changed reports whether the refresh (or push) changed the catalog.
func (ev Event) Changed() bool {
	st := ev.Stats
	return ev.Pushed || st != nil && st.New+st.Appended+st.Rewritten+st.Removed > 0
}

// Subscribe returns a channel that receives every refresh Watch makes,
// and a function that ends the subscription. A subscriber that falls
// behind misses events rather than holding up the watcher: an event only
// says "the catalog changed, ask again".
func (e *Engine) Subscribe() (<-chan Event, func()) {
	ch := make(chan Event, 16)
	e.mu.Lock()
	e.subs[ch] = struct{}{}
	e.mu.Unlock()
	return ch, func() {
		e.mu.Lock()
		defer e.mu.Unlock()
		if _, ok := e.subs[ch]; ok {
			delete(e.subs, ch)
			close(ch)
		}
	}
}

func (e *Engine) publish(ev Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for ch := range e.subs {
		select {
		case ch <- ev:
		default:
		}
	}
}

// WatchOptions tune Watch (see indexer.WatchOptions); OnRefresh, if set,
// is called for every refresh, before subscribers hear of it.
type WatchOptions = indexer.WatchOptions

// Watch keeps the catalog current until ctx ends: a refresh at once, then
// after every change under the roots (events coalesced, with a maximum
// wait) and periodically as a safety net. Every refresh goes to
// OnRefresh and to the subscribers. Over a team catalog it refreshes
// nothing: it tells the subscribers of every push it sees.
func (e *Engine) Watch(ctx context.Context, opts WatchOptions) error {
	if e.team != nil {
		return e.watchTeam(ctx, opts)
	}
	if err := e.writable(); err != nil {
		return fmt.Errorf("watch: %w", err)
	}
	on := opts.OnRefresh
	opts.OnRefresh = func(st *indexer.Stats, err error) {
		if on != nil {
			on(st, err)
		}
		e.publish(Event{Stats: st, Err: err})
	}
	ix := e.indexer(e.db)
	ix.Progress = nil // a watch's refreshes are small; nothing to draw
	return ix.Watch(ctx, opts)
}
