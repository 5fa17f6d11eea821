package query

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/pidex-dev/pidex"
)

// modifiedSQL is pi's `modified`: the latest user/assistant message time,
// else the header time, else the file's mtime.
const modifiedSQL = `CASE WHEN s.last_activity_ms > 0 THEN s.last_activity_ms
	WHEN s.created_ms IS NOT NULL THEN s.created_ms ELSE f.mtime_ns / 1000000 END`

const infoSQL = `SELECT s.file_id, f.path, s.session_id, s.cwd, s.name, s.parent_session, s.created_ms,
	` + modifiedSQL + ` AS modified, s.message_count, COALESCE(s.first_message, '') AS first_message,
	s.entry_count, s.leaf_id, s.branch_points, s.models, s.input, s.output, s.cache_read, s.cache_write,
	s.total_tokens, s.cost, f.size, s.source
	FROM sessions s JOIN files f ON f.id = s.file_id`

type infoRow struct {
	FileID        int64
	Path          string
	SessionID     string
	Cwd           string
	Name          *string
	ParentSession string
	CreatedMs     *int64
	Modified      int64
	MessageCount  int64
	FirstMessage  string
	EntryCount    int64
	LeafID        *string
	BranchPoints  int64
	Models        string
	Input         float64
	Output        float64
	CacheRead     float64
	CacheWrite    float64
	TotalTokens   float64
	Cost          float64
	Size          int64
	Source        string
}

func (r *infoRow) info() pidex.Session {
	si := pidex.Session{
		FileID: r.FileID, Path: r.Path, ID: r.SessionID, Cwd: r.Cwd, Name: r.Name,
		Modified: pidex.Time(r.Modified), MessageCount: r.MessageCount, FirstMessage: r.FirstMessage,
		EntryCount: r.EntryCount, LeafID: r.LeafID, BranchPoints: r.BranchPoints,
		Tokens: pidex.Tokens{Input: r.Input, Output: r.Output, CacheRead: r.CacheRead, CacheWrite: r.CacheWrite, Total: r.TotalTokens},
		Cost:   r.Cost, SizeBytes: r.Size, Models: []string{}, Source: r.Source,
	}
	if r.ParentSession != "" {
		p := r.ParentSession
		si.ParentSessionPath = &p
	}
	if r.CreatedMs != nil {
		c := pidex.Time(*r.CreatedMs)
		si.Created = &c
	}
	if si.FirstMessage == "" {
		si.FirstMessage = "(no messages)"
	}
	si.Models = parseModels(r.Models)
	return si
}

// parseModels reads the models column, a JSON array of strings. The
// common case (no escapes) is split by hand: encoding/json per row was a
// tenth of listing 3,000 sessions.
func parseModels(s string) []string {
	if s == "[]" || s == "" {
		return []string{}
	}
	if !strings.ContainsAny(s, "\\") && strings.HasPrefix(s, `["`) && strings.HasSuffix(s, `"]`) {
		return strings.Split(s[2:len(s)-2], `","`)
	}
	var ms []string
	if json.Unmarshal([]byte(s), &ms) != nil || ms == nil {
		return []string{}
	}
	return ms
}

// listWhere is the WHERE clause of f's filters ("" for none).
func (rd *Reader) listWhere(f pidex.ListFilter) (string, []any) {
	// omp's subagent transcripts are not listed (omp lists
	// <sessions>/*/*.jsonl only); search and cost read them.
	where := []string{"s.subagent = 0"}
	var args []any
	if len(rd.roots) > 0 {
		cond, a := inRoots("f", rd.roots)
		where, args = append(where, cond), append(args, a...)
	}
	if f.Cwd != "" {
		where, args = append(where, "s.cwd = ?"), append(args, f.Cwd)
	}
	if f.Project != "" {
		where, args = append(where, "instr(lower(s.cwd), lower(?)) > 0"), append(args, f.Project)
	}
	if f.Name != "" {
		where, args = append(where, "instr(lower(s.name), lower(?)) > 0"), append(args, f.Name)
	}
	if len(f.Agents) > 0 {
		where, args = append(where, "s.source IN (?"+strings.Repeat(",?", len(f.Agents)-1)+")"), append(args, anys(f.Agents)...)
	}
	if !f.Since.IsZero() {
		where, args = append(where, modifiedSQL+" >= ?"), append(args, f.Since.UnixMilli())
	}
	if !f.Until.IsZero() {
		where, args = append(where, modifiedSQL+" < ?"), append(args, f.Until.UnixMilli())
	}
	return " WHERE " + strings.Join(where, " AND "), args
}

// Count is the number of sessions matching f's filters (its sort, limit
// and offset aside): the length of a listing shown a page at a time.
func (rd *Reader) Count(ctx context.Context, f pidex.ListFilter) (int, error) {
	where, args := rd.listWhere(f)
	var n int
	if err := rd.db.GetContext(ctx, &n, "SELECT count(*) FROM sessions s JOIN files f ON f.id = s.file_id"+where, args...); err != nil {
		return 0, fmt.Errorf("count sessions: %w", err)
	}
	return n, nil
}

