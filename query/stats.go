package query

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/pidex-dev/pidex"
)

// Stats is the activity report o selects (pidex stats; docs/stats.md):
// sums of the activity rows the indexer derives (indexer/activity.go),
// which both catalogs hold alike, so one set of statements answers from
// either.
func (rd *Reader) Stats(ctx context.Context, o pidex.StatsOptions) (*pidex.StatsReport, error) {
	f, err := o.Filter(rd.Vocabulary())
	if err != nil {
		return nil, err
	}
	if err := rd.CheckMachine(f.Machine); err != nil {
		return nil, err
	}
	if slices.Contains(f.By, "machine") && !rd.Team() {
		return nil, ErrNoMachines
	}
	if f.FileID, err = rd.fileOf(ctx, o.Session, f.Machine); err != nil {
		return nil, err
	}
	if f.TZ == nil {
		f.TZ = time.UTC
	}
	q, err := rd.statsQuery(ctx, f)
	if err != nil {
		return nil, err
	}
	r := &pidex.StatsReport{By: f.By, Rows: []pidex.StatsRow{}, ActiveGapMs: pidex.ActiveGapMs, TZ: f.TZ}
	steps := []func(*Reader, context.Context, *statsQuery, *pidex.StatsReport) error{
		(*Reader).statsRows, (*Reader).statsSessions, (*Reader).statsTools, (*Reader).statsCommands,
		(*Reader).statsErrors, (*Reader).statsSlowest, (*Reader).statsHeatmap,
	}
	for _, step := range steps {
		if err := step(rd, ctx, q, r); err != nil {
			return nil, fmt.Errorf("report activity: %w", err)
		}
	}
	// The selection's sessions are the files with rows in it.
	r.Totals.Sessions = r.Sessions.Count
	if len(f.By) == 0 {
		r.Rows = []pidex.StatsRow{{Keys: []string{}, StatsFigures: r.Totals}}
	}
	return r, nil
}

// statsQuery is what every statement of a report shares: the conditions
// on the row x (an activity, activity_tools or activity_events row), its
// session s and file f, and the rule that turns a bucket into a day.
type statsQuery struct {
	f    pidex.StatsFilter
	d    Dialect
	cond string
	args []any
	days Days
	// whole: no window, so the per-file sums (activity_file,
	// activity_tools_file) answer what needs no time.
	whole bool
	// joinS, joinF: the conditions or keys need the session, the file.
	joinS, joinF bool
	// total: the report is over the whole history, with no group and no
	// condition but the branch (a plain `pidex stats`), on a catalog that
	// keeps the whole history's sums (Dialect.ActivityTotals): its
	// statements read those few rows instead of one per file.
	total bool
}

// from is the tables of a statement over table, aliased x, with the
// session s and file f where the conditions or keys need them (and the
// session at the top of a subagent's chain, for rows by session rolled
// up).
func (q *statsQuery) from(table string) string {
	j := " FROM " + table + " x"
	if q.joinS {
		j += " JOIN sessions s ON s.file_id = x.file_id" + q.d.sameMachine("s", "x")
	}
	if q.joinF {
		j += " JOIN files f ON f.id = x.file_id" + q.d.sameMachine("f", "x") + q.d.machineJoin()
	}
	if q.family() {
		j += familyJoin(q.d)
	}
	return j
}

// sums is the table of activity sums a statement reads: per file when
// it needs no time, else per quarter hour (tools: kind "_tools").
func (q *statsQuery) sums(kind string, needsTime bool) string {
	if q.total && !needsTime {
		return "activity" + kind + "_all"
	}
	if q.whole && !needsTime {
		return "activity" + kind + "_file"
	}
	return "activity" + kind
}

// family: the session key is the session at the top of a row's chain of
// subagents (rolled up, by session).
func (q *statsQuery) family() bool { return byFamily(q.f.CostFilter) }

