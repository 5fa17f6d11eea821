-- +goose Up
-- What the store (package pgstore: pidex push, the read side) needs beyond
-- 00001 and 00002. A released migration is never edited: changes go here.

-- Exact cost sums. A report adds up many rollup rows; PostgreSQL's
-- sum(double precision) adds naively where SQLite's total() compensates
-- (Kahan–Babuška–Neumaier), so the two would differ in the last digits.
-- The rollups' sums are stored as the exact value of the double the
-- machine's catalog computed (every double is a finite decimal), summed
-- exactly as numeric and rounded once: the correctly rounded sum, which
-- is what compensated summation gives. Rows pushed before this migration
-- are dropped, and every machine's next push sends them again
-- (text_version 0 differs from every pusher's).
DELETE FROM usage_rollup;
DELETE FROM usage_rollup_hour;
UPDATE machines SET text_version = 0;
ALTER TABLE usage_rollup
    ALTER COLUMN input TYPE numeric, ALTER COLUMN output TYPE numeric,
    ALTER COLUMN cache_read TYPE numeric, ALTER COLUMN cache_write TYPE numeric,
    ALTER COLUMN cache_write_1h TYPE numeric, ALTER COLUMN total_tokens TYPE numeric,
    ALTER COLUMN cost TYPE numeric;
ALTER TABLE usage_rollup_hour
    ALTER COLUMN input TYPE numeric, ALTER COLUMN output TYPE numeric,
    ALTER COLUMN cache_read TYPE numeric, ALTER COLUMN cache_write TYPE numeric,
    ALTER COLUMN cache_write_1h TYPE numeric, ALTER COLUMN total_tokens TYPE numeric,
    ALTER COLUMN cost TYPE numeric;

-- The file's name as its machine names it (Go's filepath.Base there): the
-- newest-first order of search (RankCap) is by name, then path, machine
-- and offset, the order a local catalog's text rowids follow.
ALTER TABLE files ADD COLUMN base text COLLATE "C" NOT NULL DEFAULT '';

-- What a file's rows were pushed from: the local catalog's identity (a
-- rebuilt local catalog starts its cursors again, so its files are
-- checked by content) and the push's format (the local derivation, the
-- pusher's version, redaction): a file pushed in another is pushed again.
-- Per file, so that a push stopped halfway resumes where it was.
ALTER TABLE files ADD COLUMN catalog text COLLATE "C" NOT NULL DEFAULT '';
ALTER TABLE files ADD COLUMN format text COLLATE "C" NOT NULL DEFAULT '';

-- options: what the machine's last push mirrored (roots, project filters,
-- redaction), so that a push with other options goes over every file
-- again. changes: bumped by every transaction of a push that changed
-- something, which pidex serve watches to tell its pages.
ALTER TABLE push_state ADD COLUMN options text COLLATE "C" NOT NULL DEFAULT '';
ALTER TABLE push_state ADD COLUMN changes bigint NOT NULL DEFAULT 0;

-- The stable SQL interface (docs/sql.md), as the SQLite catalog's views
-- (migrations/00004_sql.sql, 00005_cost.sql): the same columns in the same
-- order with the same values (flags as 0/1, token counts as numbers), and
-- a last column, machine, the name of the machine that holds the file.
-- The text columns read entry_text, the JSON entry_lines (pushed with the
-- entries: the session files are on the machines).
CREATE VIEW sessions_v AS
SELECT s.session_id AS session_id, f.path AS path, s.cwd AS cwd,
       regexp_replace(s.cwd, '^.*/', '') AS project,
       s.name AS name, s.version AS version,
       NULLIF(s.parent_session, '') AS parent_session_path,
       s.created_ms AS created_ms,
       CASE WHEN s.last_activity_ms > 0 THEN s.last_activity_ms
            WHEN s.created_ms IS NOT NULL THEN s.created_ms ELSE f.mtime_ns / 1000000 END AS modified_ms,
       s.message_count AS message_count, COALESCE(s.first_message, '(no messages)') AS first_message,
       s.entry_count AS entry_count, s.leaf_id AS leaf_id, s.branch_points AS branch_points,
       s.models AS models, s.input AS input, s.output AS output, s.cache_read AS cache_read,
       s.cache_write AS cache_write, s.total_tokens AS total_tokens, s.cost AS cost, f.size AS size_bytes,
       m.name AS machine
FROM sessions s JOIN files f ON f.id = s.file_id JOIN machines m ON m.id = f.machine_id;

