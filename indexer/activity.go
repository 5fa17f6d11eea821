package indexer

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/pi"
)

// What `pidex stats` counts, derived per session file from its rows
// (migration 00017; docs/stats.md defines each figure in these terms):
//
//   - counted entries: all of a file's, except copies of entries another
//     file counts. A fork's file (its header names a parent session)
//     begins with copies of its source's entries, written before the fork
//     was made: those before its first entry timed at or after its
//     header's time are its source's (session_activity.counted_from). Two
//     files holding one session id (a copy, a backup, an earlier
//     snapshot) share their entries: an entry whose id and time a file of
//     the same session id with a lower path holds is counted there;
//   - the model in effect at an entry: the provider and model of the
//     latest assistant message or model_change at or before it in the
//     file ("" before any);
//   - active: the entry lies on the file's current root-to-leaf path;
//   - a turn: a user message and the entries after it in the file up to
//     the next user message; its latency runs from the user message to
//     the last assistant message among them;
//   - active time: the gaps between consecutive counted entries (file
//     order, both timed) of at most pidex.ActiveGapMs, each added at the
//     later entry;
//   - a tool result answers the latest call with its id before it in the
//     file; its duration runs from that call's message to the result;
//     each file keeps its pidex.SlowestKept slowest results by name.
//
// A file's rows are derived again, whole, whenever the file changes: an
// append can end a turn, move the leaf (and with it every entry's branch)
// or answer a call made before it.

// actEntry is one entry as the derivation reads it ("" and nil: absent).
type actEntry struct {
	Offset                       int64
	ID, Type, Role, Provider     string
	Model                        string
	StopReason, Error, Command   string
	TSMs, TokensBefore           *int64
	Input, CacheRead, CacheWrite float64 // an assistant message's usage
	hasModel                     bool    // Provider/Model were set (an entry that names a model)
}

// actTool is a tool call (Index ≥ 0) or result (Index -1).
type actTool struct {
	CallID, Name, Command string
	Offset                int64
	Index                 int
	IsError               bool
	Size                  int64
}

// actKey is a row of activity: a bucket, a model and a branch flag.
type actKey struct {
	Bucket          int64
	Provider, Model string
	Active          bool
}

// actSums are a row's figures: the domain's, summed alike (Sessions
// unused).
type actSums = pidex.StatsFigures

type toolKey struct {
	actKey
	Kind, Name string
}

type toolSums struct{ Calls, Results, Errors, ResultBytes, Timed, DurationMs, MaxDurationMs int64 }

type actEvent struct {
	Offset   int64
	Kind     string
	Key      actKey
	Text     string
	Duration *int64
}

// deriveActivity derives a session file's activity rows from its entries,
// tool calls and usage, replacing the ones it had.
func deriveActivity(ctx context.Context, tx *wtx, id int64) error {
	var head struct {
		CreatedMs *int64 `db:"created_ms"`
		Forked    bool   `db:"forked"`
	}
	if err := tx.get(ctx, &head, `SELECT created_ms, (parent_session != '' OR branched_from != '') AS forked
		FROM sessions WHERE file_id = ?`, id); err != nil {
		return fmt.Errorf("derive activity: %w", err)
	}
	es, err := readActEntries(ctx, tx, id)
	if err != nil {
		return err
	}
	copied, err := siblingEntries(ctx, tx, id)
	if err != nil {
		return err
	}
	ts, err := readActTools(ctx, tx, id)
	if err != nil {
		return err
	}
	onPath, err := pathOffsets(ctx, tx, id)
	if err != nil {
		return err
	}
	d := newActivity(es, ts, onPath, head.CreatedMs, head.Forked, copied)
	return d.write(ctx, tx, id)
}

