package query

import (
	"context"
	"sync"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/pi"
)

// previewCache keeps sessions' previews between calls. Reading them means
// decoding every line of the file (1.7 s for a 50 MB session); a session
// file only grows, so a later call — the same page again, or the page
// refetching itself on a live change — reads only the new entries. An
// entry is known by its offset, length and id, so a rewritten file cannot
// be shown another entry's preview.
type previewCache struct {
	mu    sync.Mutex
	files map[string]map[previewKey]string // by session file path
	order []string                         // paths, least recently used first
}

type previewKey struct {
	offset, length int64
	id             string
}

// previewFiles is how many sessions' previews are kept.
const previewFiles = 8

// previews returns the previews of a session's entries, by offset.
func (c *previewCache) previews(ctx context.Context, b Backend, ref pidex.SessionRef, rows []pidex.Entry) (map[int64]string, error) {
	path := ref.Machine + "\x00" + ref.Path // a team catalog holds the same path on two machines
	c.mu.Lock()
	known := c.files[path]
	c.mu.Unlock()
	var missing []pidex.Entry
	out := make(map[int64]string, len(rows))
	for _, r := range rows {
		if p, ok := known[previewKey{r.Offset, r.Length, r.ID}]; ok {
			out[r.Offset] = p
		} else {
			missing = append(missing, r)
		}
	}
	if len(missing) == 0 {
		return out, nil
	}
	fresh, err := previews(ctx, b, ref, missing)
	if err != nil {
		return nil, err
	}
	next := make(map[previewKey]string, len(rows))
	for _, r := range rows {
		if p, ok := fresh[r.Offset]; ok {
			out[r.Offset] = p
		}
		next[previewKey{r.Offset, r.Length, r.ID}] = out[r.Offset]
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.files == nil {
		c.files = map[string]map[previewKey]string{}
	}
	c.files[path] = next
	c.order = touch(c.order, path)
	if len(c.order) > previewFiles {
		delete(c.files, c.order[0])
		c.order = c.order[1:]
	}
	return out, nil
}

// touch moves path to the end of order (most recently used).
func touch(order []string, path string) []string {
	for i, p := range order {
		if p == path {
			order = append(order[:i], order[i+1:]...)
			break
		}
	}
	return append(order, path)
}

// contextCache keeps the last few rebuilt contexts: rebuilding one reads
// and decodes every entry on the path (about a second for a 9,000-entry
// session), and a reader moves around one session. A context is known by
// the file, its size and entry count as last indexed, and how it was
// read, so a file that grew is rebuilt.
type contextCache struct {
	mu      sync.Mutex
	entries []cachedContext // least recently used first
}

type contextKey struct {
	path, machine string
	size, entries int64
	spec          ContextSpec
}

type cachedContext struct {
	key      contextKey
	sc       *pi.SessionContext
	from, to int
}

// contexts is how many rebuilt contexts are kept (each holds its path's
// lines: tens of megabytes for the largest sessions).
const contexts = 2

func (c *contextCache) get(k contextKey, build func() (*pi.SessionContext, int, int, error)) (*pi.SessionContext, int, int, error) {
	c.mu.Lock()
	for i, e := range c.entries {
		if e.key == k {
			c.entries = append(append(c.entries[:i:i], c.entries[i+1:]...), e)
			c.mu.Unlock()
			return e.sc, e.from, e.to, nil
		}
	}
	c.mu.Unlock()
	sc, from, to, err := build()
	if err != nil {
		return nil, 0, 0, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.entries = append(c.entries, cachedContext{k, sc, from, to})
	if len(c.entries) > contexts {
		c.entries = c.entries[1:]
	}
	return sc, from, to, nil
}
