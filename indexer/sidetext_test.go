package indexer

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jmoiron/sqlx"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/catalogtest"
)

// textIndex prints what a catalog's text index holds: every term with the
// entries that hold it (by path and line, from FTS5's own vocabulary),
// each entry's size, the totals and the files' text cursors.
func textIndex(t *testing.T, ix *Indexer) string {
	t.Helper()
	ctx := context.Background()
	conn, err := ix.DB.Connx(ctx) // the vocabulary table is the connection's
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `CREATE VIRTUAL TABLE IF NOT EXISTS temp.text_vocab USING fts5vocab(main, 'text_index', 'instance')`); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, q := range []string{
		`SELECT v.term || ' ' || f.path || ':' || (v.doc & 268435455) FROM temp.text_vocab v JOIN files f ON f.id = v.doc >> 28 ORDER BY 1`,
		`SELECT f.path || ':' || (s.id & 268435455) || ' ' || s.n FROM text_sizes s JOIN files f ON f.id = s.id >> 28 ORDER BY 1`,
		`SELECT rows || ' ' || tokens FROM text_totals`,
		`SELECT path || ' ' || text_offset || '/' || offset FROM files ORDER BY path`,
	} {
		var lines []string
		if err := conn.SelectContext(ctx, &lines, q); err != nil {
			t.Fatal(err)
		}
		b.WriteString(strings.Join(lines, "\n") + "\n--\n")
	}
	return b.String()
}

// termHits looks every term of the text index up through FTS5's own
// search (which finds a term's pages by the index's %_idx table, as
// search does; the vocabulary reads the segments through) and prints the
// entries each finds.
func termHits(t *testing.T, ix *Indexer) string {
	t.Helper()
	ctx := context.Background()
	conn, err := ix.DB.Connx(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `CREATE VIRTUAL TABLE IF NOT EXISTS temp.text_terms USING fts5vocab(main, 'text_index', 'row')`); err != nil {
		t.Fatal(err)
	}
	var terms []string
	if err := conn.SelectContext(ctx, &terms, `SELECT term FROM temp.text_terms ORDER BY term`); err != nil {
		t.Fatal(err)
	}
	if len(terms) < 100 {
		t.Fatalf("only %d terms", len(terms))
	}
	var b strings.Builder
	for _, term := range terms {
		var found string
		err := conn.GetContext(ctx, &found, `SELECT COALESCE(group_concat(rowid, ' '), '') FROM (SELECT rowid FROM text_index WHERE text_index MATCH ? ORDER BY rowid)`,
			`"`+strings.ReplaceAll(term, `"`, `""`)+`"`)
		if err != nil {
			t.Fatalf("%q: %v", term, err)
		}
		b.WriteString(term + ": " + found + "\n")
	}
	return b.String()
}

// ftsIntact fails t unless FTS5 finds the catalog's text index whole.
func ftsIntact(t *testing.T, ix *Indexer) {
	t.Helper()
	if _, err := ix.DB.Exec(`INSERT INTO text_index (text_index, rank) VALUES ('integrity-check', 0)`); err != nil {
		t.Fatalf("text index: %v", err)
	}
	catalogtest.TextSizesHold(t, ix.DB.DB)
}

