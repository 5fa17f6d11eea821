package query_test

import (
	"context"
	"testing"

	"github.com/pidex-dev/pidex/query"
)

// A listing shown a page at a time (Offset, Limit) is the whole listing
// cut in pieces, in every sort order, and Count is its length.
func TestListPages(t *testing.T) {
	db := corpus(t)
	ctx := context.Background()
	for _, f := range []query.ListFilter{{}, {Sort: query.SortCost}, {Sort: query.SortCreated}, {Sort: query.SortSize}, {Project: "proj"}} {
		all, err := query.List(ctx, db.DB, f)
		if err != nil {
			t.Fatal(err)
		}
		n, err := query.Count(ctx, db.DB, f)
		if err != nil || n != len(all) {
			t.Fatalf("%+v: Count %d, %v; List %d", f, n, err, len(all))
		}
		var paged []query.SessionInfo
		for off := 0; off < len(all)+3; off += 7 {
			g := f
			g.Offset, g.Limit = off, 7
			page, err := query.List(ctx, db.DB, g)
			if err != nil {
				t.Fatal(err)
			}
			paged = append(paged, page...)
		}
		if len(paged) != len(all) {
			t.Fatalf("%+v: %d paged, %d in all", f, len(paged), len(all))
		}
		for i := range all {
			if paged[i].Path != all[i].Path {
				t.Fatalf("%+v: row %d is %s paged, %s in all", f, i, paged[i].Path, all[i].Path)
			}
		}
		g := f
		g.Offset = 5
		if rest, _ := query.List(ctx, db.DB, g); len(all) > 5 && (len(rest) != len(all)-5 || rest[0].Path != all[5].Path) {
			t.Errorf("%+v: Offset without Limit", f)
		}
	}
}