// pathOffsets are the offsets of the entries on a file's current
// root-to-leaf path (as markFilePath walks it).
func pathOffsets(ctx context.Context, tx *wtx, id int64) (map[int64]bool, error) {
	var offs []int64
	err := tx.sel(ctx, &offs, `WITH RECURSIVE walk(id) AS (
			SELECT leaf_id FROM sessions WHERE file_id = ?1 AND leaf_id IS NOT NULL
			UNION
			SELECT ed.parent_id FROM walk w CROSS JOIN edges ed ON ed.file_id = ?1 AND ed.child_id = w.id
			WHERE ed.parent_id IS NOT NULL)
		SELECT ed.offset FROM walk w CROSS JOIN edges ed ON ed.file_id = ?1 AND ed.child_id = w.id`, id)
	if err != nil {
		return nil, fmt.Errorf("derive activity: walk the path: %w", err)
	}
	on := make(map[int64]bool, len(offs))
	for _, o := range offs {
		on[o] = true
	}
	return on, nil
}

// activity is one file's derived rows.
type activity struct {
	countedFrom     int64
	first, last     *int64
	activeMs, count int64
	rows            map[actKey]*actSums
	tools           map[toolKey]*toolSums
	events          []actEvent
	slow            []actEvent // timed tool results
}

func (a *activity) sums(k actKey) *actSums {
	s := a.rows[k]
	if s == nil {
		s = &actSums{}
		a.rows[k] = s
	}
	return s
}

func (a *activity) tool(k actKey, kind, name string) *toolSums {
	tk := toolKey{k, kind, name}
	s := a.tools[tk]
	if s == nil {
		s = &toolSums{}
		a.tools[tk] = s
	}
	return s
}

func bucketOf(ts *int64) int64 {
	if ts == nil || *ts < 0 {
		return -1
	}
	return *ts / pidex.BucketMs
}

