-- +goose Up
-- Sessions of every agent that writes pi's format (README, Sources).
-- source: the agent whose file it is: pi, omp (oh-my-pi) or openclaw
--   (its root's layout; a file with omp's title slot is omp's anywhere).
-- subagent: an omp subagent's transcript (a session file in a session's
--   artifacts folder): searched and counted, not listed, as in omp.
ALTER TABLE sessions ADD COLUMN source   TEXT    NOT NULL DEFAULT 'pi';
ALTER TABLE sessions ADD COLUMN subagent INTEGER NOT NULL DEFAULT 0;
CREATE INDEX sessions_source ON sessions(source);

-- omp's title slot: a fixed-width first line rewritten in place when the
-- title changes, every later offset unchanged. slot_len: its bytes with
-- the newline (0: no slot); slot_hash: their fingerprint. The head
-- fingerprint and the content sum of a slotted file start after it, so a
-- title change is read as the slot alone, never as a rewrite.
ALTER TABLE files ADD COLUMN slot_len  INTEGER NOT NULL DEFAULT 0;
ALTER TABLE files ADD COLUMN slot_hash TEXT    NOT NULL DEFAULT '';

-- sessions_v keeps its columns and adds source (last, so positional
-- readers are unaffected); modified_ms is omp's own for omp sessions (the
-- file's mtime, which the indexer keeps in last_activity_ms).
DROP VIEW sessions_v;
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
       s.cache_write AS cache_write, s.total_tokens AS total_tokens, s.cost AS cost, f.size AS size_bytes,
       s.source AS source
FROM sessions s JOIN files f ON f.id = s.file_id;

-- +goose Down
DROP VIEW sessions_v;
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
ALTER TABLE files DROP COLUMN slot_hash;
ALTER TABLE files DROP COLUMN slot_len;
DROP INDEX sessions_source;
ALTER TABLE sessions DROP COLUMN subagent;
ALTER TABLE sessions DROP COLUMN source;
