package indexer

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/pidex-dev/pidex"
)

// adoptSide makes the side index, if one is waiting beside the catalog,
// the catalog's text index (see sidetext.go), and counts what it
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
	// Its sizes, read once: nothing writes a scratch file once its build
	// has finished.
	var size struct {
		Rows   int64 `db:"rows"`
		Tokens int64 `db:"tokens"`
		Files  int64 `db:"files"`
	}
	if err := conn.GetContext(ctx, &size, `SELECT (SELECT count(*) FROM side.text_sizes) AS rows, (SELECT COALESCE(sum(n), 0) FROM side.text_sizes) AS tokens,
		(SELECT count(*) FROM side.side_files) AS files`); err != nil || size.Files == 0 {
		return false, nil // not a side index, or one that stopped
	}
	if size.Rows >= or(ix.compactRows, compactRows) {
		if err = ix.compact(ctx, st); err != nil {
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
	if _, err := tx.ExecContext(ctx, `UPDATE main.text_totals SET rows = ?, tokens = ? WHERE id = 1`, size.Rows, size.Tokens); err != nil {
		return false, fmt.Errorf("adopt text index: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return false, fmt.Errorf("adopt text index: %w", err)
	}
	st.Files += int(fit.Files)
	st.Entries += size.Rows
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
