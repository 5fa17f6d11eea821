package query_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/query"
)

// A long session's path is walked in Go, a short one's by the recursive
// statement: both give the same path for every leaf, in sessions with
// branches, a missing parent and a parent cycle.
func TestPathWalkInGoIsTheStatementsWalk(t *testing.T) {
	e := newSearchEnv(t)
	r := rand.New(rand.NewPCG(3, 4))
	for s := range 6 {
		lines := []string{hdr(fmt.Sprintf("p%d", s), "/w")}
		for i := range 40 {
			parent := ""
			if i > 0 {
				parent = fmt.Sprintf("e%d", max(0, i-1-r.IntN(4)))
			}
			switch {
			case s == 4 && i == 20:
				parent = "gone" // a missing parent
			case s == 5 && i == 10:
				parent = "e30" // a cycle: e10 → e30 → … → e10
			case s == 3 && i == 25:
				lines = append(lines, userMsg("e5", "e24", "a repeated id: the later owns it", "2026-05-01T10:00:01.000Z"))
			}
			lines = append(lines, userMsg(fmt.Sprintf("e%d", i), parent, fmt.Sprintf("message %d", i), "2026-05-01T10:00:01.000Z"))
		}
		e.file(fmt.Sprintf("--w--/p%d.jsonl", s), lines...)
	}
	e.refresh()
	rd, inGo := newReader(e.ix.DB, nil), newReader(e.ix.DB, nil)
	query.WalkInGoAt(rd, 1<<62)
	query.WalkInGoAt(inGo, 0)
	var ids []int64
	if err := e.ix.DB.Select(&ids, "SELECT file_id FROM sessions ORDER BY file_id"); err != nil {
		t.Fatal(err)
	}
	compared := 0
	for _, id := range ids {
		for _, leaf := range append([]string{"", "nope"}, func() (l []string) {
			for i := range 40 {
				l = append(l, fmt.Sprintf("e%d", i))
			}
			return l
		}()...) {
			want, werr := rd.PathOf(context.Background(), id, leaf)
			got, gerr := inGo.PathOf(context.Background(), id, leaf)
			if errors.Is(gerr, pidex.ErrNotFound) != errors.Is(werr, pidex.ErrNotFound) || (gerr == nil) != (werr == nil) {
				t.Fatalf("file %d leaf %q: error %v, the statement's %v", id, leaf, gerr, werr)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("file %d leaf %q: path %v, the statement's %v", id, leaf, got, want)
			}
			compared += len(want)
		}
	}
	if compared < 1000 {
		t.Errorf("only %d path entries compared", compared)
	}
}
