-- +goose Up
-- Honest prices (issue 36). pi writes usage.cost.total 0 for a model it
-- has no price for (ollama, custom providers, …): a zero there means
-- "unknown", not "free". The rollups keep such calls apart, so that a
-- report can say how many there were, their tokens and their models
-- without reading the calls: zero_cost = 1 for the calls that used tokens
-- and whose recorded cost is exactly 0 (pidex.ZeroCostSQL), 0 for the
-- others. It joins the primary key (a bucket of one model may hold both),
-- which SQLite cannot alter: each rollup is made anew beside the old one,
-- filled from the usage rows as the indexer fills it (indexer/calls.go,
-- sumInto), and takes its name, index and read-cache triggers (00016).
CREATE TABLE usage_rollup_next (
    file_id          INTEGER NOT NULL,
    bucket           INTEGER NOT NULL,
    provider         TEXT    NOT NULL,
    model            TEXT    NOT NULL,
    source           TEXT    NOT NULL,
    is_copy          INTEGER NOT NULL,
    active           INTEGER NOT NULL,
    zero_cost        INTEGER NOT NULL,
    calls            INTEGER NOT NULL,
    input            REAL    NOT NULL,
    output           REAL    NOT NULL,
    cache_read       REAL    NOT NULL,
    cache_write      REAL    NOT NULL,
    cache_write_1h   REAL    NOT NULL,
    total_tokens     REAL    NOT NULL,
    cost             REAL    NOT NULL,
    PRIMARY KEY (file_id, bucket, provider, model, source, is_copy, active, zero_cost)
) WITHOUT ROWID;
INSERT INTO usage_rollup_next (file_id, bucket, provider, model, source, is_copy, active, zero_cost,
        calls, input, output, cache_read, cache_write, cache_write_1h, total_tokens, cost)
    SELECT file_id, COALESCE(ts_ms / 900000, -1), COALESCE(attr_provider, provider), COALESCE(attr_model, model),
        source, is_copy, call_active,
        (cost_total = 0 AND (input > 0 OR output > 0 OR cache_read > 0 OR cache_write > 0 OR total_tokens > 0)),
        count(*), total(input), total(output), total(cache_read), total(cache_write), total(cache_write_1h),
        total(total_tokens), total(cost_total)
    FROM usage GROUP BY 1, 2, 3, 4, 5, 6, 7, 8;
DROP TABLE usage_rollup;
ALTER TABLE usage_rollup_next RENAME TO usage_rollup;
CREATE INDEX usage_rollup_bucket ON usage_rollup(bucket);

CREATE TABLE usage_rollup_hour_next (
    file_id          INTEGER NOT NULL,
    bucket           INTEGER NOT NULL,
    provider         TEXT    NOT NULL,
    model            TEXT    NOT NULL,
    source           TEXT    NOT NULL,
    is_copy          INTEGER NOT NULL,
    active           INTEGER NOT NULL,
    zero_cost        INTEGER NOT NULL,
    calls            INTEGER NOT NULL,
    input            REAL    NOT NULL,
    output           REAL    NOT NULL,
    cache_read       REAL    NOT NULL,
    cache_write      REAL    NOT NULL,
    cache_write_1h   REAL    NOT NULL,
    total_tokens     REAL    NOT NULL,
    cost             REAL    NOT NULL,
    PRIMARY KEY (file_id, bucket, provider, model, source, is_copy, active, zero_cost)
) WITHOUT ROWID;
INSERT INTO usage_rollup_hour_next (file_id, bucket, provider, model, source, is_copy, active, zero_cost,
        calls, input, output, cache_read, cache_write, cache_write_1h, total_tokens, cost)
    SELECT file_id, COALESCE(ts_ms / 3600000 * 4, -1), COALESCE(attr_provider, provider), COALESCE(attr_model, model),
        source, is_copy, call_active,
        (cost_total = 0 AND (input > 0 OR output > 0 OR cache_read > 0 OR cache_write > 0 OR total_tokens > 0)),
        count(*), total(input), total(output), total(cache_read), total(cache_write), total(cache_write_1h),
        total(total_tokens), total(cost_total)
    FROM usage GROUP BY 1, 2, 3, 4, 5, 6, 7, 8;
DROP TABLE usage_rollup_hour;
ALTER TABLE usage_rollup_hour_next RENAME TO usage_rollup_hour;
CREATE INDEX usage_rollup_hour_bucket ON usage_rollup_hour(bucket);

