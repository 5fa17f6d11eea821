package indexer

import (
	"cmp"
	"context"
	"errors"
	"os"
	"slices"

	"github.com/jmoiron/sqlx"

	"github.com/pidex-dev/pidex/sqlite"
)

// A bulk load's text, built beside the catalog (issue 38). A cold index
// wrote the metadata, then read every line again for the text pass: two
// passes one after the other, each bound by its single writer (SQLite
// lets one connection write a database file at a time), 34 and 32 s of
// the 3,000-session corpus with a core idle much of the time (profiled,
// BENCHMARKS.md). Now a bulk load into a catalog whose text index is
// empty, for a caller that runs the text pass next (Indexer.SideText),
// has the parser make each entry's text row as it reads the entry, and a
// second writer puts the rows into an FTS5 table of the catalog's
// definition in a scratch file beside it (sideSuffix), while the first
// writes the metadata. The next text pass adopts it (sideadopt.go): in one
// transaction the scratch index's tables (its segments, its structure
// and averages records, its rows' sizes) become the catalog's empty
// index's, and each file's text cursor moves to where the scratch index
// covers it. FTS5 keeps an index in ordinary tables whose bytes do not
// depend on the database they are in, so the catalog then holds the
// index its own writer would have built from the same rows (the tests
// compare the two). Anything that does not fit — the file gone, a
// catalog text index not empty any more, a file another process changed
// since — leaves the scratch file unused, and the text pass indexes the
// files itself, as before.

// sideSuffix names the scratch file: the catalog's path and this.
const sideSuffix = "-textbuild"

// sideCommitBytes: the text the side writer gathers before it writes a
// transaction, its rows sorted by rowid, so that FTS5 makes one segment
// of each (rowids that go down flush its hash; rows come from several
// files at once). It bounds the side writer's memory too (the rows of a
// transaction being written and of the next, and FTS5's pending
// postings), which adds to the metadata writer's: 16 MB peaked higher
// and was no faster.
const sideCommitBytes = 8 << 20

// sideFile is how far the side index covers a file, in the generation the
// metadata writer saw.
type sideFile struct {
	id, generation, upto int64
	path, head           string // head: the file's first bytes' fingerprint
}

// sideText is the side writer: batches come from the metadata writer
// once they are in the catalog, in each file's order.
type sideText struct {
	path string
	db   *sqlx.DB
	in   chan sideBatch
	done chan error
}

// startSide starts a side text build for a bulk load, or returns nil
// when the catalog's text index is not empty (or the scratch file cannot
// be made: the text pass then does the work).
func (ix *Indexer) startSide(ctx context.Context) *sideText {
	var empty bool
	err := ix.DB.GetContext(ctx, &empty, `SELECT NOT EXISTS (SELECT 1 FROM text_sizes) AND NOT EXISTS (SELECT 1 FROM files WHERE text_offset > 0)`)
	if err != nil || !empty || ix.DB.Path == "" {
		return nil
	}
	s := &sideText{path: ix.DB.Path + sideSuffix, in: make(chan sideBatch, 8), done: make(chan error, 1)}
	if s.db, err = sqlite.OpenScratch(s.path); err != nil {
		return nil
	}
	if err := s.create(ctx, ix.DB.DB); err != nil {
		s.db.Close()
		os.Remove(s.path)
		return nil
	}
	go func() { s.done <- s.run(ctx) }()
	return s
}

