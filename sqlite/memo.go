package sqlite

import (
	"context"
	"sync"

	"github.com/jmoiron/sqlx"
)

// cacheMemo keeps what a reader decoded of its read caches (catalog's
// read_caches: the listing, each rollup), per cache, with the generation
// of the blob it came from. A long-lived reader (serve, mcp) asks the
// same questions again and again: it then reads the cache's generation
// instead of its blob (a page and its count each decoded the listing; a
// cost report read and checked the rollup's file, 0.8 ms of 6). A
// one-shot command's memo is empty, so it costs that command nothing.
// What is kept is never changed: callers filter into new slices, and a
// blob's bytes are a copy or a mapping that is never unmapped
// (DB.LoadCache).
type cacheMemo[T any] struct {
	mu sync.Mutex
	m  map[string]memoEntry[T]
}

type memoEntry[T any] struct {
	gen int64
	v   T
}

// valid returns what the memo keeps of the cache name if the catalog's
// blob for it, as tx sees it, is still the valid one it was made from.
func (m *cacheMemo[T]) valid(ctx context.Context, tx sqlx.QueryerContext, name string) (v T, ok bool, err error) {
	m.mu.Lock()
	got, ok := m.m[name]
	m.mu.Unlock()
	if !ok {
		return v, false, nil
	}
	now, valid, err := CacheGen(ctx, tx, name)
	if err != nil || !valid || now != got.gen {
		return v, false, err
	}
	return got.v, true, nil
}

// set keeps v, made from the cache name's rows or blob of generation gen.
func (m *cacheMemo[T]) set(name string, gen int64, v T) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.m == nil {
		m.m = map[string]memoEntry[T]{}
	}
	m.m[name] = memoEntry[T]{gen, v}
}
