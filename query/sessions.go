package query

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/jmoiron/sqlx"

	"github.com/pidex-dev/pidex"
)

// SessionRow is a session's listing row as both catalogs hold it.
type SessionRow struct {
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
	Source        string // the agent that wrote the file
	Root          string // the session folder the file was found under
	Machine       string // a team catalog's machine; "" locally
	// A subagent's session: the file of the session that started it, the
	// top of that chain, the run's name (indexer/spawn.go), and whether
	// it is shown beneath its parent (the catalog holds the parent).
	SpawnedBy, Family, Run string
	Nested                 bool
}

// FamilyPath is the file of the session at the top of the row's chain of
// parents: its own for a session nobody started.
func (r *SessionRow) FamilyPath() string {
	if r.Family == "" {
		return r.Path
	}
	return r.Family
}

// modifiedSQL is pi's `modified`: the latest user/assistant message time,
// else the header time, else the file's mtime.
const modifiedSQL = `CASE WHEN s.last_activity_ms > 0 THEN s.last_activity_ms
	WHEN s.created_ms IS NOT NULL THEN s.created_ms ELSE f.mtime_ns / 1000000 END`

// sessionColumns are a SessionRow's columns, in the order of Dest.
func sessionColumns(d Dialect) string {
	return `s.file_id, f.path, s.session_id, s.cwd, s.name, s.parent_session, s.created_ms,
	` + modifiedSQL + ` AS modified, s.message_count, COALESCE(s.first_message, '') AS first_message,
	s.entry_count, s.leaf_id, s.branch_points, s.models, s.input, s.output, s.cache_read, s.cache_write,
	s.total_tokens, s.cost, f.size, s.source, f.root, ` + d.machineCol() + ` AS machine,
	s.spawned_by, s.family, s.run, ` + nestedSQL(d) + ` AS nested`
}

// SessionsSQL selects every session, subagents' included: a listing shows
// a subagent beneath the session that started it (Reader.list), or, asked
// for them flat, as a session of its own.
func SessionsSQL(d Dialect) string {
	return `SELECT ` + sessionColumns(d) + d.sessionsFrom() + ` WHERE TRUE`
}

// Dest is the row's scan destinations, in the order of SessionsSQL's
// columns.
func (r *SessionRow) Dest() []any {
	return []any{&r.FileID, &r.Path, &r.SessionID, &r.Cwd, &r.Name, &r.ParentSession, &r.CreatedMs,
		&r.Modified, &r.MessageCount, &r.FirstMessage, &r.EntryCount, &r.LeafID, &r.BranchPoints, &r.Models,
		&r.Input, &r.Output, &r.CacheRead, &r.CacheWrite, &r.TotalTokens, &r.Cost, &r.Size, &r.Source, &r.Root, &r.Machine,
		&r.SpawnedBy, &r.Family, &r.Run, &r.Nested}
}

