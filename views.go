package pidex

// View documents one of the stable SQL views (migrations/00004_sql.sql):
// `pidex schema` prints these, docs/sql.md is generated from them, and a
// test pins each view's columns to this list.
type View struct {
	Name    string
	Doc     string
	Columns []Column
}

// Column is one column of a view.
type Column struct{ Name, Doc string }

var (
	colSession = Column{"session_id", "session id (header `id`)"}
	colPath    = Column{"path", "absolute path of the session file"}
	colOffset  = Column{"offset", "byte offset of the entry's line in the file"}
)

// Views is the reference of the SQL interface.
var Views = []View{
	{"sessions_v", "One row per session: the listing fields of `pidex list`.", []Column{
		colSession, colPath,
		{"cwd", "working directory from the header (\"\" when absent)"},
		{"project", "last element of cwd"},
		{"name", "session name (latest session_info, trimmed; omp: the title), NULL when none"},
		{"version", "session format version (1, 2 or 3)"},
		{"parent_session_path", "header parentSession (the session this one was forked from), NULL when none"},
		{"created_ms", "header timestamp, Unix ms; NULL when it does not parse"},
		{"modified_ms", "pi's modified: latest user/assistant message time, else created, else file mtime (Unix ms); omp's: the file's mtime"},
		{"message_count", "message entries on all branches"},
		{"first_message", "text of the first user message, or '(no messages)'"},
		{"entry_count", "entries in the file (header excluded)"},
		{"leaf_id", "current leaf: the last entry in the file"},
		{"branch_points", "entries with more than one child"},
		{"models", "JSON array of \"provider/model\" used by usage records"},
		{"input", "input tokens, all usage records of the file"},
		{"output", "output tokens"},
		{"cache_read", "cache-read tokens"},
		{"cache_write", "cache-write tokens"},
		{"total_tokens", "total tokens"},
		{"cost", "USD, pi's recorded cost, all usage records of the file"},
		{"size_bytes", "file size"},
		{"source", "the agent that wrote the file: pi, omp (oh-my-pi) or openclaw"},
		{"spawned_by", "a subagent's session (pi-subagents' child runs, oh-my-pi's task transcripts): the path of the session file that started it; NULL for a session nobody started"},
		{"run", "a subagent's run: oh-my-pi's task id, pi-subagents' `<run id>/run-<i>`; NULL for a session nobody started"},
	}},
	{"entries_v", "One row per entry (header excluded), every branch.", []Column{
		colSession, colPath, colOffset,
		{"line", "1-based line number"},
		{"id", "entry id (v1 files: 'v1:<offset>')"},
		{"length", "bytes of the line (for entry_json(path, offset, length))"},
		{"parent_id", "parent entry id, NULL for a root"},
		{"type", "entry type: message, compaction, branch_summary, model_change, label, …"},
		{"role", "message role (user, assistant, toolResult, bashExecution, custom, …), NULL for other entries"},
		{"timestamp", "entry timestamp as written (ISO 8601)"},
		{"ts_ms", "entry time, Unix ms: the message's timestamp, else the ISO timestamp"},
		{"provider", "provider named by the entry (assistant messages, model changes, usage entries)"},
		{"model", "model named by the entry"},
		{"text", "searchable text (pi.Text), read back from the file: slow over many rows"},
	}},
	{"messages_v", "entries_v restricted to message entries.", []Column{
		colSession, colPath, colOffset, {"line", "1-based line number"}, {"id", "entry id"},
		{"length", "bytes of the line"}, {"parent_id", "parent entry id"}, {"role", "message role"},
		{"timestamp", "entry timestamp as written"}, {"ts_ms", "entry time, Unix ms"},
		{"provider", "assistant's provider"}, {"model", "assistant's model"}, {"text", "searchable text"},
	}},
	{"tool_calls_v", "One row per tool call (toolCall block of an assistant message) with its result.", []Column{
		colSession, colPath,
		{"offset", "byte offset of the assistant entry"},
		{"entry_id", "id of the assistant entry"},
		{"call_id", "tool call id"},
		{"tool", "tool name"},
		{"arguments", "arguments as JSON, read back from the file"},
		{"result_offset", "byte offset of the toolResult entry answering it, NULL when none"},
		{"result_text", "the result's text, read back from the file"},
		{"is_error", "1 when the result is an error, NULL without a result"},
		{"ts_ms", "time of the call (Unix ms)"},
		{"duration_ms", "time from the call to its result (ms)"},
	}},
	{"usage_v", "One row per usage record (an LLM call), wherever pi recorded it.", []Column{
		colSession, colPath, colOffset,
		{"entry_id", "id of the entry holding the record"},
		{"source", "assistant | toolResult | compaction | branch_summary | usage"},
		{"kind", "category of `usage` entries (cache_warm, …), '' otherwise"},
		{"provider", "provider ('' for sources that carry none)"},
		{"model", "model ('' for sources that carry none)"},
		{"input", "input tokens"}, {"output", "output tokens"}, {"cache_read", "cache-read tokens"},
		{"cache_write", "cache-write tokens"}, {"cache_write_1h", "part of cache_write with a 1-hour TTL"},
		{"reasoning", "part of output spent reasoning"}, {"total_tokens", "total tokens"},
		{"cost", "USD, pi's recorded total"}, {"cost_input", "USD for input"}, {"cost_output", "USD for output"},
		{"cost_cache_read", "USD for cache reads"}, {"cost_cache_write", "USD for cache writes"},
		{"ts_ms", "time of the call (Unix ms)"},
		{"is_fork_copy", "1 when an earlier record holds the same call (entry id, source, time, tokens): a fork's copy (earlier: in a session created earlier, else earlier in the same file); pidex cost counts each call once"},
		{"on_active_path", "1 when the record's entry lies on its session's current root-to-leaf path"},
	}},
	{"labels_v", "Current labels (file order, last wins, empty clears).", []Column{
		colSession, colPath,
		{"target_id", "labelled entry id"},
		{"label", "label text"},
		{"timestamp", "time of the label entry that set it"},
		{"label_offset", "byte offset of that label entry"},
	}},
	{"active_path_v", "Entries on each session's current root-to-leaf path.", []Column{
		colSession, colPath, colOffset,
		{"id", "entry id"},
		{"depth", "distance from the leaf (0 = the leaf)"},
	}},
	{"activity_v", "One row per entry with what `pidex stats` counts of it (docs/stats.md).", []Column{
		colSession, colPath, colOffset,
		{"line", "1-based line in the file"},
		{"id", "entry id"},
		{"type", "entry type"},
		{"role", "message role, NULL for other entries"},
		{"ts_ms", "time (Unix ms): message.timestamp, else the entry's timestamp"},
		{"provider", "provider, for entries that name a model"},
		{"model", "model, for entries that name a model"},
		{"stop_reason", "assistant messages: why the message ended (stop, toolUse, length, error, aborted)"},
		{"error", "assistant messages: the first line of errorMessage (200 characters at most)"},
		{"tokens_before", "compactions: the context size when pi compacted"},
		{"command", "bashExecution messages: the command's first word (docs/stats.md)"},
		{"counted", "1 when pidex stats counts the entry here: 0 for a fork's copies of its source's entries, and for entries a file of the same session id with a lower path holds"},
	}},
	{"tool_uses_v", "One row per tool call, with its result's error flag, size and duration (what `pidex stats` counts of tools).", []Column{
		colSession, colPath,
		{"offset", "byte offset of the assistant entry"},
		{"entry_id", "id of the assistant entry"},
		{"call_id", "tool call id"},
		{"tool", "tool name"},
		{"command", "bash calls: the command's first word (docs/stats.md)"},
		{"ts_ms", "time of the call (Unix ms)"},
		{"result_offset", "byte offset of the toolResult entry answering it, NULL when none"},
		{"is_error", "1 when the result is an error, NULL without a result"},
		{"result_size", "the result's text in bytes"},
		{"duration_ms", "time from the call to its result (ms)"},
		{"counted", "1 when pidex stats counts the call here (see activity_v)"},
	}},
}

// TeamViews is the reference of a team catalog's SQL interface (a
// postgres:// catalog, see package postgres): the same views with the same
// columns, and a last one, machine, on each.
func TeamViews() []View {
	out := make([]View, len(Views))
	for i, v := range Views {
		v.Columns = append(append([]Column{}, v.Columns...), Column{"machine", "the machine that holds the file (pidex push --machine)"})
		out[i] = v
	}
	return out
}
