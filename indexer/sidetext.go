package indexer

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"

	"github.com/jmoiron/sqlx"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/sqlite"
)

// A bulk load's text, built beside the catalog (issue 38). A cold index
// wrote the metadata, then read every line again for the text pass: two
// passes one after the other, each bound by its single writer (SQLite
// lets one connection write a database file at a time), 34 and 32 s of
// the 3,000-session corpus with a core idle much of the time (profiled,
// BENCHMARKS.md). Now a bulk load into a catalog whose text index is
// empty has the parser make each entry's text row as it reads the entry,
// and a second writer puts the rows into an FTS5 table of the catalog's
// definition in a scratch file beside it (sideSuffix), while the first
// writes the metadata. The next text pass adopts it (adoptSide): in one
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
	path  string
	db    *sqlx.DB
	in    chan sideBatch
	done  chan error
	files map[int64]sideFile // the side writer's own
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
	s := &sideText{path: ix.DB.Path + sideSuffix, in: make(chan sideBatch, 8), done: make(chan error, 1), files: map[int64]sideFile{}}
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
	for b := range s.in {
		for _, r := range b.rows {
			bytes += len(r.text)
		}
		rows = append(rows, b.rows...)
		s.files[b.file.id] = b.file
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
	return s.cover(ctx)
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
func (s *sideText) cover(ctx context.Context) error {
	tx, err := s.db.BeginTxx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, f := range s.files {
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

// adoptSide makes the side index, if one is waiting beside the catalog,
// the catalog's text index (see the top of this file), and counts what it
// brings in st. The scratch file is removed in any case.
//
// A side index of a cold index's size (compactRows) is adopted into a
// compacted catalog: the bulk load wrote the metadata in the order its
// batches came from parallel parsers, leaving pages part empty, which
// VACUUM packs (compactCold), while the side index's tables are copied in
// key order and come packed. Compacting before the copy packs the
// metadata alone; compacted says it was done (or tried, and why not is
// in st) and the index adopted.
func (ix *Indexer) adoptSide(ctx context.Context, st *pidex.TextStats) (compacted bool, err error) {
	path := ix.DB.Path + sideSuffix
	if ix.DB.Path == "" {
		return false, nil
	}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	defer os.Remove(path)
	own, err := ix.DB.OwnConn()
	if err != nil {
		return false, nil
	}
	defer own.Close()
	conn, err := own.Connx(ctx) // the one the scratch file is attached to
	if err != nil {
		return false, nil
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `ATTACH ? AS side`, path); err != nil {
		return false, nil // not a database: the text pass does the work
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), `DETACH side`)
	var size struct {
		Rows  int64 `db:"rows"`
		Files int64 `db:"files"`
	}
	if err := conn.GetContext(ctx, &size, `SELECT (SELECT count(*) FROM side.text_sizes) AS rows, (SELECT count(*) FROM side.side_files) AS files`); err != nil || size.Files == 0 {
		return false, nil // not a side index, or one that stopped
	}
	if size.Rows >= or(ix.compactRows, compactRows) {
		if _, err = ix.compact(ctx, st); err != nil {
			return false, err
		}
		compacted = true // or tried, and said why not
	}
	tx, err := conn.BeginTxx(ctx, nil)
	if err != nil {
		return false, fmt.Errorf("adopt text index: %w", err)
	}
	defer tx.Rollback()
	var fit struct {
		Files   int64 `db:"files"`
		Matched int64 `db:"matched"`
		Upto    int64 `db:"upto"`
		Empty   bool  `db:"empty"`
	}
	// Every covered file is still the one the side writer saw (the same
	// path, generation and first bytes, no text of its own, at least as
	// long), and the catalog's text index is still empty.
	err = tx.GetContext(ctx, &fit, `SELECT
		(SELECT count(*) FROM side.side_files) AS files,
		(SELECT count(*) FROM side.side_files s JOIN main.files f ON f.id = s.id AND f.path = s.path
		  AND f.head_hash = s.head AND f.generation = s.generation AND f.kind = 'session' AND f.text_offset = 0 AND f.offset >= s.upto) AS matched,
		(SELECT COALESCE(sum(upto), 0) FROM side.side_files) AS upto,
		NOT EXISTS (SELECT 1 FROM main.text_sizes) AND NOT EXISTS (SELECT 1 FROM main.text_index_docsize) AS empty`)
	if err != nil || fit.Files == 0 || fit.Matched != fit.Files || !fit.Empty {
		return false, nil // overtaken
	}
	if p := ix.Progress; p != nil {
		p.FilesTotal.Add(fit.Files)
		p.BytesTotal.Add(fit.Upto)
	}
	var rows, tokens int64
	if err := tx.QueryRowContext(ctx, `SELECT count(*), COALESCE(sum(n), 0) FROM side.text_sizes`).Scan(&rows, &tokens); err != nil {
		return false, fmt.Errorf("adopt text index: %w", err)
	}
	for _, q := range []string{
		`DELETE FROM main.text_index_data`,
		`DELETE FROM main.text_index_idx`,
		`INSERT INTO main.text_index_data SELECT * FROM side.text_index_data`,
		`INSERT INTO main.text_index_idx SELECT * FROM side.text_index_idx`,
		`INSERT INTO main.text_index_docsize SELECT * FROM side.text_index_docsize`,
		`INSERT INTO main.text_sizes SELECT * FROM side.text_sizes`,
		`UPDATE main.files SET text_offset = s.upto FROM side.side_files s WHERE files.id = s.id`,
	} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return false, fmt.Errorf("adopt text index: %w", err)
		}
	}
	if _, err := tx.ExecContext(ctx, `UPDATE main.text_totals SET rows = ?, tokens = ? WHERE id = 1`, rows, tokens); err != nil {
		return false, fmt.Errorf("adopt text index: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return false, fmt.Errorf("adopt text index: %w", err)
	}
	st.Files += int(fit.Files)
	st.Entries += rows
	st.Bytes += fit.Upto
	if p := ix.Progress; p != nil {
		p.FilesDone.Add(fit.Files)
		p.BytesDone.Add(fit.Upto)
	}
	if compacted {
		// The copy is in the write-ahead log, as large as the index: moved
		// into the catalog and the log emptied, as the compaction leaves it.
		if _, err := conn.ExecContext(ctx, "PRAGMA main.wal_checkpoint(TRUNCATE)"); err != nil {
			return compacted, fmt.Errorf("adopt text index: %w", err)
		}
	}
	return compacted, nil
}
