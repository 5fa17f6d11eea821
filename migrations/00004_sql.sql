-- +goose Up
-- Tool calls and their results: one row per toolCall block of an assistant
-- message (idx ≥ 0) and one per tool result (idx = -1, is_error set), keyed
-- by call id so that a call finds its result by primary key. Arguments and
-- result text stay in the session files (entry_json, entry_text).
CREATE TABLE tool_calls (
    file_id  INTEGER NOT NULL,
    call_id  TEXT    NOT NULL,
    offset   INTEGER NOT NULL,  -- the assistant entry, or the toolResult entry
    idx      INTEGER NOT NULL,  -- position among the call's content blocks; -1 for a result
    name     TEXT    NOT NULL,  -- tool name
    is_error INTEGER,           -- results: 1 when isError
    PRIMARY KEY (file_id, call_id, offset, idx)
) WITHOUT ROWID;

-- Fork copies are found by the call's identity (entry id first).
CREATE INDEX usage_entry ON usage(entry_id);

-- The stable SQL interface (docs/sql.md). Tables may change between
-- versions; these views keep their columns (pinned by a test).
CREATE VIEW sessions_v AS
SELECT s.session_id AS session_id, f.path AS path, s.cwd AS cwd,
       replace(s.cwd, rtrim(s.cwd, replace(s.cwd, '/', '')), '') AS project,
       s.name AS name, s.version AS version,
       NULLIF(s.parent_session, '') AS parent_session_path,
       s.created_ms AS created_ms,
       CASE WHEN s.last_activity_ms > 0 THEN s.last_activity_ms
            WHEN s.created_ms IS NOT NULL THEN s.created_ms ELSE f.mtime_ns / 1000000 END AS modified_ms,
       s.message_count AS message_count, COALESCE(s.first_message, '(no messages)') AS first_message,
       s.entry_count AS entry_count, s.leaf_id AS leaf_id, s.branch_points AS branch_points,
       s.models AS models, s.input AS input, s.output AS output, s.cache_read AS cache_read,
       s.cache_write AS cache_write, s.total_tokens AS total_tokens, s.cost AS cost, f.size AS size_bytes
FROM sessions s JOIN files f ON f.id = s.file_id;

CREATE VIEW entries_v AS
SELECT s.session_id AS session_id, f.path AS path, e.offset AS offset, e.line AS line, e.id AS id,
       e.length AS length, e.parent_id AS parent_id, e.type AS type, e.role AS role, e.ts AS timestamp, e.ts_ms AS ts_ms,
       e.provider AS provider, e.model AS model, entry_text(f.path, e.offset, e.length) AS text
FROM entries e JOIN sessions s ON s.file_id = e.file_id JOIN files f ON f.id = e.file_id;

CREATE VIEW messages_v AS
SELECT session_id, path, offset, line, id, length, parent_id, role, timestamp, ts_ms, provider, model, text
FROM entries_v WHERE type = 'message';

CREATE VIEW tool_calls_v AS
SELECT s.session_id AS session_id, f.path AS path, t.offset AS offset, e.id AS entry_id, t.call_id AS call_id,
       t.name AS tool, json_extract(entry_json(f.path, t.offset, e.length), '$.message.content[' || t.idx || '].arguments') AS arguments,
       r.offset AS result_offset,
       CASE WHEN r.offset IS NOT NULL THEN entry_text(f.path, r.offset, re.length) END AS result_text,
       r.is_error AS is_error, e.ts_ms AS ts_ms, re.ts_ms - e.ts_ms AS duration_ms
FROM tool_calls t JOIN sessions s ON s.file_id = t.file_id JOIN files f ON f.id = t.file_id
JOIN entries e ON e.file_id = t.file_id AND e.offset = t.offset
LEFT JOIN tool_calls r ON r.file_id = t.file_id AND r.call_id = t.call_id AND r.idx = -1
    AND r.offset = (SELECT min(r2.offset) FROM tool_calls r2
                    WHERE r2.file_id = t.file_id AND r2.call_id = t.call_id AND r2.idx = -1 AND r2.offset > t.offset)