-- The read caches' triggers went with the old tables; the blobs made of
-- their rows are stale.
-- +goose StatementBegin
CREATE TRIGGER read_caches_rollup_insert AFTER INSERT ON usage_rollup BEGIN
    UPDATE read_caches SET gen = gen + 1 WHERE name = 'usage_rollup';
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER read_caches_rollup_delete AFTER DELETE ON usage_rollup BEGIN
    UPDATE read_caches SET gen = gen + 1 WHERE name = 'usage_rollup';
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER read_caches_rollup_update AFTER UPDATE ON usage_rollup BEGIN
    UPDATE read_caches SET gen = gen + 1 WHERE name = 'usage_rollup';
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER read_caches_rollup_hour_insert AFTER INSERT ON usage_rollup_hour BEGIN
    UPDATE read_caches SET gen = gen + 1 WHERE name = 'usage_rollup_hour';
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER read_caches_rollup_hour_delete AFTER DELETE ON usage_rollup_hour BEGIN
    UPDATE read_caches SET gen = gen + 1 WHERE name = 'usage_rollup_hour';
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER read_caches_rollup_hour_update AFTER UPDATE ON usage_rollup_hour BEGIN
    UPDATE read_caches SET gen = gen + 1 WHERE name = 'usage_rollup_hour';
END;
-- +goose StatementEnd
UPDATE read_caches SET gen = gen + 1, data = NULL, data_gen = NULL WHERE name IN ('usage_rollup', 'usage_rollup_hour');

-- +goose Down
-- The rollups without zero_cost: its rows folded into the others.
CREATE TABLE usage_rollup_prev (
    file_id INTEGER NOT NULL, bucket INTEGER NOT NULL, provider TEXT NOT NULL, model TEXT NOT NULL,
    source TEXT NOT NULL, is_copy INTEGER NOT NULL, active INTEGER NOT NULL, calls INTEGER NOT NULL,
    input REAL NOT NULL, output REAL NOT NULL, cache_read REAL NOT NULL, cache_write REAL NOT NULL,
    cache_write_1h REAL NOT NULL, total_tokens REAL NOT NULL, cost REAL NOT NULL,
    PRIMARY KEY (file_id, bucket, provider, model, source, is_copy, active)
) WITHOUT ROWID;
INSERT INTO usage_rollup_prev SELECT file_id, bucket, provider, model, source, is_copy, active, sum(calls),
    total(input), total(output), total(cache_read), total(cache_write), total(cache_write_1h), total(total_tokens), total(cost)
    FROM usage_rollup GROUP BY 1, 2, 3, 4, 5, 6, 7;
DROP TABLE usage_rollup;
ALTER TABLE usage_rollup_prev RENAME TO usage_rollup;
CREATE INDEX usage_rollup_bucket ON usage_rollup(bucket);
CREATE TABLE usage_rollup_hour_prev (
    file_id INTEGER NOT NULL, bucket INTEGER NOT NULL, provider TEXT NOT NULL, model TEXT NOT NULL,
    source TEXT NOT NULL, is_copy INTEGER NOT NULL, active INTEGER NOT NULL, calls INTEGER NOT NULL,
    input REAL NOT NULL, output REAL NOT NULL, cache_read REAL NOT NULL, cache_write REAL NOT NULL,
    cache_write_1h REAL NOT NULL, total_tokens REAL NOT NULL, cost REAL NOT NULL,
    PRIMARY KEY (file_id, bucket, provider, model, source, is_copy, active)
) WITHOUT ROWID;
INSERT INTO usage_rollup_hour_prev SELECT file_id, bucket, provider, model, source, is_copy, active, sum(calls),
    total(input), total(output), total(cache_read), total(cache_write), total(cache_write_1h), total(total_tokens), total(cost)
    FROM usage_rollup_hour GROUP BY 1, 2, 3, 4, 5, 6, 7;
DROP TABLE usage_rollup_hour;
ALTER TABLE usage_rollup_hour_prev RENAME TO usage_rollup_hour;
CREATE INDEX usage_rollup_hour_bucket ON usage_rollup_hour(bucket);
-- +goose StatementBegin
CREATE TRIGGER read_caches_rollup_insert AFTER INSERT ON usage_rollup BEGIN
    UPDATE read_caches SET gen = gen + 1 WHERE name = 'usage_rollup';
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER read_caches_rollup_delete AFTER DELETE ON usage_rollup BEGIN
    UPDATE read_caches SET gen = gen + 1 WHERE name = 'usage_rollup';
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER read_caches_rollup_update AFTER UPDATE ON usage_rollup BEGIN
    UPDATE read_caches SET gen = gen + 1 WHERE name = 'usage_rollup';
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER read_caches_rollup_hour_insert AFTER INSERT ON usage_rollup_hour BEGIN
    UPDATE read_caches SET gen = gen + 1 WHERE name = 'usage_rollup_hour';
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER read_caches_rollup_hour_delete AFTER DELETE ON usage_rollup_hour BEGIN
    UPDATE read_caches SET gen = gen + 1 WHERE name = 'usage_rollup_hour';
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER read_caches_rollup_hour_update AFTER UPDATE ON usage_rollup_hour BEGIN
    UPDATE read_caches SET gen = gen + 1 WHERE name = 'usage_rollup_hour';
END;
-- +goose StatementEnd
UPDATE read_caches SET gen = gen + 1, data = NULL, data_gen = NULL WHERE name IN ('usage_rollup', 'usage_rollup_hour');