CREATE VIEW entries_v AS
SELECT s.session_id AS session_id, f.path AS path, e.offset AS "offset", e.line AS line, e.id AS id,
       e.length AS length, e.parent_id AS parent_id, e.type AS type, e.role AS role, e.ts AS timestamp,
       e.ts_ms AS ts_ms, e.provider AS provider, e.model AS model, COALESCE(t.text, '') AS text,
       m.name AS machine
FROM entries e JOIN sessions s ON s.file_id = e.file_id JOIN files f ON f.id = e.file_id
JOIN machines m ON m.id = f.machine_id
LEFT JOIN entry_text t ON t.file_id = e.file_id AND t.offset = e.offset;

CREATE VIEW messages_v AS
SELECT session_id, path, "offset", line, id, length, parent_id, role, timestamp, ts_ms, provider, model, text, machine
FROM entries_v WHERE type = 'message';

-- arguments: the call's arguments as SQLite's json_extract gives them (an
-- object or array as its JSON text, a string as itself); json, not jsonb,
-- keeps the line's own text (key order, escapes).
CREATE VIEW tool_calls_v AS
SELECT s.session_id AS session_id, f.path AS path, t.offset AS "offset", e.id AS entry_id, t.call_id AS call_id,
       t.name AS tool,
       (SELECT CASE json_typeof(a) WHEN 'string' THEN a #>> '{}' WHEN 'null' THEN NULL ELSE a::text END
          FROM (SELECT convert_from(l.raw, 'UTF8')::json -> 'message' -> 'content' -> t.idx -> 'arguments' AS a
                  FROM entry_lines l WHERE l.file_id = t.file_id AND l.offset = t.offset) x) AS arguments,
       r.offset AS result_offset,
       CASE WHEN r.offset IS NOT NULL THEN COALESCE(rt.text, '') END AS result_text,
       r.is_error::int AS is_error, e.ts_ms AS ts_ms, re.ts_ms - e.ts_ms AS duration_ms,
       m.name AS machine
FROM tool_calls t JOIN sessions s ON s.file_id = t.file_id JOIN files f ON f.id = t.file_id
JOIN machines m ON m.id = f.machine_id
JOIN entries e ON e.file_id = t.file_id AND e.offset = t.offset
LEFT JOIN tool_calls r ON r.file_id = t.file_id AND r.call_id = t.call_id AND r.idx = -1
    AND r.offset = (SELECT min(r2.offset) FROM tool_calls r2
                    WHERE r2.file_id = t.file_id AND r2.call_id = t.call_id AND r2.idx = -1 AND r2.offset > t.offset)
LEFT JOIN entries re ON re.file_id = r.file_id AND re.offset = r.offset
LEFT JOIN entry_text rt ON rt.file_id = r.file_id AND rt.offset = r.offset
WHERE t.idx >= 0;

-- Entries on each session's current root-to-leaf path, with their depth
-- from the leaf; depth-bounded so a parent cycle ends. Internal.
CREATE VIEW _active_offsets AS
WITH RECURSIVE walk(file_id, id, depth) AS (
    SELECT file_id, leaf_id, 0 FROM sessions WHERE leaf_id IS NOT NULL
    UNION ALL
    SELECT w.file_id, ed.parent_id, w.depth + 1 FROM walk w
    JOIN edges ed ON ed.file_id = w.file_id AND ed.child_id = w.id
    WHERE ed.parent_id IS NOT NULL AND w.depth < 1000000)
SELECT w.file_id AS file_id, ed.offset AS "offset", w.id AS id, w.depth AS depth
FROM walk w JOIN edges ed ON ed.file_id = w.file_id AND ed.child_id = w.id;

CREATE VIEW active_path_v AS
SELECT s.session_id AS session_id, f.path AS path, a.offset AS "offset", a.id AS id, a.depth AS depth,
       m.name AS machine
FROM _active_offsets a JOIN sessions s ON s.file_id = a.file_id JOIN files f ON f.id = a.file_id
JOIN machines m ON m.id = f.machine_id;

-- is_fork_copy over the union of the machines: usage_xm overrides a
-- machine's own flag where another machine holds the same call.
CREATE VIEW usage_v AS
SELECT s.session_id AS session_id, f.path AS path, u.offset AS "offset", u.entry_id AS entry_id,
       u.source AS source, u.kind AS kind, u.provider AS provider, u.model AS model,
       u.input AS input, u.output AS output, u.cache_read AS cache_read, u.cache_write AS cache_write,
       u.cache_write_1h AS cache_write_1h, u.reasoning AS reasoning, u.total_tokens AS total_tokens,
       u.cost_total AS cost, u.cost_input AS cost_input, u.cost_output AS cost_output,
       u.cost_cache_read AS cost_cache_read, u.cost_cache_write AS cost_cache_write, u.ts_ms AS ts_ms,
       COALESCE(x.is_copy, u.is_copy)::int AS is_fork_copy, u.on_path::int AS on_active_path,
       m.name AS machine
