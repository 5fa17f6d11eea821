package web

import (
	"sync"

	"github.com/pidex-dev/pidex/query"
	"github.com/pidex-dev/pidex/schema"
)

// previewCache keeps the tree panel's previews between requests. Reading
// them means decoding every line of the file (1.7 s for a 50 MB session);
// a session file only grows, so a later request — the same page again, or
// the page refetching itself on a live change — reads only the new
// entries. An entry is known by its offset, length and id, so a rewritten
// file cannot be shown another entry's preview.
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

// previews returns the previews of the tree's entries, by offset.
func (c *previewCache) previews(ref schema.SessionRef, roots []*query.TreeNode) (map[int64]string, error) {
	c.mu.Lock()
	known := c.files[ref.Path]
	c.mu.Unlock()
	var missing []schema.PathEntry
	out := map[int64]string{}
	walk(roots, func(n *query.TreeNode) {
		if p, ok := known[previewKey{n.Offset, n.Length, n.ID}]; ok {
			out[n.Offset] = p
		} else {
			missing = append(missing, n.PathEntry)
		}
	})
	if len(missing) == 0 {
		return out, nil
	}
	fresh, err := query.PreviewRows(ref.Path, missing)
	if err != nil {
		return nil, err
	}
	next := make(map[previewKey]string, len(out)+len(fresh))
	for _, e := range missing {
		out[e.Offset] = fresh[e.Offset]
		next[previewKey{e.Offset, e.Length, e.ID}] = fresh[e.Offset]
	}
	walk(roots, func(n *query.TreeNode) { next[previewKey{n.Offset, n.Length, n.ID}] = out[n.Offset] })
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.files == nil {
		c.files = map[string]map[previewKey]string{}
	}
	c.files[ref.Path] = next
	for i, p := range c.order {
		if p == ref.Path {
			c.order = append(c.order[:i], c.order[i+1:]...)
			break
		}
	}
	c.order = append(c.order, ref.Path)
	if len(c.order) > previewFiles {
		delete(c.files, c.order[0])
		c.order = c.order[1:]
	}
	return out, nil
}

// walk visits every node, iteratively (a conversation is as deep as it is long).
func walk(roots []*query.TreeNode, visit func(*query.TreeNode)) {
	stack := append([]*query.TreeNode(nil), roots...)
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		visit(n)
		stack = append(stack, n.Children...)
	}
}

// contextCache keeps the last few rebuilt contexts: rebuilding one reads
// and decodes every entry on the path (about a second for a 9,000-entry
// session), and a reader moves around one session. A context is known by
// the file, its size and entry count as last indexed, and the leaf, so a
// file that grew is rebuilt.
type contextCache struct {
	mu      sync.Mutex
	entries []cachedContext // least recently used first
}

type contextKey struct {
	path          string
	size, entries int64
	leaf          string
	window        string // "": pi's whole context; else the window read whole (see sessionContext)
}

type cachedContext struct {
	key contextKey
	sc  *query.SessionContext
}

// contexts is how many rebuilt contexts are kept (each holds its path's
// lines: tens of megabytes for the largest sessions).
const contexts = 2

func (c *contextCache) get(k contextKey, build func() (*query.SessionContext, error)) (*query.SessionContext, error) {
	c.mu.Lock()
	for i, e := range c.entries {
		if e.key == k {
			c.entries = append(append(c.entries[:i:i], c.entries[i+1:]...), e)
			c.mu.Unlock()
			return e.sc, nil
		}
	}
	c.mu.Unlock()
	sc, err := build()
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.entries = append(c.entries, cachedContext{k, sc})
	if len(c.entries) > contexts {
		c.entries = c.entries[1:]
	}
	return sc, nil
}