// newActivity walks a file's entries in file order (see the rules above).
// copied holds the entries (sameEntry) a file of the same session id
// with a lower path counts.
func newActivity(es []actEntry, ts []actTool, onPath map[int64]bool, created *int64, forked bool, copied map[string]bool) *activity {
	a := &activity{rows: map[actKey]*actSums{}, tools: map[toolKey]*toolSums{}}
	a.countedFrom = countedFrom(es, created, forked)
	byOffset := map[int64][]actTool{}
	for _, t := range ts {
		byOffset[t.Offset] = append(byOffset[t.Offset], t)
	}
	type call struct {
		key     actKey
		ts      *int64
		name    string
		command string
		counted bool
	}
	calls := map[string]call{} // the latest call with each id
	var provider, model string
	var prevTS *int64
	var turn *actEntry // the open turn's user message
	var turnKey actKey // its row
	var lastReply *actEntry
	closeTurn := func() {
		if turn == nil {
			return
		}
		k := turnKey
		if lastReply != nil {
			k.Provider, k.Model = lastReply.Provider, lastReply.Model
		}
		s := a.sums(k)
		s.UserTurns++
		if lastReply != nil && turn.TSMs != nil && lastReply.TSMs != nil && *lastReply.TSMs >= *turn.TSMs {
			ms := *lastReply.TSMs - *turn.TSMs
			s.TurnsTimed++
			s.LatencyMs += ms
			s.MaxLatencyMs = max(s.MaxLatencyMs, ms)
		}
		turn, lastReply = nil, nil
	}
	for i := range es {
		e := &es[i]
		role := e.Role
		if (role == "assistant" || e.Type == "model_change") && e.hasModel {
			provider, model = e.Provider, e.Model
		}
		counted := e.Offset >= a.countedFrom && !copied[sameEntry(e.ID, e.TSMs)]
		k := actKey{Bucket: bucketOf(e.TSMs), Provider: provider, Model: model, Active: onPath[e.Offset]}
		if e.Type == "message" && role == "user" && counted {
			closeTurn()
			turn, turnKey = e, k
		}
		for _, t := range byOffset[e.Offset] {
			if t.Index >= 0 {
				calls[t.CallID] = call{key: k, ts: e.TSMs, name: t.Name, command: t.Command, counted: counted}
				if counted {
					a.sums(k).ToolCalls++
					a.tool(k, "tool", t.Name).Calls++
					if t.Command != "" {
						a.tool(k, "bash", t.Command).Calls++
					}
				}
				continue
			}
			if !counted {
				continue
			}
			c, answered := calls[t.CallID]
			name := t.Name
			if name == "" {
				name = c.name
			}
			s := a.sums(k)
			s.ToolResults++
			ts := a.tool(k, "tool", name)
			ts.Results++
			ts.ResultBytes += t.Size
			isErr := t.IsError
			if isErr {
				s.ToolErrors++
				ts.Errors++
			}
			if answered && c.command != "" {
				bs := a.tool(k, "bash", c.command)
				bs.Results++
				if isErr {
					bs.Errors++
				}
			}
			if answered && c.ts != nil && e.TSMs != nil && *e.TSMs >= *c.ts {
				ms := *e.TSMs - *c.ts
				ts.Timed++
				ts.DurationMs += ms
				ts.MaxDurationMs = max(ts.MaxDurationMs, ms)
				a.slow = append(a.slow, actEvent{Offset: e.Offset, Kind: "tool", Key: k, Text: name, Duration: &ms})
			}
		}
		if !counted {
			continue
		}
		s := a.sums(k)
		s.Entries++
		a.count++
		switch {
		case e.Type == "message" && role == "assistant":
			s.AssistantCalls++
			s.PromptInput = pidex.SaturatingAdd(s.PromptInput, e.Input)
			s.PromptCacheRead = pidex.SaturatingAdd(s.PromptCacheRead, e.CacheRead)
			s.PromptCacheWrite = pidex.SaturatingAdd(s.PromptCacheWrite, e.CacheWrite)
			switch sr := e.StopReason; sr {
			case "error", "aborted", "length":
				switch sr {
				case "error":
					s.StopError++
				case "aborted":
					s.StopAborted++
				default:
					s.StopLength++
				}
				a.events = append(a.events, actEvent{Offset: e.Offset, Kind: sr, Key: k, Text: e.Error})
			}
			if turn != nil {
				lastReply = e
			}
		case e.Type == "message" && role == "bashExecution":
			s.UserCommands++
			if e.Command != "" {
				a.tool(k, "user", e.Command).Calls++
			}
		case e.Type == "compaction":
			s.Compactions++
			if e.TokensBefore != nil {
				s.ContextBefore += *e.TokensBefore
				s.MaxContextBefore = max(s.MaxContextBefore, *e.TokensBefore)
			}
		}
		if e.TSMs != nil {
			if prevTS != nil {
				if gap := *e.TSMs - *prevTS; gap > 0 && gap <= pidex.ActiveGapMs {
					s.ActiveMs += gap
					a.activeMs += gap
				}
			}
			prevTS = e.TSMs
			if a.first == nil || *e.TSMs < *a.first {
				a.first = e.TSMs
			}
			if a.last == nil || *e.TSMs > *a.last {
				a.last = e.TSMs
			}
		}
	}
	closeTurn()
	// The slowest results are the ones a report names: a file keeps its
	// pidex.SlowestKept slowest (a report's slowest are among them).
	slices.SortStableFunc(a.slow, func(x, y actEvent) int { return cmp.Compare(*y.Duration, *x.Duration) })
	a.events = append(a.events, a.slow[:min(len(a.slow), pidex.SlowestKept)]...)
	return a
}

// countedFrom is the offset of a file's first counted entry: its first,
// or in a fork's file the first timed at or after the fork's header (the
// copies before it are its source's entries).
func countedFrom(es []actEntry, created *int64, forked bool) int64 {
	if len(es) == 0 || !forked || created == nil {
		return 0
	}
	for _, e := range es {
		if e.TSMs != nil && *e.TSMs >= *created {
			return e.Offset
		}
	}
	return es[len(es)-1].Offset + 1 // all copies
}

// activityTables hold a file's activity rows (rowTables has them too).
var activityTables = []string{"session_activity", "activity", "activity_tools", "activity_events", "activity_file", "activity_tools_file"}

