-- +goose Up
-- Usage records keep the two newer token breakdowns (repricing needs them).
ALTER TABLE usage ADD COLUMN cache_write_1h INTEGER NOT NULL DEFAULT 0; -- part of cache_write with a 1h TTL
ALTER TABLE usage ADD COLUMN reasoning      INTEGER NOT NULL DEFAULT 0; -- part of output spent reasoning

-- Facts about the catalog itself. 'derivation' is the version of the
-- ingest logic that produced the rows: a pidex whose logic differs
-- rebuilds the catalog from the session files (it is only a cache).
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;

-- +goose Down
DROP TABLE meta;
ALTER TABLE usage DROP COLUMN reasoning;
ALTER TABLE usage DROP COLUMN cache_write_1h;
