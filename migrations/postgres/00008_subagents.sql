-- +goose Up
-- Subagents linked to the session that started them, as the local
-- catalog holds them (SQLite migration 00019): spawned_by and family are
-- paths on the machine that pushed the file, so a session's subagents are
-- the sessions of its machine that name its path.
ALTER TABLE sessions ADD COLUMN spawned_by text COLLATE "C" NOT NULL DEFAULT '';
ALTER TABLE sessions ADD COLUMN family     text COLLATE "C" NOT NULL DEFAULT '';
ALTER TABLE sessions ADD COLUMN run        text COLLATE "C" NOT NULL DEFAULT '';
CREATE INDEX sessions_family ON sessions (machine_id, family) WHERE family <> '';

-- sessions_v gains spawned_by and run before the trailing machine
-- column, as the local view gains them last.
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
       s.source AS source, NULLIF(s.spawned_by, '') AS spawned_by, NULLIF(s.run, '') AS run, m.name AS machine
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
       s.source AS source, m.name AS machine
FROM sessions s JOIN files f ON f.id = s.file_id JOIN machines m ON m.id = f.machine_id;
DROP INDEX sessions_family;
ALTER TABLE sessions DROP COLUMN run;
ALTER TABLE sessions DROP COLUMN family;
ALTER TABLE sessions DROP COLUMN spawned_by;
