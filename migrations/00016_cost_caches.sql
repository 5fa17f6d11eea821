-- +goose Up
-- Read caches of the cost rollups (issue 20): a cost report that needs no
-- session's columns (by day, week, month, model, provider or source;
-- filtered by branch, source, model or session) sums one rollup's rows
-- in Go from one blob, instead of SQLite grouping them (12,000 rows of
-- the hourly rollup took 30-40 ms of a fresh process's `pidex cost`).
-- Named after the rollup tables; their triggers move gen on every
-- change to a rollup's rows, as 00012's do for the other caches.
INSERT INTO read_caches (name) VALUES ('usage_rollup'), ('usage_rollup_hour');

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

-- +goose Down
DROP TRIGGER read_caches_rollup_hour_update;
DROP TRIGGER read_caches_rollup_hour_delete;
DROP TRIGGER read_caches_rollup_hour_insert;
DROP TRIGGER read_caches_rollup_update;
DROP TRIGGER read_caches_rollup_delete;
DROP TRIGGER read_caches_rollup_insert;
DELETE FROM read_caches WHERE name IN ('usage_rollup', 'usage_rollup_hour');
