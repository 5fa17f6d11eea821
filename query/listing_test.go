package query_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/indexer"
	"github.com/pidex-dev/pidex/query"
	"github.com/pidex-dev/pidex/sqlite"
)

// A listing filters, in Go, the catalog's listing cache (or its rows
// when the cache is stale) exactly as SQL filters the rows: every filter,
// alone and together, read from the rows, then from the blob the first
// read kept, equals the paths a SQL statement over the tables selects.
// The catalog holds pi's, omp's (subagents not listed) and OpenClaw's
// sessions, under several roots; names and working directories with
// capitals, non-ASCII capitals among them, which SQLite's lower() leaves
// alone.
func TestListingFiltersAsSQL(t *testing.T) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "c.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	roots := []string{sessionsRoot, "omp:" + ompSessions + "/agent/sessions", "openclaw:../testdata/sessions-openclaw/agents"}
	if _, err := (&indexer.Indexer{DB: db, Roots: roots}).Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	// Names and folders to fold: 'Ä' is not folded by SQLite's lower().
	if _, err := db.ExecContext(ctx, `UPDATE sessions SET name = CASE file_id % 3 WHEN 0 THEN 'Fix the ÄPI Build' WHEN 1 THEN NULL ELSE name END,
		cwd = CASE WHEN file_id % 4 = 0 THEN upper(cwd) ELSE cwd END`); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.GetContext(ctx, &n, `SELECT count(*) FROM sessions WHERE subagent = 1`); err != nil || n == 0 {
		t.Fatalf("the corpus should hold omp subagents: %d, %v", n, err)
	}
	abs, err := indexer.AbsRoots(roots)
	if err != nil {
		t.Fatal(err)
	}
	var mid int64
	if err := db.GetContext(ctx, &mid, `SELECT last_activity_ms FROM sessions WHERE last_activity_ms > 0
		ORDER BY last_activity_ms LIMIT 1 OFFSET (SELECT count(*) / 2 FROM sessions WHERE last_activity_ms > 0)`); err != nil {
		t.Fatal(err)
	}
	since := time.UnixMilli(mid) // a session's own time: the bounds' edges count
	filters := []struct {
		f     pidex.ListFilter
		where string
		args  []any
	}{
		{pidex.ListFilter{}, "", nil},
		{pidex.ListFilter{Where: pidex.Where{"project": "PROJ"}}, "instr(lower(s.cwd), lower(?)) > 0", []any{"PROJ"}},
		{pidex.ListFilter{Where: pidex.Where{"project": "alpha"}}, "instr(lower(s.cwd), lower(?)) > 0", []any{"alpha"}},
		{pidex.ListFilter{Where: pidex.Where{"name": "äpi"}}, "instr(lower(s.name), lower(?)) > 0", []any{"äpi"}},
		{pidex.ListFilter{Where: pidex.Where{"name": "ÄPI build"}}, "instr(lower(s.name), lower(?)) > 0", []any{"ÄPI build"}},
		{pidex.ListFilter{Where: pidex.Where{"cwd": "/home/ann/proj-alpha"}}, "s.cwd = ?", []any{"/home/ann/proj-alpha"}},
		{pidex.ListFilter{Where: pidex.Where{"agent": pidex.SourceOmp + "," + pidex.SourceOpenClaw}}, "s.source IN (?, ?)", []any{pidex.SourceOmp, pidex.SourceOpenClaw}},
		{pidex.ListFilter{Since: since}, modifiedExpr + " >= ?", []any{mid}},
		{pidex.ListFilter{Until: since}, modifiedExpr + " < ?", []any{mid}},
		{pidex.ListFilter{Where: pidex.Where{"project": "a", "agent": pidex.SourcePi}, Since: since}, "instr(lower(s.cwd), 'a') > 0 AND " + modifiedExpr + " >= ? AND s.source = 'pi'", []any{mid}},
	}
	readers := []struct {
		roots []string
		where string
	}{{nil, ""}, {abs[:1], "f.root = '" + abs[0] + "'"}, {abs[1:], "f.root IN ('" + abs[1] + "', '" + abs[2] + "')"}}
	for _, r := range readers {
		for _, c := range filters {
			conds := []string{"s.subagent = 0"}
			for _, w := range []string{r.where, c.where} {
				if w != "" {
					conds = append(conds, w)
				}
			}
			var want []string
			if err := db.SelectContext(ctx, &want, `SELECT f.path FROM sessions s JOIN files f ON f.id = s.file_id WHERE `+
				strings.Join(conds, " AND ")+` ORDER BY f.path`, c.args...); err != nil {
				t.Fatal(err)
			}
			for _, cached := range []bool{false, true} {
				if !cached { // stale: read from the rows, and the blob kept
					if _, err := db.ExecContext(ctx, `UPDATE read_caches SET gen = gen + 1 WHERE name = 'listing'`); err != nil {
						t.Fatal(err)
					}
				}
				got := listedPaths(t, newReader(db, r.roots), c.f)
				if !slices.Equal(got, want) {
					t.Errorf("roots %v, %+v, cached %v:\n got %q\nwant %q", r.roots, c.f, cached, got, want)
				}
				if c, err := db.LoadCache(ctx, db.DB, sqlite.CacheListing); err != nil || c.Data == nil {
					t.Fatalf("no listing blob kept after a listing: %v", err)
				}
			}
		}
	}
}

