-- +goose Up
-- Subagents linked to the session that started them (issue 36): the
-- indexer reads the link from the agents' layout (indexer/spawn.go).
-- spawned_by: the path of the session file that started this one ('': a
--   session nobody spawned): pi-subagents' child runs
--   (<session>/<run id>/run-<i>/session.jsonl), oh-my-pi's subagent
--   transcripts (<session>/<id>.jsonl). subagent is set with it.
-- family: the top of the chain of parents (spawned_by for a direct
--   child; '' for a session nobody spawned): a cost report rolls a
--   session's subagents into it by this path.
-- run: the run's name: oh-my-pi's task id, pi-subagents' <run id>/run-<i>.
ALTER TABLE sessions ADD COLUMN spawned_by TEXT NOT NULL DEFAULT '';
ALTER TABLE sessions ADD COLUMN family     TEXT NOT NULL DEFAULT '';
ALTER TABLE sessions ADD COLUMN run        TEXT NOT NULL DEFAULT '';
CREATE INDEX sessions_family ON sessions(family) WHERE family <> '';

-- sessions_v adds spawned_by and run last (NULL for a session nobody
-- started), so positional readers are unaffected.
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
       s.source AS source, NULLIF(s.spawned_by, '') AS spawned_by, NULLIF(s.run, '') AS run
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
       s.cache_write AS cache_write, s.total_tokens AS total_tokens, s.cost AS cost, f.size AS size_bytes,
       s.source AS source
FROM sessions s JOIN files f ON f.id = s.file_id;
DROP INDEX sessions_family;
ALTER TABLE sessions DROP COLUMN run;
ALTER TABLE sessions DROP COLUMN family;
ALTER TABLE sessions DROP COLUMN spawned_by;