// List returns the sessions matching f, newest first by default.
func (rd *Reader) List(ctx context.Context, f pidex.ListFilter) ([]pidex.Session, error) {
	where, args := rd.listWhere(f)
	q := infoSQL + where
	less, err := orderBy(f.Sort)
	if err != nil {
		return nil, err
	}
	if f.Limit > 0 {
		// A few newest sessions: let SQLite keep the top N while it scans,
		// instead of materialising every row.
		q += " ORDER BY " + orderSQL[f.Sort] + fmt.Sprintf(" LIMIT %d OFFSET %d", f.Limit, max(0, f.Offset))
	}
	rows, err := rd.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	defer rows.Close()
	out := []pidex.Session{}
	for rows.Next() {
		si, err := scanInfo(rows)
		if err != nil {
			return nil, fmt.Errorf("list sessions: %w", err)
		}
		out = append(out, si)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	// Sorted here rather than by SQLite, whose sorter copies every row,
	// first messages and all (half the time of listing 3,000 sessions).
	sort.SliceStable(out, func(i, j int) bool { return less(&out[i], &out[j]) })
	if f.Limit <= 0 && f.Offset > 0 { // with a limit, SQLite skipped them
		out = out[min(f.Offset, len(out)):]
	}
	if f.Limit > 0 && len(out) > f.Limit {
		out = out[:f.Limit]
	}
	return out, nil
}

// orderSQL is orderBy in SQL, for queries with a limit.
var orderSQL = map[string]string{
	"":                 "modified DESC, s.created_ms IS NULL, s.created_ms DESC, f.path",
	pidex.SortModified: "modified DESC, s.created_ms IS NULL, s.created_ms DESC, f.path",
	pidex.SortCreated:  "s.created_ms IS NULL, s.created_ms DESC, f.path",
	pidex.SortCost:     "s.cost DESC, modified DESC, f.path",
	pidex.SortSize:     "f.size DESC, modified DESC, f.path",
}

// sortKeys are the keys of each sort order, all descending; the path
// breaks remaining ties so the order is the same on every run. Sessions
// modified at the same time are newest-created first, as omp lists them
// (pi's listing leaves them in folder order).
var sortKeys = map[string][]func(*pidex.Session) float64{
	"":                 {modifiedKey, createdKey},
	pidex.SortModified: {modifiedKey, createdKey},
	pidex.SortCreated:  {createdKey},
	pidex.SortCost:     {func(s *pidex.Session) float64 { return s.Cost }, modifiedKey},
	pidex.SortSize:     {func(s *pidex.Session) float64 { return float64(s.SizeBytes) }, modifiedKey},
}

// Times in ms and sizes are far below 2^53: exact as float64.
func modifiedKey(s *pidex.Session) float64 { return float64(s.Modified) }

func createdKey(s *pidex.Session) float64 {
	if s.Created == nil {
		return math.Inf(-1) // an unparsable header time sorts last, as NULL does in SQL
	}
	return float64(*s.Created)
}

// orderBy returns the comparison for a sort order.
func orderBy(order string) (func(a, b *pidex.Session) bool, error) {
	keys, ok := sortKeys[order]
	if !ok {
		return nil, &pidex.OptionError{Option: "sort", Value: order, Want: "want " + strings.Join(pidex.ListSorts, ", ")}
	}
	return func(a, b *pidex.Session) bool {
		for _, k := range keys {
			if ka, kb := k(a), k(b); ka != kb {
				return ka > kb
			}
		}
		return a.Path < b.Path
	}, nil
}

// Session returns the listing record of one session.
func (rd *Reader) Session(ctx context.Context, fileID int64) (pidex.Session, error) {
	si, err := scanInfo(rd.db.QueryRowContext(ctx, infoSQL+" WHERE s.file_id = ?", fileID))
	if err != nil {
		return pidex.Session{}, fmt.Errorf("load session: %w", err)
	}
	return si, nil
}

// scanInfo reads one row of infoSQL. Scanned by hand: reflection-based
// scanning was a fifth of the time of listing 3,000 sessions.
func scanInfo(row interface{ Scan(...any) error }) (pidex.Session, error) {
	var r infoRow
	err := row.Scan(&r.FileID, &r.Path, &r.SessionID, &r.Cwd, &r.Name, &r.ParentSession, &r.CreatedMs,
		&r.Modified, &r.MessageCount, &r.FirstMessage, &r.EntryCount, &r.LeafID, &r.BranchPoints, &r.Models,
		&r.Input, &r.Output, &r.CacheRead, &r.CacheWrite, &r.TotalTokens, &r.Cost, &r.Size, &r.Source)
	if err != nil {
		return pidex.Session{}, err
	}
	return r.info(), nil
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
func inRoots(t string, roots []string) (string, []any) {
	args := make([]any, len(roots))
	for i, r := range roots {
		args[i] = r
	}
	return t + ".root IN (?" + strings.Repeat(",?", len(roots)-1) + ")", args
}
