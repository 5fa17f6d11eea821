// Package catalogtest helps tests compare catalogs: Dump prints every
// derived row keyed by file path (never by row ids, which depend on the
// order files were written), so an incremental, rebuilt or copied catalog
// can be compared with a fresh one.
package catalogtest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/jmoiron/sqlx"
)

var queries = []string{
	`SELECT f.path, f.kind, f.offset, f.lines, f.seq, f.version, f.last_id, f.warnings, f.open_tail, f.content_crc FROM files f ORDER BY f.path`,
	`SELECT f.path, s.session_id, s.version, s.cwd, s.parent_session, s.branched_from, s.created, s.created_ms, s.name, s.last_activity_ms,
	   s.message_count, s.first_message, s.entry_count, s.leaf_id, s.leaf_offset, s.input, s.output, s.cache_read, s.cache_write,
	   s.total_tokens, printf('%.6f', s.cost) FROM sessions s JOIN files f ON f.id = s.file_id ORDER BY f.path`,
	`SELECT f.path, e.offset, e.length, e.line, e.seq, e.id, e.parent_id, e.type, e.role, e.ts, e.msg_ts, e.provider, e.model,
	   e.target_id, e.first_kept FROM entries e JOIN files f ON f.id = e.file_id ORDER BY f.path, e.offset`,
	`SELECT f.path, e.child_id, e.parent_id, e.offset FROM edges e JOIN files f ON f.id = e.file_id ORDER BY f.path, e.child_id`,
	`SELECT f.path, o.offset FROM off_path o JOIN files f ON f.id = o.file_id ORDER BY f.path, o.offset`,
	`SELECT f.path, l.target_id, l.label, l.ts, l.offset FROM labels l JOIN files f ON f.id = l.file_id ORDER BY f.path, l.target_id`,
	`SELECT f.path, u.offset, u.source, u.entry_id, u.ts_ms, u.provider, u.model, u.total_tokens, u.cache_write_1h, u.reasoning,
	   u.cost_total, u.attr_provider, u.attr_model, u.on_path, u.is_copy, u.call_active
	   FROM usage u JOIN files f ON f.id = u.file_id ORDER BY f.path, u.offset`,
	`SELECT f.path, r.bucket, r.provider, r.model, r.source, r.is_copy, r.active, r.zero_cost, r.calls, r.input, r.output,
	   r.cache_read, r.cache_write, r.cache_write_1h, r.total_tokens, printf('%.6f', r.cost)
	   FROM usage_rollup r JOIN files f ON f.id = r.file_id ORDER BY 1, 2, 3, 4, 5, 6, 7, 8`,
	`SELECT f.path, r.bucket, r.provider, r.model, r.source, r.is_copy, r.active, r.zero_cost, r.calls, r.input, r.output,
	   r.cache_read, r.cache_write, r.cache_write_1h, r.total_tokens, printf('%.6f', r.cost)
	   FROM usage_rollup_hour r JOIN files f ON f.id = r.file_id ORDER BY 1, 2, 3, 4, 5, 6, 7, 8`,
	`SELECT 'touched', entry_id FROM calls_touched`,
	`SELECT f.path, e.offset, e.stop_reason, e.error, e.tokens_before, e.command FROM entries e JOIN files f ON f.id = e.file_id
	   WHERE e.stop_reason IS NOT NULL OR e.error IS NOT NULL OR e.tokens_before IS NOT NULL OR e.command IS NOT NULL ORDER BY f.path, e.offset`,
	`SELECT f.path, t.call_id, t.offset, t.idx, t.command, t.size FROM tool_calls t JOIN files f ON f.id = t.file_id ORDER BY f.path, t.call_id, t.offset, t.idx`,
	`SELECT f.path, a.counted_from, a.first_ms, a.last_ms, a.active_ms, a.entries, a.branch_points FROM session_activity a JOIN files f ON f.id = a.file_id ORDER BY f.path`,
	// The whole history's sums (migration 00020).
	`SELECT active, file_rows, entries, user_turns, assistant_calls, tool_calls, tool_results, tool_errors, user_commands, stop_error,
	   stop_aborted, stop_length, active_ms, turns_timed, latency_ms, max_latency_ms, compactions, context_before, max_context_before,
	   printf('%.3f %.3f %.3f', prompt_input, prompt_cache_read, prompt_cache_write) FROM activity_all ORDER BY active`,
	`SELECT * FROM activity_tools_all ORDER BY kind, name, active`,
	`SELECT * FROM activity_quarters ORDER BY bucket, active`,
	`SELECT * FROM activity_hours ORDER BY hour, active`,
	`SELECT f.path, a.bucket, a.provider, a.model, a.active, a.entries, a.user_turns, a.assistant_calls, a.tool_calls, a.tool_results,
	   a.tool_errors, a.user_commands, a.stop_error, a.stop_aborted, a.stop_length, a.active_ms, a.turns_timed, a.latency_ms,
	   a.max_latency_ms, a.compactions, a.context_before, a.max_context_before, printf('%.3f %.3f %.3f', a.prompt_input,
	   a.prompt_cache_read, a.prompt_cache_write)
	   FROM activity a JOIN files f ON f.id = a.file_id ORDER BY 1, 2, 3, 4, 5`,
	`SELECT f.path, a.bucket, a.kind, a.name, a.provider, a.model, a.active, a.calls, a.results, a.errors, a.result_bytes, a.timed,
	   a.duration_ms, a.max_duration_ms FROM activity_tools a JOIN files f ON f.id = a.file_id ORDER BY 1, 2, 3, 4, 5, 6, 7`,
	`SELECT f.path, a.offset, a.kind, a.bucket, a.provider, a.model, a.active, a.text, a.duration_ms
	   FROM activity_events a JOIN files f ON f.id = a.file_id ORDER BY 1, 2`,
	`SELECT f.path, a.provider, a.model, a.active, a.entries, a.user_turns, a.assistant_calls, a.tool_calls, a.tool_results,
	   a.tool_errors, a.user_commands, a.stop_error, a.stop_aborted, a.stop_length, a.active_ms, a.turns_timed, a.latency_ms,
	   a.max_latency_ms, a.compactions, a.context_before, a.max_context_before, printf('%.3f %.3f %.3f', a.prompt_input,
	   a.prompt_cache_read, a.prompt_cache_write)
	   FROM activity_file a JOIN files f ON f.id = a.file_id ORDER BY 1, 2, 3, 4`,
	`SELECT f.path, a.kind, a.name, a.provider, a.model, a.active, a.calls, a.results, a.errors, a.result_bytes, a.timed,
	   a.duration_ms, a.max_duration_ms FROM activity_tools_file a JOIN files f ON f.id = a.file_id ORDER BY 1, 2, 3, 4, 5, 6`,
	`SELECT f.path, w.line, w.message FROM warnings w JOIN files f ON f.id = w.file_id ORDER BY f.path, w.line, w.message`,
	textSizeChecks,
}