func (rd *Reader) statsQuery(ctx context.Context, f pidex.StatsFilter) (*statsQuery, error) {
	b := rd.backend()
	q := &statsQuery{f: f, d: b.Dialect()}
	var cs Conds
	switch f.Branch {
	case pidex.BranchActive:
		cs = append(cs, is("call.active", true))
	case pidex.BranchAbandoned:
		cs = append(cs, is("call.active", false))
	}
	one, err := rd.sessionCond(ctx, f.CostFilter)
	if err != nil {
		return nil, err
	}
	cs = append(cs, one...)
	cs = append(cs, where(f.Where, pidex.OpCost)...)
	if f.Machine != "" {
		cs = append(cs, eq("machine.name", f.Machine))
	}
	if roots := rd.roots(); len(roots) > 0 {
		// Only when the catalog holds files outside the roots (as cost).
		outside, err := rd.filesOutside(ctx, roots)
		if err != nil {
			return nil, err
		}
		if outside {
			cs = append(cs, inRoots(roots)...)
		}
	}
	// The window, in whole quarter hours (docs/stats.md).
	if !f.Since.IsZero() {
		cs = append(cs, atLeast("stats.bucket", f.Since.UnixMilli()/pidex.BucketMs))
	}
	if !f.Until.IsZero() {
		cs = append(cs, before("stats.bucket", ceilDiv(f.Until.UnixMilli(), pidex.BucketMs)))
	}
	if !f.Since.IsZero() || !f.Until.IsZero() {
		cs = append(cs, atLeast("stats.bucket", 0)) // no time, no window
	}
	q.cond, q.args = cs.SQL(q.d)
	q.whole = f.Since.IsZero() && f.Until.IsZero()
	q.total = q.d.ActivityTotals && q.whole && len(f.By) == 0 && cs.only("call.active")
	q.joinS = cs.Needs("s") || slices.ContainsFunc(f.By, func(k string) bool { return k == "project" || k == "session" || k == "agent" })
	q.joinF = cs.Needs("f") || slices.Contains(f.By, "machine") || f.Machine != "" || q.family() // familyJoin: s and f
	if q.cond == "" {
		q.cond = "1 = 1"
	}
	// The zone's offsets over the catalog's buckets: the days of periods
	// and the hours of the heatmap.
	var r struct {
		Lo *int64 `db:"lo"`
		Hi *int64 `db:"hi"`
	}
	db := b.Rows()
	if err := db.GetContext(ctx, &r, `SELECT (SELECT min(bucket) FROM activity WHERE bucket >= 0) AS lo,
		(SELECT max(bucket) FROM activity) AS hi`); err != nil {
		return nil, fmt.Errorf("report activity: %w", err)
	}
	if r.Lo != nil {
		lo, hi := narrowBuckets(f.CostFilter, *r.Lo, *r.Hi)
		q.days = zoneDays(f.TZ, lo, hi)
	} else {
		q.days = Days{{From: 0}}
	}
	return q, nil
}

// statsKeyCols are the key columns of a report's rows, in By's order,
// each with its SQL; the day is one column whatever the period.
func (q *statsQuery) keyCols() (exprs []string, args []any) {
	for _, k := range q.f.By {
		switch k {
		case "day", "week", "month":
			if !slices.Contains(exprs, "day") {
				e, a := q.days.SQL("x.bucket")
				exprs = append(exprs, e)
				args = append(args, a...)
			}
		case "model":
			exprs = append(exprs, "x.provider", "x.model")
		case "project":
			exprs = append(exprs, "s.cwd")
		case "session":
			exprs = append(exprs, sessionKeySQL(q.family()))
		case "agent":
			exprs = append(exprs, "s.source")
		case "machine":
			exprs = append(exprs, q.d.machineCol())
		}
	}
	return exprs, args
}

// sumCols are the activity row's counts, summed, in StatsFigures' order
// (0 over no rows).
const sumCols = `CAST(COALESCE(sum(x.entries), 0) AS BIGINT), CAST(COALESCE(sum(x.user_turns), 0) AS BIGINT), CAST(COALESCE(sum(x.assistant_calls), 0) AS BIGINT),
	CAST(COALESCE(sum(x.tool_calls), 0) AS BIGINT), CAST(COALESCE(sum(x.tool_results), 0) AS BIGINT), CAST(COALESCE(sum(x.tool_errors), 0) AS BIGINT),
	CAST(COALESCE(sum(x.user_commands), 0) AS BIGINT), CAST(COALESCE(sum(x.stop_error), 0) AS BIGINT), CAST(COALESCE(sum(x.stop_aborted), 0) AS BIGINT),
	CAST(COALESCE(sum(x.stop_length), 0) AS BIGINT), CAST(COALESCE(sum(x.active_ms), 0) AS BIGINT), CAST(COALESCE(sum(x.turns_timed), 0) AS BIGINT),
	CAST(COALESCE(sum(x.latency_ms), 0) AS BIGINT), CAST(COALESCE(max(x.max_latency_ms), 0) AS BIGINT), CAST(COALESCE(sum(x.compactions), 0) AS BIGINT),
	CAST(COALESCE(sum(x.context_before), 0) AS BIGINT), CAST(COALESCE(max(x.max_context_before), 0) AS BIGINT), COALESCE(sum(x.prompt_input), 0),
	COALESCE(sum(x.prompt_cache_read), 0), COALESCE(sum(x.prompt_cache_write), 0)`

