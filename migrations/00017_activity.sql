-- +goose Up
-- How the work went (pidex stats): the facts of each entry the report
-- counts, and per-file sums the indexer derives from them (indexer/
-- activity.go says each rule; docs/stats.md defines every figure).
--
-- entries: an assistant message's stopReason and the first line of its
-- errorMessage; a compaction's tokensBefore; the first word of a shell
-- command a user ran (bashExecution).
ALTER TABLE entries ADD COLUMN stop_reason   TEXT;
ALTER TABLE entries ADD COLUMN error         TEXT;
ALTER TABLE entries ADD COLUMN tokens_before INTEGER;
ALTER TABLE entries ADD COLUMN command       TEXT;
-- tool_calls: a bash call's first command word; a result's text bytes.
ALTER TABLE tool_calls ADD COLUMN command TEXT;
ALTER TABLE tool_calls ADD COLUMN size    INTEGER;

-- One row per session file: its counted span and totals. A fork's file
-- begins with copies of its source's entries (their times precede the
-- fork's header): counting starts at counted_from, the first entry of its
-- own, so that no entry is counted in two files.
CREATE TABLE session_activity (
    file_id      INTEGER PRIMARY KEY,
    counted_from INTEGER NOT NULL,  -- offset of the first counted entry
    first_ms     INTEGER,           -- first and last counted entry time
    last_ms      INTEGER,
    active_ms    INTEGER NOT NULL,
    entries      INTEGER NOT NULL
);

-- Sums per file, quarter hour (bucket = ts_ms / 900000, -1: no time), the
-- model in effect and whether the entries lie on the current branch.
CREATE TABLE activity (
    file_id            INTEGER NOT NULL,
    bucket             INTEGER NOT NULL,
    provider           TEXT    NOT NULL,
    model              TEXT    NOT NULL,
    active             INTEGER NOT NULL,
    entries            INTEGER NOT NULL,
    user_turns         INTEGER NOT NULL,
    assistant_calls    INTEGER NOT NULL,
    tool_calls         INTEGER NOT NULL,
    tool_results       INTEGER NOT NULL,
    tool_errors        INTEGER NOT NULL,
    user_commands      INTEGER NOT NULL,
    stop_error         INTEGER NOT NULL,
    stop_aborted       INTEGER NOT NULL,
    stop_length        INTEGER NOT NULL,
    active_ms          INTEGER NOT NULL,
    turns_timed        INTEGER NOT NULL,
    latency_ms         INTEGER NOT NULL,
    max_latency_ms     INTEGER NOT NULL,
    compactions        INTEGER NOT NULL,
    context_before     INTEGER NOT NULL,
    max_context_before INTEGER NOT NULL,
    prompt_input       REAL    NOT NULL,
    prompt_cache_read  REAL    NOT NULL,
    prompt_cache_write REAL    NOT NULL,
    PRIMARY KEY (file_id, bucket, provider, model, active)
) WITHOUT ROWID;
-- By time, covering what the heatmap sums (read in order, no table rows).
CREATE INDEX activity_bucket ON activity(bucket, active_ms, user_turns);

-- Tools and shell commands per file, quarter hour, model and branch:
-- kind 'tool' (name: the tool), 'bash' (name: the first word of a bash
-- call's command), 'user' (a command the user ran with !).
CREATE TABLE activity_tools (
    file_id         INTEGER NOT NULL,
    bucket          INTEGER NOT NULL,
    kind            TEXT    NOT NULL,
    name            TEXT    NOT NULL,
    provider        TEXT    NOT NULL,
    model           TEXT    NOT NULL,
    active          INTEGER NOT NULL,
    calls           INTEGER NOT NULL,
    results         INTEGER NOT NULL,
    errors          INTEGER NOT NULL,
    result_bytes    INTEGER NOT NULL,
    timed           INTEGER NOT NULL,
    duration_ms     INTEGER NOT NULL,
    max_duration_ms INTEGER NOT NULL,
    PRIMARY KEY (kind, name, file_id, bucket, provider, model, active)
) WITHOUT ROWID;
CREATE INDEX activity_tools_by_file ON activity_tools(file_id);

-- The same sums per file, whatever the time: what a report without a
-- window or a period reads (a few rows per file instead of one per
-- quarter hour). Tools are keyed by tool first, so that summing them by
-- tool reads the table in order.
CREATE TABLE activity_file (
    file_id            INTEGER NOT NULL,
    provider           TEXT    NOT NULL,
    model              TEXT    NOT NULL,
    active             INTEGER NOT NULL,
    entries            INTEGER NOT NULL,
    user_turns         INTEGER NOT NULL,
    assistant_calls    INTEGER NOT NULL,
    tool_calls         INTEGER NOT NULL,
    tool_results       INTEGER NOT NULL,
    tool_errors        INTEGER NOT NULL,
    user_commands      INTEGER NOT NULL,
    stop_error         INTEGER NOT NULL,
    stop_aborted       INTEGER NOT NULL,
    stop_length        INTEGER NOT NULL,
    active_ms          INTEGER NOT NULL,
    turns_timed        INTEGER NOT NULL,
    latency_ms         INTEGER NOT NULL,
    max_latency_ms     INTEGER NOT NULL,
    compactions        INTEGER NOT NULL,
    context_before     INTEGER NOT NULL,
    max_context_before INTEGER NOT NULL,
    prompt_input       REAL    NOT NULL,
    prompt_cache_read  REAL    NOT NULL,
    prompt_cache_write REAL    NOT NULL,
    PRIMARY KEY (file_id, provider, model, active)
) WITHOUT ROWID;

CREATE TABLE activity_tools_file (
    kind            TEXT    NOT NULL,
    name            TEXT    NOT NULL,
    file_id         INTEGER NOT NULL,
    provider        TEXT    NOT NULL,
    model           TEXT    NOT NULL,
    active          INTEGER NOT NULL,
    calls           INTEGER NOT NULL,
    results         INTEGER NOT NULL,
    errors          INTEGER NOT NULL,
    result_bytes    INTEGER NOT NULL,
    timed           INTEGER NOT NULL,
    duration_ms     INTEGER NOT NULL,
    max_duration_ms INTEGER NOT NULL,
    PRIMARY KEY (kind, name, file_id, provider, model, active)
) WITHOUT ROWID;
CREATE INDEX activity_tools_file_by_file ON activity_tools_file(file_id);

-- The entries the report names one by one: assistant messages that ended
-- in error, aborted or length (kind = the stopReason, text = the error
-- line), and each file's slowest timed tool results (kind 'tool', text =
-- the tool; pidex.SlowestKept per file).
CREATE TABLE activity_events (
    file_id     INTEGER NOT NULL,
    offset      INTEGER NOT NULL,
    kind        TEXT    NOT NULL,
    bucket      INTEGER NOT NULL,
    provider    TEXT    NOT NULL,
    model       TEXT    NOT NULL,
    active      INTEGER NOT NULL,
    text        TEXT    NOT NULL,
    duration_ms INTEGER,
    PRIMARY KEY (file_id, offset)
) WITHOUT ROWID;
CREATE INDEX activity_events_slow ON activity_events(kind, duration_ms);
-- The latest entry with an error message: its quarter hour at once.
CREATE INDEX activity_events_text ON activity_events(kind, text, bucket);

