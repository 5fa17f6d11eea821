-- +goose Up
-- Repair for catalogs made by the builds before the hourly rollup: that
-- change edited 00005 after it had been applied (the only time a released
-- migration was edited; see README, Development), so those catalogs have
-- 00005 recorded but no usage_rollup_hour, and every cost report failed
-- with "no such table". Here the table and its index are created where
-- they are missing, and filled from the usage rows exactly as the indexer
-- fills them (indexer/calls.go, sumInto with catalog.HourRollup) when the
-- quarter-hour rollup has rows and the hourly one has none; on a catalog
-- that already has it, nothing changes.
CREATE TABLE IF NOT EXISTS usage_rollup_hour (
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
CREATE INDEX IF NOT EXISTS usage_rollup_hour_bucket ON usage_rollup_hour(bucket);

INSERT INTO usage_rollup_hour (file_id, bucket, provider, model, source, is_copy, active,
        calls, input, output, cache_read, cache_write, cache_write_1h, total_tokens, cost)
    SELECT file_id, COALESCE(ts_ms / 3600000 * 4, -1),
        COALESCE(attr_provider, provider), COALESCE(attr_model, model),
        source, is_copy, call_active,
        count(*), total(input), total(output), total(cache_read), total(cache_write), total(cache_write_1h),
        total(total_tokens), total(cost_total)
    FROM usage
    WHERE EXISTS (SELECT 1 FROM usage_rollup) AND NOT EXISTS (SELECT 1 FROM usage_rollup_hour)
    GROUP BY 1, 2, 3, 4, 5, 6, 7;

-- +goose Down
-- Nothing: 00005's Down drops the table.