func indexText(t *testing.T, ix *Indexer) *pidex.TextStats {
	t.Helper()
	st, err := ix.IndexText(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func sideRoots() []string {
	return []string{filepath.Join("..", "testdata", "sessions"), "omp:" + filepath.Join("..", "testdata", "sessions-omp")}
}

// A bulk load's text built beside the catalog and adopted by the text
// pass is the text index the text pass builds itself: the same terms in
// the same entries, sizes, totals and cursors. FTS5 finds it whole, and
// it takes appends afterwards.
func TestSideTextIsTheTextPass(t *testing.T) {
	side := newIndexer(t, "")
	side.Roots, side.bulkNew, side.SideText = sideRoots(), 1, true
	refresh(t, side)
	scratch := side.DB.Path + sideSuffix
	if _, err := os.Stat(scratch); err != nil {
		t.Fatalf("a bulk load left no side index: %v", err)
	}
	txs := 0
	side.beforeText = func() { txs++ }
	st := indexText(t, side)
	if txs != 0 {
		t.Fatalf("the text pass wrote %d transactions of its own: the side index was not adopted", txs)
	}
	if _, err := os.Stat(scratch); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the side index is still there after the text pass: %v", err)
	}
	var sessions int
	if err := side.DB.Get(&sessions, `SELECT count(*) FROM files WHERE kind = 'session'`); err != nil {
		t.Fatal(err)
	}
	if st.Files != sessions || st.Entries == 0 {
		t.Fatalf("text pass: %+v, want the %d sessions adopted", st, sessions)
	}
	ftsIntact(t, side)

	pass := newIndexer(t, "")
	pass.Roots, pass.bulkNew, pass.SideText = sideRoots(), 1<<30, true
	refresh(t, pass)
	if _, err := os.Stat(pass.DB.Path + sideSuffix); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a refresh that is no bulk load built a side index: %v", err)
	}
	// Nor does a bulk load whose caller runs no text pass after it.
	listOnly := newIndexer(t, "")
	listOnly.Roots, listOnly.bulkNew = sideRoots(), 1
	refresh(t, listOnly)
	if _, err := os.Stat(listOnly.DB.Path + sideSuffix); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a bulk load without SideText built a side index: %v", err)
	}
	indexText(t, pass)
	if got, want := textIndex(t, side), textIndex(t, pass); got != want {
		t.Fatalf("adopted side index differs from the text pass's:\n--- side\n%.3000s\n--- text pass\n%.3000s", got, want)
	}
	if got, want := termHits(t, side), termHits(t, pass); got != want {
		t.Fatalf("searches differ:\n--- side\n%.3000s\n--- text pass\n%.3000s", got, want)
	}
	if got, want := dump(t, side), dump(t, pass); got != want {
		t.Fatalf("catalogs differ:\n--- side\n%.3000s\n--- text pass\n%.3000s", got, want)
	}
}

// After adoption the index is FTS5's own: appended entries go into it and
// are found, on every connection of the pool.
func TestSideTextTakesAppends(t *testing.T) {
	root := t.TempDir()
	if err := os.CopyFS(root, os.DirFS(filepath.Join("..", "testdata", "sessions"))); err != nil {
		t.Fatal(err)
	}
	ix := newIndexer(t, root)
	ix.bulkNew, ix.SideText = 1, true
	refresh(t, ix)
	indexText(t, ix)
	p := filepath.Join(root, "--w-app--", "late.jsonl")
	write(t, p, header+msg("z1", "", "user", "zebrafinch appended", 1))
	refresh(t, ix)
	indexText(t, ix)
	for range 4 { // more than one connection of the pool
		var n int
		if err := ix.DB.Get(&n, `SELECT count(*) FROM text_index WHERE text_index MATCH 'zebrafinch'`); err != nil {
			t.Fatal(err)
		}
		if n != 1 {
			t.Fatalf("the appended entry found %d times, want once", n)
		}
	}
	ftsIntact(t, ix)
	assertSameAsFresh(t, ix)
}

