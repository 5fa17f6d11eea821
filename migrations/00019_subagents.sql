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

-- +goose Down
DROP INDEX sessions_family;
ALTER TABLE sessions DROP COLUMN run;
ALTER TABLE sessions DROP COLUMN family;
ALTER TABLE sessions DROP COLUMN spawned_by;