-- The stable SQL interface for what the report counts (docs/sql.md):
-- counted says the entry counts here, not in another file (a fork's
-- source, or a file of the same session id with a lower path).
CREATE VIEW activity_v AS
SELECT s.session_id AS session_id, f.path AS path, e.offset AS offset, e.line AS line, e.id AS id, e.type AS type,
       e.role AS role, e.ts_ms AS ts_ms, e.provider AS provider, e.model AS model, e.stop_reason AS stop_reason,
       e.error AS error, e.tokens_before AS tokens_before, e.command AS command,
       CASE WHEN e.offset >= a.counted_from AND NOT EXISTS (SELECT 1 FROM sessions s2 JOIN files f2 ON f2.id = s2.file_id
           JOIN entries e2 ON e2.file_id = s2.file_id AND e2.id = e.id AND e2.ts_ms IS e.ts_ms
           WHERE s2.session_id = s.session_id AND s2.file_id != s.file_id AND f2.path < f.path)
       THEN 1 ELSE 0 END AS counted
FROM entries e JOIN sessions s ON s.file_id = e.file_id JOIN files f ON f.id = e.file_id
JOIN session_activity a ON a.file_id = e.file_id;

CREATE VIEW tool_uses_v AS
SELECT s.session_id AS session_id, f.path AS path, t.offset AS offset, e.id AS entry_id, t.call_id AS call_id,
       t.name AS tool, t.command AS command, e.ts_ms AS ts_ms,
       r.offset AS result_offset, r.is_error AS is_error, r.size AS result_size, re.ts_ms - e.ts_ms AS duration_ms,
       CASE WHEN t.offset >= a.counted_from AND NOT EXISTS (SELECT 1 FROM sessions s2 JOIN files f2 ON f2.id = s2.file_id
           JOIN entries e2 ON e2.file_id = s2.file_id AND e2.id = e.id AND e2.ts_ms IS e.ts_ms
           WHERE s2.session_id = s.session_id AND s2.file_id != s.file_id AND f2.path < f.path)
       THEN 1 ELSE 0 END AS counted
FROM tool_calls t JOIN sessions s ON s.file_id = t.file_id JOIN files f ON f.id = t.file_id
JOIN entries e ON e.file_id = t.file_id AND e.offset = t.offset
JOIN session_activity a ON a.file_id = t.file_id
LEFT JOIN tool_calls r ON r.file_id = t.file_id AND r.call_id = t.call_id AND r.idx = -1
    AND r.offset = (SELECT min(r2.offset) FROM tool_calls r2
                    WHERE r2.file_id = t.file_id AND r2.call_id = t.call_id AND r2.idx = -1 AND r2.offset > t.offset)
LEFT JOIN entries re ON re.file_id = r.file_id AND re.offset = r.offset
WHERE t.idx >= 0;

-- +goose Down
DROP VIEW tool_uses_v;
DROP VIEW activity_v;
DROP TABLE activity_tools_file;
DROP TABLE activity_file;
DROP TABLE activity_events;
DROP TABLE activity_tools;
DROP TABLE activity;
DROP TABLE session_activity;
ALTER TABLE tool_calls DROP COLUMN size;
ALTER TABLE tool_calls DROP COLUMN command;
ALTER TABLE entries DROP COLUMN command;
ALTER TABLE entries DROP COLUMN tokens_before;
ALTER TABLE entries DROP COLUMN error;
ALTER TABLE entries DROP COLUMN stop_reason;
