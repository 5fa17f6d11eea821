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
// The list is the batch's (see lastPaths).
func markOffPath(ctx context.Context, tx *wtx, id int64, b *batch) error {
	if !b.last || b.session == nil {
		return nil
	}
	if err := tx.exec(ctx, `DELETE FROM off_path WHERE file_id = ?`, id); err != nil {
		return fmt.Errorf("clear off-path entries: %w", err)
	}
	for _, o := range b.offPath {
		if err := tx.exec(ctx, `INSERT INTO off_path (file_id, offset) VALUES (?, ?)`, id, o); err != nil {
			return fmt.Errorf("mark entries off the path: %w", err)
		}
	}
	return nil
}

// lastPaths gives the last batch of a file not read from its start (an
// append) what the parser gives one that was (see pathTracker): the usage
// records on the current path (usage.on_path) and the entries off it
// (off_path), from one walk of the file's stored entries with the same
// tracker, so that the rule is one and the path is walked once (the
// usage flags had been walked again in SQL, through the edges view).
func lastPaths(ctx context.Context, tx *wtx, id int64, b *batch) error {
	if !b.last || b.session == nil || b.pathUsage != nil {
		return nil
	}
	t, err := storedPath(ctx, tx, id)
	if err != nil {
		return err
	}
	_, b.pathUsage, b.offPath = t.paths(b.session.LeafID)
	return nil
}

// storedPath is a pathTracker over file id's stored entries, in file
// order, each noted with whether it holds usage records.
func storedPath(ctx context.Context, tx *wtx, id int64) (*pathTracker, error) {
	rows, err := tx.QueryContext(ctx, `SELECT e.offset, e.id, e.parent_id,
		EXISTS (SELECT 1 FROM usage u WHERE u.file_id = e.file_id AND u.offset = e.offset)
		FROM entries e WHERE e.file_id = ? ORDER BY e.offset`, id)
	if err != nil {
		return nil, fmt.Errorf("read the entries' tree: %w", err)
	}
	defer rows.Close()
	t := newPathTracker()
	for rows.Next() {
		var row entryRow
		var usage bool
		if err := rows.Scan(&row.Offset, &row.ID, &row.ParentID, &usage); err != nil {
			return nil, fmt.Errorf("read the entries' tree: %w", err)
		}
		t.add(&row, usage)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read the entries' tree: %w", err)
	}
	return t, nil
}