LEFT JOIN entries re ON re.file_id = r.file_id AND re.offset = r.offset
WHERE t.idx >= 0;

-- Entries on each session's current root-to-leaf path (pi's branch), by
-- file id and offset, with their depth from the leaf (0); depth-bounded so a
-- parent cycle ends. Internal (the _ prefix): active_path_v is the stable form.
CREATE VIEW _active_offsets AS
WITH RECURSIVE walk(file_id, id, depth) AS (
    SELECT file_id, leaf_id, 0 FROM sessions WHERE leaf_id IS NOT NULL
    UNION ALL
    SELECT w.file_id, ed.parent_id, w.depth + 1 FROM walk w
    JOIN edges ed ON ed.file_id = w.file_id AND ed.child_id = w.id
    WHERE ed.parent_id IS NOT NULL AND w.depth < 1000000)
SELECT w.file_id AS file_id, ed.offset AS offset, w.id AS id, w.depth AS depth
FROM walk w JOIN edges ed ON ed.file_id = w.file_id AND ed.child_id = w.id;

CREATE VIEW active_path_v AS
SELECT s.session_id AS session_id, f.path AS path, a.offset AS offset, a.id AS id, a.depth AS depth
FROM _active_offsets a JOIN sessions s ON s.file_id = a.file_id JOIN files f ON f.id = a.file_id;

-- on_active_path joins the active offsets, computed once per query (an
-- EXISTS or IN on the recursive view was evaluated per row: minutes).
CREATE VIEW usage_v AS
WITH active(file_id, offset) AS MATERIALIZED (SELECT DISTINCT file_id, offset FROM _active_offsets)
SELECT s.session_id AS session_id, f.path AS path, u.offset AS offset, u.entry_id AS entry_id,
       u.source AS source, u.kind AS kind, u.provider AS provider, u.model AS model,
       u.input AS input, u.output AS output, u.cache_read AS cache_read, u.cache_write AS cache_write,
       u.cache_write_1h AS cache_write_1h, u.reasoning AS reasoning, u.total_tokens AS total_tokens,
       u.cost_total AS cost, u.cost_input AS cost_input, u.cost_output AS cost_output,
       u.cost_cache_read AS cost_cache_read, u.cost_cache_write AS cost_cache_write, u.ts_ms AS ts_ms,
       EXISTS (SELECT 1 FROM usage o JOIN sessions os ON os.file_id = o.file_id JOIN files ofl ON ofl.id = o.file_id
               WHERE o.entry_id = u.entry_id AND o.source = u.source AND o.ts_ms IS u.ts_ms
                 AND o.input = u.input AND o.output = u.output AND o.cache_read = u.cache_read
                 AND o.cache_write = u.cache_write AND o.file_id != u.file_id
                 AND (COALESCE(os.created_ms, 0), ofl.path) < (COALESCE(s.created_ms, 0), f.path)) AS is_fork_copy,
       a.offset IS NOT NULL AS on_active_path
FROM usage u JOIN sessions s ON s.file_id = u.file_id JOIN files f ON f.id = u.file_id
LEFT JOIN active a ON a.file_id = u.file_id AND a.offset = u.offset;

CREATE VIEW labels_v AS
SELECT s.session_id AS session_id, f.path AS path, l.target_id AS target_id, l.label AS label,
       l.ts AS timestamp, l.offset AS label_offset
FROM labels l JOIN sessions s ON s.file_id = l.file_id JOIN files f ON f.id = l.file_id;

-- +goose Down
DROP VIEW labels_v;
DROP VIEW usage_v;
DROP VIEW active_path_v;
DROP VIEW _active_offsets;
DROP VIEW tool_calls_v;
DROP VIEW messages_v;
DROP VIEW entries_v;
DROP VIEW sessions_v;
DROP INDEX usage_entry;
DROP TABLE tool_calls;
