package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/indexer"
	"github.com/pidex-dev/pidex/query"

	"github.com/pidex-dev/pidex/postgres"
)

// A team catalog (Options.Catalog, a postgres:// URL) is read, never
// refreshed here: machines fill it with pidex push. The engine then
// answers every read from it (postgres.Reader), and Watch tells
// subscribers when a push changed it.

// ErrTeamCatalog: an operation that writes the local catalog, asked of an
// engine over a team catalog.
var ErrTeamCatalog = errors.New("a team catalog is filled by pidex push from each machine, never refreshed by a reader")

// openTeam opens the team catalog at opts.Catalog for reading.
func openTeam(ctx context.Context, opts Options) (*Engine, error) {
	st, err := postgres.Open(ctx, opts.Catalog, postgres.Options{})
	if err != nil {
		return nil, err
	}
	e := &Engine{Reader: query.New(st.Reader(), nil), team: st, opts: opts, extra: map[string]bool{}, subs: map[chan pidex.Event]struct{}{}}
	if behind, err := st.Behind(ctx, indexer.Derivation); err == nil && len(behind) > 0 {
		e.notify(fmt.Sprintf("machine(s) %s pushed with another version of pidex: their rows are as that version derived them until their next push",
			strings.Join(behind, ", ")))
	}
	return e, nil
}

// PushOptions say what Push mirrors (see postgres.PushOptions); the
// engine's roots are the roots pushed.
type PushOptions = postgres.PushOptions

// PushStats say what a push did.
type PushStats = postgres.PushStats

// Push mirrors the local catalog (refresh it first) into the team catalog
// at url (or behind the team server at url, https://, with o.Token), as
// o.Machine: only what changed since that machine's last push travels. The team catalog's schema is migrated first when the URL's
// role owns it; a push by another role needs none pending (and a pidex
// that lacks one of the catalog's migrations refuses it).
func (e *Engine) Push(ctx context.Context, url string, o PushOptions) (*PushStats, error) {
	if err := e.writable(); err != nil { // a team catalog among them
		return nil, fmt.Errorf("push: %w", err)
	}
	if postgres.IsServerURL(url) { // a team server, with the machine's token
		o.Roots = e.Roots()
		if o.Progress == nil {
			o.Progress = e.opts.Progress
		}
		return postgres.PushToServer(ctx, e.db, url, o)
	}
	st, err := postgres.Open(ctx, url, postgres.Options{Migrate: true, Version: o.Version})
	if err != nil {
		return nil, err
	}
	defer st.Close()
	o.Roots = e.Roots()
	if o.Progress == nil {
		o.Progress = e.opts.Progress
	}
	return st.Push(ctx, e.db, o)
}

// teamPoll is how often Watch asks a team catalog whether a push changed
// it: a push commits file by file, and a page a second late is live.
const teamPoll = time.Second

// watchTeam tells subscribers when a push changed the team catalog (its
// machines' change counters moved), until ctx ends.
func (e *Engine) watchTeam(ctx context.Context, opts WatchOptions) error {
	last, err := e.team.Changes(ctx)
	if err != nil {
		return err
	}
	t := time.NewTicker(teamPoll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		n, err := e.team.Changes(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			if opts.OnRefresh != nil {
				opts.OnRefresh(nil, err)
			}
			continue
		}
		if n == last {
			continue
		}
		last = n
		e.publish(pidex.Event{Pushed: true})
	}
}
