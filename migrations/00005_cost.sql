-- +goose Up
-- The cost report (pidex cost). Each usage row gets what the report needs
-- to count every LLM call once and to split active from abandoned work;
-- the indexer keeps these in the same transaction as the rows (see
-- indexer/calls.go for the rules).
--
-- attr_provider/attr_model: the model the call is attributed to: its own,
--   else (compaction, branch summary, tool result) the one in effect on
--   the path at that entry (the nearest model_change or assistant message
--   among its ancestors); '' when there is none. NULL until derived.
-- on_path: the record lies on its file's current root-to-leaf path.
-- is_copy: an earlier record holds the same call (entry id, timestamp,
--   source, token counts): a fork's copy. Earlier = the session created
--   first, then the path, then the offset.
-- call_active: some record of the same call lies on its file's current path.
ALTER TABLE usage ADD COLUMN attr_provider TEXT;
ALTER TABLE usage ADD COLUMN attr_model    TEXT;
ALTER TABLE usage ADD COLUMN on_path       INTEGER NOT NULL DEFAULT 0;
ALTER TABLE usage ADD COLUMN is_copy       INTEGER NOT NULL DEFAULT 0;
ALTER TABLE usage ADD COLUMN call_active   INTEGER NOT NULL DEFAULT 0;

-- Sums of usage per file, quarter hour (UTC; every time zone's offset is a
-- multiple of 15 minutes, so local days, weeks and months are unions of
-- buckets), attributed model, source and the two flags. A report reads
-- these instead of every call: it grows with buckets, not calls.
-- bucket = ts_ms / 900000; -1 for records without a time.
CREATE TABLE usage_rollup (
    file_id          INTEGER NOT NULL,
    bucket           INTEGER NOT NULL,
    provider         TEXT    NOT NULL,
    model            TEXT    NOT NULL,
    source           TEXT    NOT NULL,
    is_copy          INTEGER NOT NULL,
    active           INTEGER NOT NULL,
    calls            INTEGER NOT NULL,
    input            REAL    NOT NULL,
    output           REAL    NOT NULL,
    cache_read       REAL    NOT NULL,
    cache_write      REAL    NOT NULL,
    cache_write_1h   REAL    NOT NULL,
    total_tokens     REAL    NOT NULL,
    cost             REAL    NOT NULL,
    PRIMARY KEY (file_id, bucket, provider, model, source, is_copy, active)
) WITHOUT ROWID;
CREATE INDEX usage_rollup_bucket ON usage_rollup(bucket);

-- The same sums per hour (bucket: the hour's first quarter hour): about
-- 40% fewer rows, for reports in zones whose offsets are whole hours.
CREATE TABLE usage_rollup_hour (
    file_id          INTEGER NOT NULL,
    bucket           INTEGER NOT NULL,
    provider         TEXT    NOT NULL,
    model            TEXT    NOT NULL,
    source           TEXT    NOT NULL,
    is_copy          INTEGER NOT NULL,
    active           INTEGER NOT NULL,
    calls            INTEGER NOT NULL,
    input            REAL    NOT NULL,
    output           REAL    NOT NULL,
    cache_read       REAL    NOT NULL,
    cache_write      REAL    NOT NULL,
    cache_write_1h   REAL    NOT NULL,
    total_tokens     REAL    NOT NULL,
    cost             REAL    NOT NULL,
    PRIMARY KEY (file_id, bucket, provider, model, source, is_copy, active)
) WITHOUT ROWID;
CREATE INDEX usage_rollup_hour_bucket ON usage_rollup_hour(bucket);

-- The entry ids whose records must be derived again, filled and emptied
-- within one write transaction (a regular table: the writer's prepared
-- statements are shared by its connections, a TEMP table is not).
CREATE TABLE calls_touched (entry_id TEXT PRIMARY KEY) WITHOUT ROWID;

-- usage_v keeps its columns; its two flags now read the derived columns
-- (the EXISTS and the recursive path took seconds on a large catalog).
DROP VIEW usage_v;
CREATE VIEW usage_v AS
SELECT s.session_id AS session_id, f.path AS path, u.offset AS offset, u.entry_id AS entry_id,
       u.source AS source, u.kind AS kind, u.provider AS provider, u.model AS model,
       u.input AS input, u.output AS output, u.cache_read AS cache_read, u.cache_write AS cache_write,
       u.cache_write_1h AS cache_write_1h, u.reasoning AS reasoning, u.total_tokens AS total_tokens,
       u.cost_total AS cost, u.cost_input AS cost_input, u.cost_output AS cost_output,
       u.cost_cache_read AS cost_cache_read, u.cost_cache_write AS cost_cache_write, u.ts_ms AS ts_ms,
       u.is_copy AS is_fork_copy, u.on_path AS on_active_path
FROM usage u JOIN sessions s ON s.file_id = u.file_id JOIN files f ON f.id = u.file_id;

-- +goose Down
DROP VIEW usage_v;
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
DROP TABLE calls_touched;
DROP INDEX usage_rollup_hour_bucket;
DROP TABLE usage_rollup_hour;
DROP INDEX usage_rollup_bucket;
DROP TABLE usage_rollup;
ALTER TABLE usage DROP COLUMN call_active;
ALTER TABLE usage DROP COLUMN is_copy;
ALTER TABLE usage DROP COLUMN on_path;
ALTER TABLE usage DROP COLUMN attr_model;
ALTER TABLE usage DROP COLUMN attr_provider;
