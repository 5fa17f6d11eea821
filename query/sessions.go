package query

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/readside"
)

// modifiedSQL is pi's `modified`: the latest user/assistant message time,
// else the header time, else the file's mtime.
const modifiedSQL = `CASE WHEN s.last_activity_ms > 0 THEN s.last_activity_ms
	WHEN s.created_ms IS NOT NULL THEN s.created_ms ELSE f.mtime_ns / 1000000 END`

const infoSQL = `SELECT ` + infoColumns + infoFrom

// infoColumns are a listing row's columns (readside.SessionRow's fields).
const infoColumns = `s.file_id, f.path, s.session_id, s.cwd, s.name, s.parent_session, s.created_ms,
	` + modifiedSQL + ` AS modified, s.message_count, COALESCE(s.first_message, '') AS first_message,
	s.entry_count, s.leaf_id, s.branch_points, s.models, s.input, s.output, s.cache_read, s.cache_write,
	s.total_tokens, s.cost, f.size, s.source`

const infoFrom = ` FROM sessions s JOIN files f ON f.id = s.file_id`

// Count is the number of sessions matching f's filters (its sort, limit
// and offset aside): the length of a listing shown a page at a time.
func (rd *Reader) Count(ctx context.Context, f pidex.ListFilter) (int, error) {
	all, err := rd.listing(ctx)
	if err != nil {
		return 0, err
	}
	listed, n := rd.listFilter(f), 0
	for i := range all {
		if listed(&all[i]) {
			n++
		}
	}
	return n, nil
}

// List returns the sessions matching f, newest first by default.
func (rd *Reader) List(ctx context.Context, f pidex.ListFilter) ([]pidex.Session, error) {
	if _, err := readside.Less(f.Sort); err != nil {
		return nil, err
	}
	all, err := rd.listing(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]pidex.Session, 0, len(all)) // grown by appends, twice the pages
	listed := rd.listFilter(f)
	for i := range all {
		if listed(&all[i]) {
			out = append(out, all[i].Session())
		}
	}
	return readside.Page(out, f, false)
}

// Session returns the listing record of one session.
func (rd *Reader) Session(ctx context.Context, fileID int64) (pidex.Session, error) {
	si, err := scanInfo(rd.db.QueryRowContext(ctx, infoSQL+" WHERE s.file_id = ?", fileID))
	if err != nil {
		return pidex.Session{}, sessionError(fileID, err)
	}
	return si, nil
}

// sessionError is the error of reading a session's row by its file id. A
// missing row is a session that went away after it was resolved: another
// process removed its file or rebuilt the catalog in between (a server's
// request, say, between a watcher's refreshes); that is "not found", not
// a failure of pidex.
func sessionError(fileID int64, err error) error {
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("load session: session file %d is no longer in the catalog (removed, or the catalog rebuilt, since it was named): %w", fileID, pidex.ErrNotFound)
	}
	return fmt.Errorf("load session: %w", err)
}

// scanInfo reads one row of infoSQL. Scanned by hand: reflection-based
// scanning was a fifth of the time of listing 3,000 sessions.
func scanInfo(row interface{ Scan(...any) error }) (pidex.Session, error) {
	var r readside.SessionRow
	if err := r.Scan(row, false); err != nil {
		return pidex.Session{}, err
	}
	return r.Session(), nil
}

// Labels returns a session's current labels (pi's set/clear semantics).
func (rd *Reader) Labels(ctx context.Context, fileID int64) ([]pidex.Label, error) {
	ls := []pidex.Label{}
	if err := rd.db.SelectContext(ctx, &ls, `SELECT target_id, label, ts FROM labels WHERE file_id = ? ORDER BY offset`, fileID); err != nil {
		return nil, fmt.Errorf("list labels: %w", err)
	}
	return ls, nil
}

// inRoots is the condition "the file (table alias t) lies under one of
// roots", for the listings that show the current roots' sessions only.
func inRoots(t string, roots []string) (string, []any) { return inList(t+".root", roots) }

// inList is the condition "col is one of vals" (at least one), with its
// arguments.
func inList(col string, vals []string) (string, []any) {
	return col + " IN (?" + strings.Repeat(",?", len(vals)-1) + ")", anys(vals)
}
