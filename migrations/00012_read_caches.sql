-- +goose Up
-- Read caches (issue 20): what a no-change refresh and a listing read on
-- every command, kept as one blob each, so that a command reads one column
-- instead of a few thousand rows through the driver (a refresh loaded
-- 3,000 files' stamps in ~10 ms, a listing read 3,000 sessions in ~30 ms).
-- A blob is valid only while data_gen equals gen. The triggers below move
-- gen on every change to the rows a blob was made from, whoever makes it
-- (pidex, an older pidex, a copy, the sqlite3 shell), and a blob is
-- stored only if gen has not moved since its rows were read
-- (catalog.StoreCache): a stale blob can never look valid.
--   stamps:  files' path, root, kind, racy, size, mtime_ns, dev, ino
--   listing: sessions' rows, and files' path, root, size, mtime_ns
-- A rowid table, not WITHOUT ROWID: there a row is a cell of an index
-- B-tree, and finding one compares whole payloads, so reading the stamps
-- read the listing's megabytes too.
CREATE TABLE read_caches (
    name     TEXT    NOT NULL UNIQUE,
    gen      INTEGER NOT NULL DEFAULT 0,
    data_gen INTEGER,
    data     BLOB
);
INSERT INTO read_caches (name) VALUES ('stamps'), ('listing');

-- +goose StatementBegin
CREATE TRIGGER read_caches_files_insert AFTER INSERT ON files BEGIN
    UPDATE read_caches SET gen = gen + 1 WHERE name IN ('stamps', 'listing');
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER read_caches_files_delete AFTER DELETE ON files BEGIN
    UPDATE read_caches SET gen = gen + 1 WHERE name IN ('stamps', 'listing');
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER read_caches_files_stamp AFTER UPDATE OF path, root, kind, racy, size, mtime_ns, dev, ino ON files BEGIN
    UPDATE read_caches SET gen = gen + 1 WHERE name = 'stamps';
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER read_caches_files_listing AFTER UPDATE OF path, root, size, mtime_ns ON files BEGIN
    UPDATE read_caches SET gen = gen + 1 WHERE name = 'listing';
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER read_caches_sessions_insert AFTER INSERT ON sessions BEGIN
    UPDATE read_caches SET gen = gen + 1 WHERE name = 'listing';
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER read_caches_sessions_delete AFTER DELETE ON sessions BEGIN
    UPDATE read_caches SET gen = gen + 1 WHERE name = 'listing';
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER read_caches_sessions_update AFTER UPDATE ON sessions BEGIN
    UPDATE read_caches SET gen = gen + 1 WHERE name = 'listing';
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER read_caches_sessions_update;
DROP TRIGGER read_caches_sessions_delete;
DROP TRIGGER read_caches_sessions_insert;
DROP TRIGGER read_caches_files_listing;
DROP TRIGGER read_caches_files_stamp;
DROP TRIGGER read_caches_files_delete;
DROP TRIGGER read_caches_files_insert;
DROP TABLE read_caches;