// A side index is adopted only as it was built: a file changed since
// (another process rewrote it), a catalog whose text index is no longer
// empty, or a scratch file that is no side index leave it unused, and the
// text pass indexes every file itself. The scratch file goes in any case.
func TestSideTextNotAdoptedWhenOvertaken(t *testing.T) {
	want := ""
	for _, c := range []struct {
		name   string
		before func(t *testing.T, ix *Indexer)
	}{
		{"file rewritten since", func(t *testing.T, ix *Indexer) {
			// As another process's refresh would leave it: the file read
			// again from its start, its text cursor at 0.
			if _, err := ix.DB.Exec(`UPDATE files SET generation = generation + 1 WHERE id = (SELECT min(id) FROM files WHERE kind = 'session')`); err != nil {
				t.Fatal(err)
			}
		}},
		{"file's first bytes differ", func(t *testing.T, ix *Indexer) {
			if _, err := ix.DB.Exec(`UPDATE files SET head_hash = 'other' WHERE id = (SELECT min(id) FROM files WHERE kind = 'session')`); err != nil {
				t.Fatal(err)
			}
		}},
		{"file shorter since", func(t *testing.T, ix *Indexer) {
			if _, err := ix.DB.Exec(`UPDATE files SET offset = 1 WHERE id = (SELECT max(id) FROM files WHERE kind = 'session')`); err != nil {
				t.Fatal(err)
			}
		}},
		{"index no longer empty", func(t *testing.T, ix *Indexer) {
			if _, err := ix.DB.Exec(`INSERT INTO text_sizes (id, n) VALUES (1, 1)`); err != nil {
				t.Fatal(err)
			}
		}},
		{"not a side index", func(t *testing.T, ix *Indexer) {
			write(t, ix.DB.Path+sideSuffix, "not a database")
		}},
		{"build that stopped", func(t *testing.T, ix *Indexer) {
			db, err := sqlx.Open("sqlite", "file:"+ix.DB.Path+sideSuffix+"?mode=rw")
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if _, err := db.Exec(`DELETE FROM side_files`); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			ix := newIndexer(t, "")
			ix.Roots, ix.bulkNew, ix.SideText = sideRoots(), 1, true
			refresh(t, ix)
			c.before(t, ix)
			if c.name == "index no longer empty" {
				// The text pass would keep the stray size: take it away
				// once the adoption has been refused.
				ix.beforeText = func() {
					ix.beforeText = nil
					if _, err := ix.DB.Exec(`DELETE FROM text_sizes WHERE id = 1`); err != nil {
						t.Error(err)
					}
				}
			}
			txs := 0
			if ix.beforeText == nil {
				ix.beforeText = func() { txs++ }
			} else {
				txs = 1
			}
			st := indexText(t, ix)
			if txs == 0 {
				t.Fatal("the side index was adopted")
			}
			if _, err := os.Stat(ix.DB.Path + sideSuffix); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("the scratch file is still there: %v", err)
			}
			if c.name == "file shorter since" || c.name == "file's first bytes differ" {
				return // the text pass reads it as the catalog has it
			}
			var sessions int
			if err := ix.DB.Get(&sessions, `SELECT count(*) FROM files WHERE kind = 'session'`); err != nil {
				t.Fatal(err)
			}
			if st.Files != sessions {
				t.Fatalf("text pass: %+v, want all %d sessions indexed by the pass", st, sessions)
			}
			ftsIntact(t, ix)
			got := textIndex(t, ix)
			if want == "" {
				pass := newIndexer(t, "")
				pass.Roots, pass.bulkNew = sideRoots(), 1<<30
				refresh(t, pass)
				indexText(t, pass)
				want = textIndex(t, pass)
			}
			if got != want {
				t.Fatalf("text index differs from the text pass's:\n--- got\n%.3000s\n--- want\n%.3000s", got, want)
			}
		})
	}
}

// A bulk load that fails leaves no side index behind.
func TestSideTextGoneWhenTheLoadFails(t *testing.T) {
	ix := newIndexer(t, "")
	ix.Roots, ix.bulkNew, ix.SideText = sideRoots(), 1, true
	n := 0
	ix.afterApply = func(*batch) error {
		if n++; n == 5 {
			return errors.New("stop here")
		}
		return nil
	}
	if _, err := ix.Refresh(context.Background()); err == nil {
		t.Fatal("the refresh did not fail")
	}
	if _, err := os.Stat(ix.DB.Path + sideSuffix); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a failed bulk load left its side index: %v", err)
	}
}