// write replaces the file's activity rows with a's.
func (a *activity) write(ctx context.Context, tx *wtx, id int64) error {
	for _, t := range activityTables {
		if err := tx.exec(ctx, "DELETE FROM "+t+" WHERE file_id = ?", id); err != nil {
			return fmt.Errorf("clear %s: %w", t, err)
		}
	}
	// (Its branch points are copied from sessions by migration 00020's triggers.)
	if err := tx.exec(ctx, `INSERT INTO session_activity (file_id, counted_from, first_ms, last_ms, active_ms, entries)
		VALUES (?, ?, ?, ?, ?, ?)`, id, a.countedFrom, a.first, a.last, a.activeMs, a.count); err != nil {
		return fmt.Errorf("write session activity: %w", err)
	}
	if err := writeSums(ctx, tx, "activity", id, a.rows, true); err != nil {
		return fmt.Errorf("write activity: %w", err)
	}
	if err := writeTools(ctx, tx, "activity_tools", id, a.tools, true); err != nil {
		return fmt.Errorf("write tool activity: %w", err)
	}
	err := bulkInsert(ctx, tx, `INSERT OR REPLACE INTO activity_events (file_id, offset, kind, bucket, provider, model, active,
		text, duration_ms)`, 9, len(a.events), func(i int, args []any) []any {
		ev := &a.events[i]
		return append(args, id, ev.Offset, ev.Kind, ev.Key.Bucket, ev.Key.Provider, ev.Key.Model, ev.Key.Active, ev.Text, ev.Duration)
	})
	if err != nil {
		return fmt.Errorf("write activity events: %w", err)
	}
	return a.writeWhole(ctx, tx, id)
}

// writeWhole writes the file's sums whatever the time (activity_file,
// activity_tools_file): what a report without a window reads.
func (a *activity) writeWhole(ctx context.Context, tx *wtx, id int64) error {
	rows := map[actKey]*actSums{}
	for k, s := range a.rows {
		k.Bucket = 0
		if rows[k] == nil {
			rows[k] = &actSums{}
		}
		rows[k].Add(*s)
	}
	if err := writeSums(ctx, tx, "activity_file", id, rows, false); err != nil {
		return fmt.Errorf("write file activity: %w", err)
	}
	tools := map[toolKey]*toolSums{}
	for k, s := range a.tools {
		k.Bucket = 0
		if tools[k] == nil {
			tools[k] = &toolSums{}
		}
		tools[k].add(s)
	}
	if err := writeTools(ctx, tx, "activity_tools_file", id, tools, false); err != nil {
		return fmt.Errorf("write file tool activity: %w", err)
	}
	return nil
}

// writeSums inserts a file's figures per key into table: activity (per
// quarter hour, bucket) or activity_file (whatever the time).
func writeSums(ctx context.Context, tx *wtx, table string, id int64, rows map[actKey]*actSums, bucket bool) error {
	keys := slices.Collect(maps.Keys(rows))
	cols, n := "file_id, provider, model, active", 24
	if bucket {
		cols, n = "file_id, bucket, provider, model, active", 25
	}
	return bulkInsert(ctx, tx, `INSERT INTO `+table+` (`+cols+`, entries, user_turns, assistant_calls, tool_calls,
		tool_results, tool_errors, user_commands, stop_error, stop_aborted, stop_length, active_ms, turns_timed, latency_ms,
		max_latency_ms, compactions, context_before, max_context_before, prompt_input, prompt_cache_read, prompt_cache_write)`,
		n, len(keys), func(i int, args []any) []any {
			k := keys[i]
			s := rows[k]
			args = append(args, id)
			if bucket {
				args = append(args, k.Bucket)
			}
			return append(args, k.Provider, k.Model, k.Active, s.Entries, s.UserTurns, s.AssistantCalls,
				s.ToolCalls, s.ToolResults, s.ToolErrors, s.UserCommands, s.StopError, s.StopAborted, s.StopLength,
				s.ActiveMs, s.TurnsTimed, s.LatencyMs, s.MaxLatencyMs, s.Compactions, s.ContextBefore, s.MaxContextBefore,
				s.PromptInput, s.PromptCacheRead, s.PromptCacheWrite)
		})
}

// writeTools inserts a file's tool and command sums into table:
// activity_tools (bucket) or activity_tools_file.
func writeTools(ctx context.Context, tx *wtx, table string, id int64, tools map[toolKey]*toolSums, bucket bool) error {
	keys := slices.Collect(maps.Keys(tools))
	cols, n := "file_id, kind, name", 13
	if bucket {
		cols, n = "file_id, bucket, kind, name", 14
	}
	return bulkInsert(ctx, tx, `INSERT INTO `+table+` (`+cols+`, provider, model, active, calls, results, errors,
		result_bytes, timed, duration_ms, max_duration_ms)`, n, len(keys), func(i int, args []any) []any {
		k := keys[i]
		s := tools[k]
		args = append(args, id)
		if bucket {
			args = append(args, k.Bucket)
		}
		return append(args, k.Kind, k.Name, k.Provider, k.Model, k.Active, s.Calls, s.Results, s.Errors,
			s.ResultBytes, s.Timed, s.DurationMs, s.MaxDurationMs)
	})
}