// create makes the scratch file's tables: the text index and its sizes as
// the catalog defines them, with the index's settings (hashsize,
// automerge), and the files it covers.
func (s *sideText) create(ctx context.Context, main *sqlx.DB) error {
	var ddl []string
	if err := main.SelectContext(ctx, &ddl, `SELECT sql FROM sqlite_schema WHERE name IN ('text_index', 'text_sizes') ORDER BY name`); err != nil {
		return err
	}
	if len(ddl) != 2 {
		return errors.New("catalog has no text index")
	}
	var config []struct {
		K string `db:"k"`
		V any    `db:"v"`
	}
	if err := main.SelectContext(ctx, &config, `SELECT k, v FROM text_index_config WHERE k <> 'version'`); err != nil {
		return err
	}
	for _, q := range append(ddl, `CREATE TABLE side_files (id INTEGER PRIMARY KEY, path TEXT NOT NULL, head TEXT NOT NULL, generation INTEGER NOT NULL, upto INTEGER NOT NULL)`) {
		if _, err := s.db.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	for _, c := range config {
		if _, err := s.db.ExecContext(ctx, `INSERT INTO text_index (text_index, rank) VALUES (?, ?)`, c.K, c.V); err != nil {
			return err
		}
	}
	return nil
}

// sideBatch is what the side writer takes of a batch: its text rows, and
// how far they cover its file.
type sideBatch struct {
	file sideFile
	rows []textRow
}

// add hands the side writer a batch the metadata writer has committed.
func (s *sideText) add(ctx context.Context, b *batch) {
	sb := sideBatch{file: sideFile{id: b.textID, generation: b.generation, upto: b.file.Offset, path: b.file.Path, head: b.file.HeadHash},
		rows: b.text}
	select {
	case s.in <- sb:
	case <-ctx.Done():
	}
}

// run is the side writer: it gathers the batches' rows while the rows
// gathered before are written (write), so that the metadata writer,
// which hands it the batches, does not wait for FTS5's segment writes.
// After an error it takes the batches without writing them.
func (s *sideText) run(ctx context.Context) error {
	chunks := make(chan []textRow, 1)
	written := make(chan error, 1)
	go func() {
		var err error
		for rows := range chunks {
			if err == nil {
				err = s.write(ctx, rows)
			}
		}
		written <- err
	}()
	var rows []textRow
	bytes := 0
	files := map[int64]sideFile{}
	for b := range s.in {
		for _, r := range b.rows {
			bytes += len(r.text)
		}
		rows = append(rows, b.rows...)
		files[b.file.id] = b.file
		if bytes >= sideCommitBytes {
			chunks <- rows
			rows, bytes = nil, 0
		}
	}
	chunks <- rows
	close(chunks)
	if err := <-written; err != nil {
		return err
	}
	return s.cover(ctx, files)
}

// write writes rows in rowid order in one transaction: their text, then
// their sizes.
func (s *sideText) write(ctx context.Context, rows []textRow) error {
	if len(rows) == 0 {
		return nil
	}
	slices.SortFunc(rows, func(a, b textRow) int { return cmp.Compare(a.rowid, b.rowid) })
	tx, err := s.db.BeginTxx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, t := range []struct {
		q   string
		val func(textRow) any
	}{
		{`INSERT INTO text_index (rowid, text) VALUES (?, ?)`, func(r textRow) any { return r.text }},
		{`INSERT INTO text_sizes (id, n) VALUES (?, ?)`, func(r textRow) any { return r.tokens }},
	} {
		st, err := tx.PrepareContext(ctx, t.q)
		if err != nil {
			return err
		}
		for _, r := range rows {
			if _, err := st.ExecContext(ctx, r.rowid, t.val(r)); err != nil {
				return err
			}
		}
	}
	return tx.Commit()
}

// cover records the files the side index covers: its last write, so that
// a scratch file without them (a build that stopped) is never adopted.
func (s *sideText) cover(ctx context.Context, files map[int64]sideFile) error {
	tx, err := s.db.BeginTxx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, f := range files {
		if _, err := tx.ExecContext(ctx, `INSERT INTO side_files (id, path, head, generation, upto) VALUES (?, ?, ?, ?, ?)`,
			f.id, f.path, f.head, f.generation, f.upto); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// finish waits for the side writer. A build that failed, or whose load
// failed (keep false), is removed; a finished one stays for the text pass.
func (s *sideText) finish(keep bool) {
	close(s.in)
	err := <-s.done
	s.db.Close()
	if err != nil || !keep {
		os.Remove(s.path)
	}
}
