-- +goose Up
-- Subagents linked to the session that started them, as the local
-- catalog holds them (SQLite migration 00019): spawned_by and family are
-- paths on the machine that pushed the file, so a session's subagents are
-- the sessions of its machine that name its path.
ALTER TABLE sessions ADD COLUMN spawned_by text COLLATE "C" NOT NULL DEFAULT '';
ALTER TABLE sessions ADD COLUMN family     text COLLATE "C" NOT NULL DEFAULT '';
ALTER TABLE sessions ADD COLUMN run        text COLLATE "C" NOT NULL DEFAULT '';
CREATE INDEX sessions_family ON sessions (machine_id, family) WHERE family <> '';

-- +goose Down
DROP INDEX sessions_family;
ALTER TABLE sessions DROP COLUMN run;
ALTER TABLE sessions DROP COLUMN family;
ALTER TABLE sessions DROP COLUMN spawned_by;