func (s *toolSums) add(o *toolSums) {
	s.Calls += o.Calls
	s.Results += o.Results
	s.Errors += o.Errors
	s.ResultBytes += o.ResultBytes
	s.Timed += o.Timed
	s.DurationMs += o.DurationMs
	s.MaxDurationMs = max(s.MaxDurationMs, o.MaxDurationMs)
}

// readActEntries reads a file's entries for the derivation, in file order.
func readActEntries(ctx context.Context, tx *wtx, id int64) ([]actEntry, error) {
	rows, err := tx.query(ctx, `SELECT e.offset, e.id, e.type, COALESCE(e.role, ''), e.ts_ms, e.provider IS NOT NULL OR e.model IS NOT NULL,
			COALESCE(e.provider, ''), COALESCE(e.model, ''), COALESCE(e.stop_reason, ''), COALESCE(e.error, ''),
			e.tokens_before, COALESCE(e.command, ''), COALESCE(u.input, 0), COALESCE(u.cache_read, 0), COALESCE(u.cache_write, 0)
		FROM entries e LEFT JOIN usage u ON u.file_id = e.file_id AND u.offset = e.offset AND u.source = 'assistant'
		WHERE e.file_id = ? ORDER BY e.offset`, id)
	if err != nil {
		return nil, fmt.Errorf("derive activity: read entries: %w", err)
	}
	defer rows.Close()
	var es []actEntry
	for rows.Next() {
		var e actEntry
		if err := rows.Scan(&e.Offset, &e.ID, &e.Type, &e.Role, &e.TSMs, &e.hasModel, &e.Provider, &e.Model, &e.StopReason, &e.Error,
			&e.TokensBefore, &e.Command, &e.Input, &e.CacheRead, &e.CacheWrite); err != nil {
			return nil, fmt.Errorf("derive activity: read entries: %w", err)
		}
		es = append(es, e)
	}
	return es, rows.Err()
}

// readActTools reads a file's tool calls and results, in file order.
func readActTools(ctx context.Context, tx *wtx, id int64) ([]actTool, error) {
	rows, err := tx.query(ctx, `SELECT call_id, name, COALESCE(command, ''), offset, idx, COALESCE(is_error, 0), COALESCE(size, 0)
		FROM tool_calls WHERE file_id = ? ORDER BY offset, idx`, id)
	if err != nil {
		return nil, fmt.Errorf("derive activity: read tool calls: %w", err)
	}
	defer rows.Close()
	var ts []actTool
	for rows.Next() {
		var t actTool
		if err := rows.Scan(&t.CallID, &t.Name, &t.Command, &t.Offset, &t.Index, &t.IsError, &t.Size); err != nil {
			return nil, fmt.Errorf("derive activity: read tool calls: %w", err)
		}
		ts = append(ts, t)
	}
	return ts, rows.Err()
}

// actEntryOf is what the derivation needs of a parsed entry (a file read
// from its start is derived by its parser: see parser.activity).
func actEntryOf(r *entryRow, f *pi.Facts) actEntry {
	e := actEntry{Offset: r.Offset, ID: r.ID, Type: r.Type, TSMs: r.TSMs, Provider: f.Provider, Model: f.Model,
		hasModel: r.Provider != nil || r.Model != nil, StopReason: f.StopReason, Error: f.Error, Command: f.Command,
		TokensBefore: f.TokensBefore}
	if r.Role != nil {
		e.Role = *r.Role
	}
	for _, u := range f.Usage {
		if u.Source == "assistant" && !u.TotalsOnly {
			e.Input, e.CacheRead, e.CacheWrite = u.Usage.Input, u.Usage.CacheRead, u.Usage.CacheWrite
		}
	}
	return e
}