// Session is the listing record of the row.
func (r *SessionRow) Session() pidex.Session {
	si := pidex.Session{
		FileID: r.FileID, Path: r.Path, ID: r.SessionID, Cwd: r.Cwd,
		Modified: pidex.Time(r.Modified), MessageCount: r.MessageCount, FirstMessage: r.FirstMessage,
		EntryCount: r.EntryCount, BranchPoints: r.BranchPoints,
		Tokens: pidex.Tokens{Input: r.Input, Output: r.Output, CacheRead: r.CacheRead, CacheWrite: r.CacheWrite, Total: r.TotalTokens},
		Cost:   r.Cost, SizeBytes: r.Size, Source: r.Source, Machine: r.Machine,
		SpawnedBy: r.SpawnedBy, Run: r.Run,
	}
	// Pointers of their own: a row may be kept and read again (a listing
	// cache), and a caller may change what it was handed.
	if r.Name != nil {
		n := *r.Name
		si.Name = &n
	}
	if r.LeafID != nil {
		l := *r.LeafID
		si.LeafID = &l
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

// ListPlan is a listing as a catalog runs it: which sessions, in which
// order, which page.
type ListPlan struct {
	Where         Conds
	Sort          string // pidex.SortModified, …
	Limit, Offset int    // 0: all
	Count         bool   // only how many match
	// Few: the conditions keep few of the sessions (a catalog holding
	// them all in a cache cuts them from it, as for a page, rather than
	// decode it whole).
	Few bool
}

// Cut says whether a catalog holding every session in a cache should
// cut p's rows from it as it reads it (a page, a count, a few) rather
// than decode it whole.
func (p *ListPlan) Cut() bool { return p.Limit > 0 || p.Count || p.Few }

// A sort key orders sessions, descending, an absent value last: its SQL
// and its value in a row, one definition for both.
type sortKey struct {
	sql string
	get func(*SessionRow) float64
}

// Times in ms and sizes are far below 2^53: exact as float64.
var (
	byModified = sortKey{"modified", func(r *SessionRow) float64 { return float64(r.Modified) }}
	byCreated  = sortKey{"s.created_ms", func(r *SessionRow) float64 {
		if r.CreatedMs == nil {
			return math.Inf(-1) // an unparsable header time sorts last
		}
		return float64(*r.CreatedMs)
	}}
	byCost = sortKey{"s.cost", func(r *SessionRow) float64 { return r.Cost }}
	bySize = sortKey{"f.size", func(r *SessionRow) float64 { return float64(r.Size) }}
)

// sorts are the keys of each order (two at most: Page keeps two); the path (and a team catalog's
// machine) breaks remaining ties, so the order is the same on every run
// and in both catalogs. Sessions modified at the same time are
// newest-created first, as omp lists them (pi's listing leaves them in
// folder order).
var sorts = map[string][]sortKey{
	"":                 {byModified, byCreated}, // pidex.SortModified, the default
	pidex.SortModified: {byModified, byCreated},
	pidex.SortCreated:  {byCreated},
	pidex.SortCost:     {byCost, byModified},
	pidex.SortSize:     {bySize, byModified},
}

// OrderSQL is the order's ORDER BY list.
func (p *ListPlan) OrderSQL() string {
	var parts []string
	for _, k := range sorts[p.Sort] {
		parts = append(parts, k.sql+" DESC NULLS LAST")
	}
	return strings.Join(append(parts, "f.path", "machine"), ", ")
}

// SQL is the plan as one statement (a catalog without a listing cache
// runs it): the sessions' rows, or with Count their number.
func (p *ListPlan) SQL(d Dialect) (string, []any) {
	q := SessionsSQL(d)
	cond, args := p.Where.SQL(d)
	if cond != "" {
		q += " AND " + cond
	}
	if p.Count {
		return "SELECT count(*) FROM (" + q + ") n", args
	}
	q += " ORDER BY " + p.OrderSQL()
	if p.Limit > 0 || p.Offset > 0 {
		q += " LIMIT " + strconv.Itoa(cmp.Or(p.Limit, math.MaxInt32)) + " OFFSET " + strconv.Itoa(p.Offset)
	}
	return q, args
}

// Page is the plan over rows a catalog holds in a cache (every listed
// session): those the conditions keep, sorted, the page cut from them,
// and how many the conditions keep. ok is false when a condition's field
// is not in the rows: the catalog then runs SQL.
func (p *ListPlan) Page(rows []SessionRow) (page []*SessionRow, n int, ok bool) {
	idx, n, ok := p.PageOf(func(yield func(int, *SessionRow) bool) {
		for i := range rows {
			if !yield(i, &rows[i]) {
				return
			}
		}
	})
	if !ok {
		return nil, 0, false
	}
	page = make([]*SessionRow, len(idx))
	for j, i := range idx {
		page[j] = &rows[i]
	}
	return page, n, true
}

// PageOf is Page over rows handed over one at a time, each with its
// index: the row is the caller's to reuse after its yield (its strings
// are kept), so a catalog can decode its cache row by row into one
// variable and decode again only the page's rows (30,000 sessions: the
// decoded rows were most of `list --limit 50`). It returns the page's
// indexes, in order.
func (p *ListPlan) PageOf(rows iter.Seq2[int, *SessionRow]) (page []int, n int, ok bool) {
	keep, ok := p.Where.Sessions()
	if !ok {
		return nil, 0, false
	}
	// The rows kept, as their sort keys, index and tie-breaking strings:
	// sorted here rather than by SQL, whose sorter copies every row, first
	// messages and all (half the time of listing 3,000 sessions), and by
	// key rather than row (a row is 200 bytes to move and two calls to
	// compare).
	type keyed struct {
		k             [2]float64
		i             int
		path, machine string
	}
	keys := sorts[p.Sort]
	order := func(a, b keyed) int {
		if c := cmp.Or(cmp.Compare(b.k[0], a.k[0]), cmp.Compare(b.k[1], a.k[1])); c != 0 {
			return c // the strings compared only on a tie (cmp.Or evaluates every argument)
		}
		return cmp.Or(strings.Compare(a.path, b.path), strings.Compare(a.machine, b.machine), cmp.Compare(a.i, b.i))
	}
	// A page keeps only its first Offset+Limit rows as they come (a heap
	// whose root is the last of them): sorting 30,000 keys for a page of
	// 50 was a fifth of `list --limit 50`.
	top := 0
	if p.Limit > 0 {
		top = p.Offset + p.Limit
	}
	var kept []keyed
	for i, r := range rows {
		if !keep(r) {
			continue
		}
		if n++; p.Count {
			continue
		}
		x := keyed{i: i, path: r.Path, machine: r.Machine}
		for j, k := range keys {
			x.k[j] = k.get(r)
		}
		switch {
		case top == 0 || len(kept) < top:
			if kept = append(kept, x); len(kept) == top {
				heapify(kept, order)
			}
		case order(x, kept[0]) < 0:
			kept[0] = x
			siftDown(kept, 0, order)
		}
	}
	if p.Count {
		return nil, n, true
	}
	// A total order (OrderSQL's, then the index): one answer.
	slices.SortFunc(kept, order)
	kept = kept[min(p.Offset, len(kept)):]
	if p.Limit > 0 && len(kept) > p.Limit {
		kept = kept[:p.Limit]
	}
	page = make([]int, len(kept))
	for j, x := range kept {
		page[j] = x.i
	}
	return page, n, true
}

// heapify orders h as a heap whose root is its greatest element by
// order; siftDown restores that below i.
func heapify[T any](h []T, order func(a, b T) int) {
	for i := len(h)/2 - 1; i >= 0; i-- {
		siftDown(h, i, order)
	}
}

func siftDown[T any](h []T, i int, order func(a, b T) int) {
	for {
		c := 2*i + 1
		if c >= len(h) {
			return
		}
		if c+1 < len(h) && order(h[c+1], h[c]) > 0 {
			c++
		}
		if order(h[c], h[i]) <= 0 {
			return
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
}

// listPlan is the plan of a listing f asks for, within the reader's
// roots.
func (rd *Reader) listPlan(f pidex.ListFilter) *ListPlan {
	cs := append(inRoots(rd.roots()), where(f.Where, pidex.OpList)...)
	if f.Machine != "" {
		cs = append(cs, eq("machine.name", f.Machine))
	}
	if !f.Since.IsZero() {
		cs = append(cs, atLeast("session.modified", f.Since.UnixMilli()))
	}
	if !f.Until.IsZero() {
		cs = append(cs, before("session.modified", f.Until.UnixMilli()))
	}
	if !f.Subagents {
		cs = append(cs, is("session.nested", false)) // shown beneath their parents
	}
	return &ListPlan{Where: cs, Sort: f.Sort, Limit: f.Limit, Offset: f.Offset}
}

// List lists the sessions o selects, newest first by default.
func (rd *Reader) List(ctx context.Context, o pidex.ListOptions) ([]pidex.Session, error) {
	f, err := rd.listFilter(o)
	if err != nil {
		return nil, err
	}
	return rd.list(ctx, f)
}

func (rd *Reader) list(ctx context.Context, f pidex.ListFilter) ([]pidex.Session, error) {
	rows, _, err := rd.backend().Sessions(ctx, rd.listPlan(f))
	if err != nil {
		return nil, err
	}
	out := make([]pidex.Session, len(rows))
	for i := range rows {
		out[i] = rows[i].Session()
	}
	if f.Subagents || len(out) == 0 {
		return out, nil
	}
	return out, rd.attachSubagents(ctx, f.Machine, out)
}

// Count is the number of sessions List would return without its limit
// and offset: the length of a listing shown a page at a time.
func (rd *Reader) Count(ctx context.Context, o pidex.ListOptions) (int, error) {
	f, err := rd.listFilter(o)
	if err != nil {
		return 0, err
	}
	return rd.count(ctx, f)
}

func (rd *Reader) count(ctx context.Context, f pidex.ListFilter) (int, error) {
	p := rd.listPlan(f)
	p.Count, p.Limit, p.Offset = true, 0, 0
	_, n, err := rd.backend().Sessions(ctx, p)
	return n, err
}

func (rd *Reader) listFilter(o pidex.ListOptions) (pidex.ListFilter, error) {
	f, err := o.Filter()
	if err != nil {
		return f, err
	}
	return f, rd.CheckMachine(f.Machine)
}

// Info is one session's listing record.
func (rd *Reader) Info(ctx context.Context, ref pidex.SessionRef) (pidex.Session, error) {
	b := rd.backend()
	d := b.Dialect()
	var r SessionRow
	db := b.Rows()
	err := db.QueryRowContext(ctx, db.Rebind(`SELECT `+sessionColumns(d)+d.sessionsFrom()+` WHERE `+d.FileIs("s")), ref.FileID).Scan(r.Dest()...)
	if err != nil {
		return pidex.Session{}, sessionError(ref.FileID, err)
	}
	return r.Session(), nil
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

// RunSessions runs p as one statement on db (ListPlan.SQL): for a catalog
// without a listing cache, or a condition the cache cannot test.
func RunSessions(ctx context.Context, db *sqlx.DB, d Dialect, p *ListPlan) ([]*SessionRow, int, error) {
	q, args := p.SQL(d)
	q = db.Rebind(q)
	if p.Count {
		var n int
		if err := db.GetContext(ctx, &n, q, args...); err != nil {
			return nil, 0, fmt.Errorf("count sessions: %w", err)
		}
		return nil, n, nil
	}
	rows, err := Collect(ctx, db, "list sessions", q, args, (*SessionRow).Dest)
	out := make([]*SessionRow, len(rows))
	for i := range rows {
		out[i] = &rows[i]
	}
	return out, len(out), err
}
