-- +goose Up
-- The agent that wrote each session (pi, omp, openclaw) and omp's
-- subagent transcripts, as the local catalog holds them (SQLite migration
-- 00009): a team catalog answers --agent and cost --by agent alike, and
-- lists no subagent transcript.
ALTER TABLE sessions ADD COLUMN source   text COLLATE "C" NOT NULL DEFAULT 'pi';
ALTER TABLE sessions ADD COLUMN subagent boolean NOT NULL DEFAULT false;
CREATE INDEX sessions_source ON sessions (source);

-- sessions_v gains source, before the team catalog's trailing machine
-- column, as the local view gains it last.
DROP VIEW sessions_v;
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
       s.source AS source, m.name AS machine
FROM sessions s JOIN files f ON f.id = s.file_id JOIN machines m ON m.id = f.machine_id;

-- +goose Down
DROP VIEW sessions_v;
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
DROP INDEX sessions_source;
ALTER TABLE sessions DROP COLUMN subagent;
ALTER TABLE sessions DROP COLUMN source;
