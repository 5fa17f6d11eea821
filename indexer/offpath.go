package indexer

import (
	"context"
	"fmt"
)

// markOffPath keeps off_path (migration 00023), the entries of file id
// that are not on its current root-to-leaf path, at its last batch: an
// active-branch search then tests each match against it, where walking
// every matching session's path at each search cost minutes over a real
// history (`search --branch active deadlock` over 3,000 sessions: 453,198
// steps, 274 s). Most sessions never branch, so the table stays small, and
// an append that extends the path changes none of it.
//
// A file read from its start brings its list from the parser (the path
// tracked as it read); an append walks the file's stored entries with the
// same tracker, so the rule is one.
func markOffPath(ctx context.Context, tx *wtx, id int64, b *batch) error {
	if !b.last || b.session == nil {
		return nil
	}
	off := b.offPath
	if off == nil {
		t, err := storedPath(ctx, tx, id)
		if err != nil {
			return err
		}
		off = t.offPath(b.session.LeafID)
	}
	if err := tx.exec(ctx, `DELETE FROM off_path WHERE file_id = ?`, id); err != nil {
		return fmt.Errorf("clear off-path entries: %w", err)
	}
	for _, o := range off {
		if err := tx.exec(ctx, `INSERT INTO off_path (file_id, offset) VALUES (?, ?)`, id, o); err != nil {
			return fmt.Errorf("mark entries off the path: %w", err)
		}
	}
	return nil
}

// storedPath is a pathTracker over file id's stored entries, in file order.
func storedPath(ctx context.Context, tx *wtx, id int64) (*pathTracker, error) {
	rows, err := tx.QueryContext(ctx, `SELECT offset, id, parent_id FROM entries WHERE file_id = ? ORDER BY offset`, id)
	if err != nil {
		return nil, fmt.Errorf("read the entries' tree: %w", err)
	}
	defer rows.Close()
	t := newPathTracker()
	for rows.Next() {
		var row entryRow
		if err := rows.Scan(&row.Offset, &row.ID, &row.ParentID); err != nil {
			return nil, fmt.Errorf("read the entries' tree: %w", err)
		}
		t.add(&row, false)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read the entries' tree: %w", err)
	}
	return t, nil
}