// modifiedExpr is pi's `modified` in SQL (query's modifiedSQL).
const modifiedExpr = `CASE WHEN s.last_activity_ms > 0 THEN s.last_activity_ms
	WHEN s.created_ms IS NOT NULL THEN s.created_ms ELSE f.mtime_ns / 1000000 END`

// listedPaths lists with f and checks that Count agrees.
func listedPaths(t *testing.T, rd *query.Reader, f pidex.ListFilter) []string {
	t.Helper()
	ctx := context.Background()
	ss, err := rd.ListF(ctx, f)
	if err != nil {
		t.Fatal(err)
	}
	n, err := rd.CountF(ctx, f)
	if err != nil || n != len(ss) {
		t.Fatalf("%+v: Count %d, %v; List %d", f, n, err, len(ss))
	}
	paths := make([]string, len(ss))
	for i, s := range ss {
		paths[i] = s.Path
	}
	slices.Sort(paths)
	return paths
}

// The listing read from the blob is the listing read from the rows, field
// for field, in every sort order; a blob stored for rows that changed
// since is never used, and a blob that does not read falls back to the
// rows.
func TestListingCacheIsTheRows(t *testing.T) {
	ctx := context.Background()
	db := corpus(t)
	rd := newReader(db, nil)
	stale := func() {
		if _, err := db.ExecContext(ctx, `UPDATE read_caches SET gen = gen + 1 WHERE name = 'listing'`); err != nil {
			t.Fatal(err)
		}
	}
	for _, sort := range pidex.ListSorts {
		stale()
		fromRows, err := rd.ListF(ctx, pidex.ListFilter{Sort: sort})
		if err != nil {
			t.Fatal(err)
		}
		fromBlob, err := rd.ListF(ctx, pidex.ListFilter{Sort: sort})
		if err != nil {
			t.Fatal(err)
		}
		if len(fromRows) < 10 || !equalJSON(t, fromRows, fromBlob) {
			t.Fatalf("sort %s: the blob's listing differs from the rows' (%d sessions)", sort, len(fromRows))
		}
	}
	// The same reader, whose memo holds the listing just read, sees a
	// change at once.
	if _, err := db.ExecContext(ctx, `UPDATE sessions SET message_count = message_count + 1000 WHERE file_id = (SELECT min(file_id) FROM sessions)`); err != nil {
		t.Fatal(err)
	}
	changed, err := rd.ListF(ctx, pidex.ListFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(changed, func(s pidex.Session) bool { return s.MessageCount >= 1000 }) {
		t.Fatal("a reader kept its memo of the listing after the rows changed")
	}
	if _, err := db.ExecContext(ctx, `UPDATE sessions SET message_count = message_count - 1000 WHERE message_count >= 1000`); err != nil {
		t.Fatal(err)
	}
	if _, err := rd.ListF(ctx, pidex.ListFilter{}); err != nil { // reads the rows, keeps a blob
		t.Fatal(err)
	}
	// A blob made from rows that changed before it was stored is refused.
	c, err := db.LoadCache(ctx, db.DB, sqlite.CacheListing)
	if err != nil || c.Data == nil {
		t.Fatalf("no blob: %v", err)
	}
	if _, err := db.ExecContext(ctx, `UPDATE sessions SET name = name WHERE file_id = (SELECT min(file_id) FROM sessions)`); err != nil {
		t.Fatal(err)
	}
	if err := db.StoreCache(ctx, sqlite.CacheListing, c.Gen, c.Data); err != nil {
		t.Fatal(err)
	}
	if c, err := db.LoadCache(ctx, db.DB, sqlite.CacheListing); err != nil || c.Data != nil {
		t.Fatalf("a blob of older rows was stored: %v", err)
	}
	// A blob that does not read (another format) is read past.
	want, err := rd.ListF(ctx, pidex.ListFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, `UPDATE read_caches SET data = x'ff00' WHERE name = 'listing'`); err != nil {
		t.Fatal(err)
	}
	got, err := rd.ListF(ctx, pidex.ListFilter{})
	if err != nil || !equalJSON(t, got, want) {
		t.Fatalf("a malformed blob: %v", err)
	}
}

// equalJSON compares two values by their JSON, the listing's contract.
func equalJSON(t *testing.T, a, b any) bool {
	t.Helper()
	ja, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	jb, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	return string(ja) == string(jb)
}

// A command's listing (a OneShot catalog: the page cut from the blob as
// it is read, only its rows decoded to keep) is a long-lived reader's
// (the blob decoded whole, then paged), page for page, in every sort
// order, filtered or not, and counts the same.
func TestOneShotPageIsTheListing(t *testing.T) {
	ctx := context.Background()
	db := corpus(t)
	whole := newReader(db, nil)
	if _, err := whole.ListF(ctx, pidex.ListFilter{}); err != nil { // the blob, kept
		t.Fatal(err)
	}
	shot, err := sqlite.Open(ctx, db.Path)
	if err != nil {
		t.Fatal(err)
	}
	defer shot.Close()
	shot.OneShot = true
	once := newReader(shot, nil)
	n, err := whole.CountF(ctx, pidex.ListFilter{Subagents: true})
	if err != nil || n < 10 {
		t.Fatalf("%d sessions, %v", n, err)
	}
	pages := [][2]int{{0, 0}, {5, 0}, {5, 7}, {1, n - 1}, {3, n + 3}, {0, 4}}
	for _, sort := range pidex.ListSorts {
		for _, where := range []pidex.Where{nil, {"project": "a"}} {
			for _, sub := range []bool{false, true} {
				for _, pg := range pages {
					f := pidex.ListFilter{Sort: sort, Where: where, Subagents: sub, Limit: pg[0], Offset: pg[1]}
					want, err := whole.ListF(ctx, f)
					if err != nil {
						t.Fatal(err)
					}
					got, err := once.ListF(ctx, f)
					if err != nil {
						t.Fatal(err)
					}
					if !equalJSON(t, got, want) {
						t.Errorf("%+v: the one-shot page (%d) differs from the listing's (%d)", f, len(got), len(want))
					}
					wn, _ := whole.CountF(ctx, f)
					if gn, err := once.CountF(ctx, f); err != nil || gn != wn {
						t.Errorf("%+v: count %d, %v; want %d", f, gn, err, wn)
					}
				}
			}
		}
	}
}