// textSizeChecks is what must hold of the entries' sizes in tokens
// (search's rank), whatever the catalog's history and however far its
// text pass got: a size for every row of the text index and none
// without one, totals that are their sums. Each row: what, and how many
// break it.
const textSizeChecks = `SELECT 'text rows without a size' AS what, count(*) AS n FROM text_index_docsize d WHERE NOT EXISTS (SELECT 1 FROM text_sizes s WHERE s.id = d.id)
	 UNION ALL SELECT 'sizes without a text row', count(*) FROM text_sizes s WHERE NOT EXISTS (SELECT 1 FROM text_index_docsize d WHERE d.id = s.id)
	 UNION ALL SELECT 'totals off', count(*) FROM text_totals t WHERE t.rows != (SELECT count(*) FROM text_sizes) OR t.tokens != (SELECT COALESCE(sum(n), 0) FROM text_sizes)`

// TextSizesHold fails t unless textSizeChecks hold of the catalog (which
// Dump also prints, for tests that compare catalogs).
func TextSizesHold(t testing.TB, db *sqlx.DB) {
	t.Helper()
	var broken []struct {
		What string `db:"what"`
		N    int    `db:"n"`
	}
	if err := db.Select(&broken, `SELECT what, n FROM (`+textSizeChecks+`) WHERE n != 0`); err != nil {
		t.Fatal(err)
	}
	for _, b := range broken {
		t.Errorf("%s: %d", b.What, b.N)
	}
}

// Dump returns every derived row of the catalog as text.
func Dump(t testing.TB, db *sqlx.DB) string {
	t.Helper()
	var b strings.Builder
	for _, q := range queries {
		rows, err := db.Queryx(q)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			vals, err := rows.SliceScan()
			if err != nil {
				t.Fatal(err)
			}
			for i, v := range vals {
				if bs, ok := v.([]byte); ok {
					vals[i] = string(bs)
				}
			}
			fmt.Fprintln(&b, vals...)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		rows.Close()
		b.WriteString("--\n")
	}
	return b.String()
}