func figureDest(f *pidex.StatsFigures) []any {
	return []any{&f.Entries, &f.UserTurns, &f.AssistantCalls, &f.ToolCalls, &f.ToolResults, &f.ToolErrors, &f.UserCommands,
		&f.StopError, &f.StopAborted, &f.StopLength, &f.ActiveMs, &f.TurnsTimed, &f.LatencyMs, &f.MaxLatencyMs, &f.Compactions,
		&f.ContextBefore, &f.MaxContextBefore, &f.PromptInput, &f.PromptCacheRead, &f.PromptCacheWrite}
}

// statsRows sums the activity rows per group and file, and folds them
// into the report's rows (days into weeks and months in Go) and totals;
// a group's sessions are its distinct files.
func (rd *Reader) statsRows(ctx context.Context, q *statsQuery, r *pidex.StatsReport) error {
	keys, kargs := q.keyCols()
	// A group's sessions are its distinct files: counted in SQL, unless
	// days are folded into weeks or months here (then per file).
	fold := slices.Contains(q.f.By, "week") || slices.Contains(q.f.By, "month")
	sel := slices.Clone(keys)
	switch {
	case fold:
		sel = append(sel, "x.file_id")
	case q.total: // one group: its sessions are statsSessions'
		sel = append(sel, "0")
	default:
		sel = append(sel, "count(DISTINCT x.file_id)")
	}
	groupBy := make([]string, len(keys), len(sel)) // the day's expression holds arguments: said once, grouped by place
	for i := range keys {
		groupBy[i] = fmt.Sprint(i + 1)
	}
	if fold {
		groupBy = append(groupBy, fmt.Sprint(len(sel)))
	}
	stmt := `SELECT ` + strings.Join(sel, ", ") + `, ` + sumCols + q.from(q.sums("", slices.ContainsFunc(q.f.By, pidex.IsPeriod))) + ` WHERE ` + q.cond
	if len(groupBy) > 0 {
		stmt += ` GROUP BY ` + strings.Join(groupBy, ", ")
	}
	db := rd.backend().Rows()
	rows, err := db.QueryContext(ctx, db.Rebind(stmt), append(kargs, q.args...)...)
	if err != nil {
		return err
	}
	defer rows.Close()
	type group struct {
		pidex.StatsRow
		files map[int64]bool
	}
	index := map[string]*group{}
	var order []*group
	for rows.Next() {
		vals := make([]any, len(keys))
		for i := range vals {
			vals[i] = new(any)
		}
		var file int64 // folding: the row's file; else the group's sessions
		var fig pidex.StatsFigures
		if err := rows.Scan(append(append(vals, &file), figureDest(&fig)...)...); err != nil {
			return err
		}
		fig.PromptInput, fig.PromptCacheRead, fig.PromptCacheWrite = pidex.Saturate(fig.PromptInput),
			pidex.Saturate(fig.PromptCacheRead), pidex.Saturate(fig.PromptCacheWrite)
		k := q.rowKeys(vals)
		id := strings.Join(k, "\x00")
		g := index[id]
		if g == nil {
			g = &group{StatsRow: pidex.StatsRow{Keys: k}, files: map[int64]bool{}}
			index[id] = g
			order = append(order, g)
		}
		g.Add(fig)
		if fold {
			g.files[file] = true
		} else {
			g.Sessions = file
		}
		r.Totals.Add(fig)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for _, g := range order {
		if fold {
			g.Sessions = int64(len(g.files))
		}
		r.Rows = append(r.Rows, g.StatsRow)
	}
	slices.SortStableFunc(r.Rows, func(a, b pidex.StatsRow) int { return compareStatsRows(q.f.By, a, b) })
	return nil
}

// rowKeys turns a row's key columns into the report's key values.
func (q *statsQuery) rowKeys(vals []any) []string {
	text := func(i int) string {
		switch v := (*vals[i].(*any)).(type) {
		case nil:
			return ""
		case []byte:
			return string(v)
		case string:
			return v
		case int64:
			return fmt.Sprint(v)
		default:
			return fmt.Sprint(v)
		}
	}
	num := func(i int) int64 {
		switch v := (*vals[i].(*any)).(type) {
		case int64:
			return v
		case int32:
			return int64(v)
		case float64:
			return int64(v)
		}
		return -1
	}
	var out []string
	i := 0
	dayAt := -1
	for _, k := range q.f.By {
		switch k {
		case "day", "week", "month":
			if dayAt < 0 {
				dayAt = i
				i++
			}
			if d := num(dayAt); d < 0 {
				out = append(out, "unknown")
			} else {
				out = append(out, pidex.PeriodKey(k, localDay(d)))
			}
		case "model":
			if m := text(i + 1); m == "" {
				out = append(out, "unknown")
			} else {
				out = append(out, pidex.ModelName(text(i), m))
			}
			i += 2
		default:
			out = append(out, text(i))
			i++
		}
	}
	return out
}

// compareStatsRows orders periods oldest first, then the busiest groups
// (most active time) first, then by key.
func compareStatsRows(by []string, a, b pidex.StatsRow) int {
	for i, k := range by {
		if pidex.IsPeriod(k) {
			if c := strings.Compare(a.Keys[i], b.Keys[i]); c != 0 {
				return c
			}
		}
	}
	return cmp.Or(cmp.Compare(b.ActiveMs, a.ActiveMs), cmp.Compare(b.AssistantCalls, a.AssistantCalls), slices.Compare(a.Keys, b.Keys))
}

// statsSessions takes the selection's sessions whole: their wall and
// active time (session_activity) and branch points.
func (rd *Reader) statsSessions(ctx context.Context, q *statsQuery, r *pidex.StatsReport) error {
	db := rd.backend().Rows()
	stmt := `SELECT a.first_ms, a.last_ms, a.active_ms, s.branch_points FROM session_activity a
		JOIN sessions s ON s.file_id = a.file_id` + q.d.sameMachine("s", "a") + `
		WHERE a.file_id IN (SELECT DISTINCT x.file_id` + q.from(q.sums("", false)) + ` WHERE ` + q.cond + `)`
	if q.total {
		// The branch points kept beside; every session with a counted
		// entry (those are the ones with activity rows) unless a branch
		// is asked for.
		stmt = `SELECT a.first_ms, a.last_ms, a.active_ms, a.branch_points FROM session_activity a WHERE a.entries > 0`
		if q.cond != "1 = 1" {
			stmt += ` AND a.file_id IN (SELECT DISTINCT x.file_id FROM activity_file x WHERE ` + q.cond + `)`
		}
	}
	rows, err := db.QueryContext(ctx, db.Rebind(stmt), q.args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	var walls, actives []int64
	s := &r.Sessions
	for rows.Next() {
		var first, last *int64
		var active, bp int64
		if err := rows.Scan(&first, &last, &active, &bp); err != nil {
			return err
		}
		wall := int64(0)
		if first != nil && last != nil {
			wall = *last - *first
		}
		walls, actives = append(walls, wall), append(actives, active)
		s.WallMs += wall
		s.ActiveMs += active
		s.MaxWallMs = max(s.MaxWallMs, wall)
		s.BranchPoints += bp
	}
	if err := rows.Err(); err != nil {
		return err
	}
	s.Count = int64(len(walls))
	if s.Count > 0 {
		s.MeanWallMs, s.MeanActiveMs = s.WallMs/s.Count, s.ActiveMs/s.Count
		s.MedianWallMs, s.MedianActiveMs = median(walls), median(actives)
	}
	return nil
}

// median is the middle value (the lower of the two middle ones).
func median(v []int64) int64 {
	slices.Sort(v)
	return v[(len(v)-1)/2]
}

const toolSums = `CAST(sum(x.calls) AS BIGINT), CAST(sum(x.results) AS BIGINT), CAST(sum(x.errors) AS BIGINT),
	CAST(sum(x.result_bytes) AS BIGINT), CAST(sum(x.timed) AS BIGINT), CAST(sum(x.duration_ms) AS BIGINT),
	CAST(max(x.max_duration_ms) AS BIGINT)`

// statsTools sums the tools' calls and results, most called first.
func (rd *Reader) statsTools(ctx context.Context, q *statsQuery, r *pidex.StatsReport) error {
	db := rd.backend().Rows()
	stmt := `SELECT x.name, ` + toolSums + q.from(q.sums("_tools", false)) + ` WHERE x.kind = 'tool' AND ` + q.cond + ` GROUP BY x.name`
	rows, err := db.QueryContext(ctx, db.Rebind(stmt), q.args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	r.Tools = []pidex.ToolFigures{}
	for rows.Next() {
		var t pidex.ToolFigures
		if err := rows.Scan(&t.Tool, &t.Calls, &t.Results, &t.Errors, &t.ResultBytes, &t.Timed, &t.DurationMs, &t.MaxDuration); err != nil {
			return err
		}
		r.Tools = append(r.Tools, t)
	}
	slices.SortFunc(r.Tools, func(a, b pidex.ToolFigures) int {
		return cmp.Or(cmp.Compare(b.Calls+b.Results, a.Calls+a.Results), strings.Compare(a.Tool, b.Tool))
	})
	return rows.Err()
}

// statsCommands sums shell commands by first word: the agent's bash
// calls and the user's own, the most run first (StatsTop of them).
func (rd *Reader) statsCommands(ctx context.Context, q *statsQuery, r *pidex.StatsReport) error {
	db := rd.backend().Rows()
	stmt := `SELECT x.kind, x.name, CAST(sum(x.calls) AS BIGINT), CAST(sum(x.errors) AS BIGINT)` + q.from(q.sums("_tools", false)) +
		` WHERE x.kind IN ('bash', 'user') AND ` + q.cond + ` GROUP BY x.kind, x.name`
	rows, err := db.QueryContext(ctx, db.Rebind(stmt), q.args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	byName := map[string]*pidex.CommandFigures{}
	for rows.Next() {
		var kind, name string
		var calls, errs int64
		if err := rows.Scan(&kind, &name, &calls, &errs); err != nil {
			return err
		}
		c := byName[name]
		if c == nil {
			c = &pidex.CommandFigures{Command: name}
			byName[name] = c
		}
		if kind == "user" {
			c.User += calls
		} else {
			c.Calls += calls
			c.Errors += errs
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	r.Commands = []pidex.CommandFigures{}
	for _, c := range byName {
		r.Commands = append(r.Commands, *c)
	}
	slices.SortFunc(r.Commands, func(a, b pidex.CommandFigures) int {
		return cmp.Or(cmp.Compare(b.Calls+b.User, a.Calls+a.User), strings.Compare(a.Command, b.Command))
	})
	r.Commands = r.Commands[:min(len(r.Commands), pidex.StatsTop)]
	return nil
}

// eventFrom is activity events with their sessions, files and entries
// (id, line, time), what a report names them by.
func (q *statsQuery) eventFrom() string {
	return " FROM activity_events x JOIN sessions s ON s.file_id = x.file_id" + q.d.sameMachine("s", "x") +
		" JOIN files f ON f.id = x.file_id" + q.d.sameMachine("f", "x") + q.d.machineJoin() +
		` JOIN entries e ON e.file_id = x.file_id AND e.offset = x.offset` + q.d.sameMachine("e", "x")
}

const eventRef = `f.path, s.session_id, COALESCE(s.name, ''), ` // + machine, e.id, e.line, e.ts_ms

func (q *statsQuery) scanRef(ref *pidex.EntryRef, ts **int64) []any {
	return []any{&ref.Session.Path, &ref.Session.SessionID, &ref.Session.Name, &ref.Session.Machine, &ref.EntryID, &ref.Line, ts}
}

func refTime(ref *pidex.EntryRef, ts *int64) {
	if ts != nil {
		t := pidex.Time(*ts)
		ref.Time = &t
	}
}

// statsErrors lists the most frequent error messages of assistant
// messages that ended in error, aborted or length, each with the latest
// entry that shows it.
func (rd *Reader) statsErrors(ctx context.Context, q *statsQuery, r *pidex.StatsReport) error {
	db := rd.backend().Rows()
	stmt := `SELECT x.kind, x.text, count(*) AS n` + q.from("activity_events") +
		` WHERE x.kind IN ('error', 'aborted', 'length') AND ` + q.cond + ` GROUP BY x.kind, x.text ORDER BY n DESC, x.kind, x.text`
	rows, err := db.QueryContext(ctx, db.Rebind(stmt), q.args...)
	if err != nil {
		return err
	}
	r.Errors = []pidex.ErrorFigures{}
	for rows.Next() && len(r.Errors) < pidex.StatsTop {
		var e pidex.ErrorFigures
		if err := rows.Scan(&e.Kind, &e.Message, &e.Count); err != nil {
			rows.Close()
			return err
		}
		r.Errors = append(r.Errors, e)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	// The latest: its quarter hour first (the index on kind, text,
	// bucket), then the latest entry in it.
	latest := `(SELECT max(x.bucket)` + q.from("activity_events") + ` WHERE x.kind = ? AND x.text = ? AND ` + q.cond + `)`
	last := `SELECT ` + eventRef + q.d.machineCol() + `, e.id, e.line, e.ts_ms` + q.eventFrom() +
		` WHERE x.kind = ? AND x.text = ? AND ` + q.cond + ` AND x.bucket = ` + latest +
		` ORDER BY e.ts_ms DESC, f.path, x.offset DESC LIMIT 1`
	for i := range r.Errors {
		e := &r.Errors[i]
		var ts *int64
		args := slices.Concat([]any{e.Kind, e.Message}, q.args, []any{e.Kind, e.Message}, q.args)
		if err := db.QueryRowContext(ctx, db.Rebind(last), args...).Scan(q.scanRef(&e.Last, &ts)...); err != nil {
			return err
		}
		refTime(&e.Last, ts)
	}
	return nil
}

// statsSlowest lists the slowest tool results (each session keeps its
// pidex.SlowestKept slowest).
func (rd *Reader) statsSlowest(ctx context.Context, q *statsQuery, r *pidex.StatsReport) error {
	db := rd.backend().Rows()
	// The StatsTop-th longest duration, read down the index on (kind,
	// duration_ms), bounds the rows to join and order.
	top := fmt.Sprint(pidex.StatsTop)
	least := `(SELECT x.duration_ms` + q.from("activity_events") + ` WHERE x.kind = 'tool' AND ` + q.cond +
		` ORDER BY x.duration_ms DESC LIMIT 1 OFFSET ` + fmt.Sprint(pidex.StatsTop-1) + `)`
	stmt := `SELECT x.text, x.duration_ms, ` + eventRef + q.d.machineCol() + `, e.id, e.line, e.ts_ms` + q.eventFrom() +
		` WHERE x.kind = 'tool' AND ` + q.cond + ` AND x.duration_ms >= COALESCE(` + least + `, 0)
		ORDER BY x.duration_ms DESC, f.path, x.offset LIMIT ` + top
	rows, err := db.QueryContext(ctx, db.Rebind(stmt), append(slices.Clone(q.args), q.args...)...)
	if err != nil {
		return err
	}
	defer rows.Close()
	r.Slowest = []pidex.SlowCall{}
	for rows.Next() {
		var c pidex.SlowCall
		var ts *int64
		if err := rows.Scan(append([]any{&c.Tool, &c.DurationMs}, q.scanRef(&c.At, &ts)...)...); err != nil {
			return err
		}
		refTime(&c.At, ts)
		r.Slowest = append(r.Slowest, c)
	}
	return rows.Err()
}

// statsHeatmap sums active time and turns per quarter hour and files
// each under its weekday and hour in the report's zone.
func (rd *Reader) statsHeatmap(ctx context.Context, q *statsQuery, r *pidex.StatsReport) error {
	db := rd.backend().Rows()
	hour, hargs := q.days.HourSQL("x.bucket")
	stmt := `SELECT ` + hour + `, CAST(sum(x.active_ms) AS BIGINT), CAST(sum(x.user_turns) AS BIGINT)` + q.from("activity") +
		` WHERE x.bucket >= 0 AND ` + q.cond + ` GROUP BY 1`
	// The whole history's sums are by hour, or by quarter hour for a zone
	// with other offsets: the hour of the week each is is HourOf's.
	inGo := q.total
	switch {
	case inGo && q.days.wholeHours():
		stmt, hargs = `SELECT x.hour * 4, sum(x.active_ms), sum(x.user_turns) FROM activity_hours x WHERE `+q.cond+` GROUP BY x.hour`, nil
	case inGo:
		stmt, hargs = `SELECT x.bucket, sum(x.active_ms), sum(x.user_turns) FROM activity_quarters x WHERE x.bucket >= 0 AND `+q.cond+` GROUP BY x.bucket`, nil
	}
	rows, err := db.QueryContext(ctx, db.Rebind(stmt), append(hargs, q.args...)...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var h, active, turns int64
		if err := rows.Scan(&h, &active, &turns); err != nil {
			return err
		}
		if inGo {
			h = q.days.HourOf(h)
		}
		c := &r.Heatmap[h/24][h%24]
		c.ActiveMs += active
		c.UserTurns += turns
	}
	return rows.Err()
}