FROM usage u JOIN sessions s ON s.file_id = u.file_id JOIN files f ON f.id = u.file_id
JOIN machines m ON m.id = f.machine_id
LEFT JOIN usage_xm x ON x.file_id = u.file_id AND x.offset = u.offset;

CREATE VIEW labels_v AS
SELECT s.session_id AS session_id, f.path AS path, l.target_id AS target_id, l.label AS label,
       l.ts AS timestamp, l.offset AS label_offset, m.name AS machine
FROM labels l JOIN sessions s ON s.file_id = l.file_id JOIN files f ON f.id = l.file_id
JOIN machines m ON m.id = f.machine_id;

-- entry_json(path, offset [, length]) and entry_text(…): an entry's JSON
-- line and its searchable text, as the SQLite catalog's functions of the
-- same names give them (which read the session files). A path held by
-- two machines is an error (never the other machine's line): use
-- entry_lines and entry_text with files.machine_id there. The length is
-- accepted for the same calls; the line is the pushed one.
-- +goose StatementBegin
CREATE FUNCTION entry_json(path text, "offset" bigint, length bigint DEFAULT NULL) RETURNS text
LANGUAGE plpgsql STABLE AS $$
DECLARE
    line text;
    n integer;
BEGIN
    SELECT convert_from(l.raw, 'UTF8'), count(*) OVER () INTO line, n
      FROM entry_lines l JOIN files f ON f.id = l.file_id
     WHERE f.path = entry_json.path AND l.offset = entry_json."offset" LIMIT 1;
    IF n > 1 THEN
        RAISE EXCEPTION 'entry_json: % is a file of % machines (read entry_lines with files.machine_id)', path, n;
    END IF;
    RETURN line;
END $$;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE FUNCTION entry_text(path text, "offset" bigint, length bigint DEFAULT NULL) RETURNS text
LANGUAGE plpgsql STABLE AS $$
DECLARE
    body text;
    n integer;
BEGIN
    SELECT COALESCE(t.text, ''), count(*) OVER () INTO body, n
      FROM entries e JOIN files f ON f.id = e.file_id
      LEFT JOIN entry_text t ON t.file_id = e.file_id AND t.offset = e.offset
     WHERE f.path = entry_text.path AND e.offset = entry_text."offset" LIMIT 1;
    IF n > 1 THEN
        RAISE EXCEPTION 'entry_text: % is a file of % machines (read entry_text with files.machine_id)', path, n;
    END IF;
    RETURN body;
END $$;
-- +goose StatementEnd

-- +goose Down
DROP FUNCTION entry_text(text, bigint, bigint);
DROP FUNCTION entry_json(text, bigint, bigint);
DROP VIEW labels_v;
DROP VIEW usage_v;
DROP VIEW active_path_v;
DROP VIEW _active_offsets;
DROP VIEW tool_calls_v;
DROP VIEW messages_v;
DROP VIEW entries_v;
DROP VIEW sessions_v;
ALTER TABLE push_state DROP COLUMN changes;
ALTER TABLE push_state DROP COLUMN options;
ALTER TABLE files DROP COLUMN format;
ALTER TABLE files DROP COLUMN catalog;
ALTER TABLE files DROP COLUMN base;
DELETE FROM usage_rollup;
DELETE FROM usage_rollup_hour;
UPDATE machines SET text_version = 0;
ALTER TABLE usage_rollup_hour
    ALTER COLUMN input TYPE double precision, ALTER COLUMN output TYPE double precision,
    ALTER COLUMN cache_read TYPE double precision, ALTER COLUMN cache_write TYPE double precision,
    ALTER COLUMN cache_write_1h TYPE double precision, ALTER COLUMN total_tokens TYPE double precision,
    ALTER COLUMN cost TYPE double precision;
ALTER TABLE usage_rollup
    ALTER COLUMN input TYPE double precision, ALTER COLUMN output TYPE double precision,
    ALTER COLUMN cache_read TYPE double precision, ALTER COLUMN cache_write TYPE double precision,
    ALTER COLUMN cache_write_1h TYPE double precision, ALTER COLUMN total_tokens TYPE double precision,
    ALTER COLUMN cost TYPE double precision;