// sameEntry is what makes two files' entries the same entry: id and time.
func sameEntry(id string, ts *int64) string {
	if ts == nil {
		return id + "\x00"
	}
	return fmt.Sprint(id, "\x00", *ts)
}

// siblingEntries are the entries (sameEntry) that files of the same
// session id with a lower path hold: this file's copies of them are
// counted there.
func siblingEntries(ctx context.Context, tx *wtx, id int64) (map[string]bool, error) {
	rows, err := tx.query(ctx, `SELECT e.id, e.ts_ms FROM sessions me JOIN files mf ON mf.id = me.file_id
		JOIN sessions o ON o.session_id = me.session_id AND o.file_id != me.file_id
		JOIN files f ON f.id = o.file_id AND f.path < mf.path
		JOIN entries e ON e.file_id = o.file_id
		WHERE me.file_id = ?`, id)
	if err != nil {
		return nil, fmt.Errorf("derive activity: read copies: %w", err)
	}
	defer rows.Close()
	var out map[string]bool
	for rows.Next() {
		var eid string
		var ts *int64
		if err := rows.Scan(&eid, &ts); err != nil {
			return nil, fmt.Errorf("derive activity: read copies: %w", err)
		}
		if out == nil {
			out = map[string]bool{}
		}
		out[sameEntry(eid, ts)] = true
	}
	return out, rows.Err()
}

// sessionFiles are the files holding session id sid, but skip.
func sessionFiles(ctx context.Context, tx *wtx, sid string, skip int64) ([]int64, error) {
	var ids []int64
	if err := tx.sel(ctx, &ids, `SELECT file_id FROM sessions WHERE session_id = ? AND file_id != ?`, sid, skip); err != nil {
		return nil, fmt.Errorf("derive activity: find copies: %w", err)
	}
	return ids, nil
}

// sessionIDOf is a file's session id ("" when it holds no session).
func sessionIDOf(ctx context.Context, tx *wtx, id int64) (string, error) {
	var sid []string
	if err := tx.sel(ctx, &sid, `SELECT session_id FROM sessions WHERE file_id = ?`, id); err != nil {
		return "", fmt.Errorf("derive activity: %w", err)
	}
	if len(sid) == 0 {
		return "", nil
	}
	return sid[0], nil
}

// deriveSiblings derives again the activity of the other files holding
// session id sid (they count this file's entries, or stop counting them).
func deriveSiblings(ctx context.Context, tx *wtx, sid string, skip int64) error {
	if sid == "" {
		return nil
	}
	ids, err := sessionFiles(ctx, tx, sid, skip)
	if err != nil {
		return err
	}
	for _, f := range ids {
		if err := deriveActivity(ctx, tx, f); err != nil {
			return err
		}
	}
	return nil
}

// writeActivity writes a session file's activity after a batch: the
// parser's, for a whole file read from its start, else derived again
// from the rows (an append); and, where other files hold its session id
// (or held its former one), theirs and its own from the rows, since which
// file counts a shared entry depends on them all.
func writeActivity(ctx context.Context, tx *wtx, id int64, b *batch, oldSession string) error {
	if b.fromStart && b.activity == nil {
		return nil // the file's last batch brings it
	}
	sid := b.session.SessionID
	others, err := sessionFiles(ctx, tx, sid, id)
	if err != nil {
		return err
	}
	switch {
	case b.activity != nil && len(others) == 0:
		err = b.activity.write(ctx, tx, id)
	default:
		err = deriveActivity(ctx, tx, id)
	}
	if err != nil {
		return err
	}
	if err := deriveSiblings(ctx, tx, sid, id); err != nil {
		return err
	}
	if oldSession != sid {
		return deriveSiblings(ctx, tx, oldSession, id)
	}
	return nil
}

// sessionIDOfPath is the session id of the file at path ("": none).
func sessionIDOfPath(ctx context.Context, tx *wtx, path string) (string, error) {
	var sid []string
	if err := tx.sel(ctx, &sid, `SELECT s.session_id FROM sessions s JOIN files f ON f.id = s.file_id WHERE f.path = ?`, path); err != nil {
		return "", fmt.Errorf("derive activity: %w", err)
	}
	if len(sid) == 0 {
		return "", nil
	}
	return sid[0], nil
}
