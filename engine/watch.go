package engine

import (
	"context"
	"fmt"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/indexer"
)

// Subscribe returns a channel that receives every refresh Watch makes,
// and a function that ends the subscription. A subscriber that falls
// behind misses events rather than holding up the watcher: an event only
// says "the catalog changed, ask again".
func (e *Engine) Subscribe() (<-chan pidex.Event, func()) {
	ch := make(chan pidex.Event, 16)
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

func (e *Engine) publish(ev pidex.Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for ch := range e.subs {
		select {
		case ch <- ev:
		default:
		}
	}
}

// WatchOptions say what Watch does besides keeping the catalog current.
type WatchOptions struct {
	// Text: after each refresh, also bring the full-text index up to date.
	Text bool
	// OnRefresh, if set, is called for every refresh, before subscribers
	// hear of it.
	OnRefresh func(*pidex.IndexStats, error)
}

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
	ix := e.indexer(e.db)
	ix.Progress = nil // a watch's refreshes are small; nothing to draw
	return ix.Watch(ctx, indexer.WatchOptions{Text: opts.Text, OnRefresh: func(st *pidex.IndexStats, err error) {
		if opts.OnRefresh != nil {
			opts.OnRefresh(st, err)
		}
		e.publish(pidex.Event{Stats: st, Err: err})
	}})
}
