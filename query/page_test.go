package query_test

import (
	"context"
	"testing"

	"github.com/pidex-dev/pidex"
)

// A listing shown a page at a time (Offset, Limit) is the whole listing
// cut in pieces, in every sort order, and Count is its length.
func TestListPages(t *testing.T) {
	db := corpus(t)
	ctx := context.Background()
	for _, f := range []pidex.ListFilter{{}, {Sort: pidex.SortCost}, {Sort: pidex.SortCreated}, {Sort: pidex.SortSize}, {Where: pidex.Where{"project": "proj"}}} {
		all, err := newReader(db, nil).ListF(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		n, err := newReader(db, nil).CountF(ctx, f)
		if err != nil || n != len(all) {
			t.Fatalf("%+v: Count %d, %v; List %d", f, n, err, len(all))
		}
		var paged []pidex.Session
		for off := 0; off < len(all)+3; off += 7 {
			g := f
			g.Offset, g.Limit = off, 7
			page, err := newReader(db, nil).ListF(ctx, g)
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
		if rest, _ := newReader(db, nil).ListF(ctx, g); len(all) > 5 && (len(rest) != len(all)-5 || rest[0].Path != all[5].Path) {
			t.Errorf("%+v: Offset without Limit", f)
		}
	}
}
