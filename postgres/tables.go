package postgres

import (
	"math"
	"strconv"
	"strings"

	"github.com/pidex-dev/pidex/query"
)

// A push copies the local catalog's rows table by table: the team
// catalog's tables have the local ones' columns (migrations/postgres),
// plus machine_id, and file ids of their own.

type colKind int

const (
	colPlain   colKind = iota
	colFile            // the team catalog's file id
	colMachine         // the machine's id
	colBool            // a SQLite 0/1 flag, a boolean here
	colNumeric         // a rollup sum, exact here (see cost.go)
)

type column struct {
	name string
	kind colKind
}

type table struct {
	name   string
	cols   []column
	offset bool // rows keyed by entry offset: an append sends the new ones
}

// names are the table's column names, in order (for COPY).
func (t table) names() []string {
	names := make([]string, len(t.cols))
	for i, c := range t.cols {
		names[i] = c.name
	}
	return names
}

func cols(spec string) []column {
	var out []column
	for _, f := range strings.Fields(spec) {
		c := column{name: f}
		if name, kind, ok := strings.Cut(f, ":"); ok {
			c.name = name
			c.kind = map[string]colKind{"b": colBool, "n": colNumeric}[kind]
		}
		switch c.name {
		case "file_id":
			c.kind = colFile
		case "machine_id":
			c.kind = colMachine
		}
		out = append(out, c)
	}
	return out
}

var (
	entriesTable = table{"entries", cols(`file_id offset machine_id length line seq id parent_id type role ts msg_ts ts_ms
		provider model target_id first_kept stop_reason error tokens_before command`), true}
	// The lines (in chunks: linechunks.go), their text and search rows:
	// sent by lines (pushrows.go), from the session file, not read from a
	// local table.
	lineChunksTable = table{"line_chunks", cols(`file_id offset machine_id offsets ends raw`), true}
	entryTextTable  = table{"entry_text", cols(`file_id offset machine_id text`), true}
	textIndexTable  = table{"text_index", cols(`file_id offset part machine_id win exact tokens first tsv`), true}
	toolCallsTable  = table{"tool_calls", cols(`file_id call_id offset idx machine_id name is_error:b command size`), true}
	// smallTables are replaced whole whenever a file changes.
	smallTables = []table{
		{"sessions", cols(`file_id machine_id session_id version cwd parent_session branched_from created created_ms name
			last_activity_ms message_count first_message entry_count leaf_id leaf_offset branch_points models input output
			cache_read cache_write total_tokens cost source subagent:b spawned_by family run`), false},
		{"labels", cols(`file_id target_id machine_id label ts offset`), false},
		{"usage", cols(`file_id offset machine_id source entry_id ts_ms provider model kind response_id input output cache_read
			cache_write total_tokens cost_input cost_output cost_cache_read cost_cache_write cost_total cache_write_1h reasoning
			attr_provider attr_model on_path:b is_copy:b call_active:b`), false},
		{"usage_rollup", rollupCols, false},
		{"usage_rollup_hour", rollupCols, false},
		{"warnings", cols(`file_id machine_id line message`), false},
		{"off_path", cols(`file_id offset machine_id`), false},
		{"session_activity", cols(`file_id machine_id counted_from first_ms last_ms active_ms entries`), false},
		{"activity", cols(`file_id bucket provider model active:b machine_id entries user_turns assistant_calls tool_calls
			tool_results tool_errors user_commands stop_error stop_aborted stop_length active_ms turns_timed latency_ms
			max_latency_ms compactions context_before max_context_before prompt_input prompt_cache_read prompt_cache_write`), false},
		{"activity_tools", cols(`file_id bucket kind name provider model active:b machine_id calls results errors result_bytes
			timed duration_ms max_duration_ms`), false},
		{"activity_events", cols(`file_id offset kind bucket provider model active:b machine_id text duration_ms`), false},
		{"activity_file", cols(`file_id provider model active:b machine_id entries user_turns assistant_calls tool_calls
			tool_results tool_errors user_commands stop_error stop_aborted stop_length active_ms turns_timed latency_ms
			max_latency_ms compactions context_before max_context_before prompt_input prompt_cache_read prompt_cache_write`), false},
		{"activity_tools_file", cols(`kind name file_id provider model active:b machine_id calls results errors result_bytes
			timed duration_ms max_duration_ms`), false},
	}
	rollupCols = cols(`file_id bucket provider model source is_copy:b active:b zero_cost:b machine_id calls input:n output:n cache_read:n
		cache_write:n cache_write_1h:n total_tokens:n cost:n`)
)

// Column positions read back by name.
const (
	entOffset    = 1 // entries.offset
	entLength    = 3 // entries.length
	usageEntryID = 4 // usage.entry_id
)

// floatText writes a double as PostgreSQL reads it back to the same bits.
func floatText(x float64) string {
	switch {
	case math.IsNaN(x):
		return "NaN"
	case math.IsInf(x, 1):
		return "Infinity"
	case math.IsInf(x, -1):
		return "-Infinity"
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

// decimal is a double's exact value in decimal, for a numeric column.
func decimal(x float64) string { return query.Decimal(x) }
