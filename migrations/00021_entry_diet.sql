-- +goose Up
-- Less work per entry (issue 38): on sessions shaped like real ones the
-- per-entry rows were most of the catalog. Nothing a reader sees changes:
-- every column keeps its name and its values; the repeated ones are
-- stored once, and read back through virtual generated columns (computed
-- when read, never stored), so readers, views and push read as before.
--
-- edges was a second copy of each entry's id, parent id and offset, with
-- an index by parent that no read used. It is now a view of entries (by
-- entries_id): pi's id map, an id's latest entry wins. The writer no
-- longer writes two more B-trees per entry.
--
-- entries:
--   type_raw: NULL for 'message' (most entries), else the type.
--   role_raw: 0 assistant, 1 toolResult, 2 user, else the role as written
--     (NULL: not a message); 0 and 1 take no bytes in a record.
--   stop_raw: 0 toolUse, 1 stop, else the stop reason (NULL: none).
--   ts_ms: as before. msg: 1 when ts_ms is the message's own timestamp
--     (msg_ts, which is then equal to ts_ms).
--   ts_raw, ts_dt: the entry's timestamp as written, when ts_ms + ts_dt
--     (milliseconds) does not print as it (strftime below, JavaScript's
--     toISOString); else NULL, and ts_dt is the entry's own time less
--     ts_ms (0 unless the message had its own time).
-- usage:
--   source_raw: NULL for 'assistant', else the source.
--   total_tokens_raw, cost_total_raw: NULL when the total is the sum of
--     its four parts, added in pi's order (calculateCost); else the total.
--   attr_p, attr_m: the model a record without one is attributed to
--     (NULL until then); a record with a model is attributed to its own.
--
-- The rows are copied as they are; the derivation moves on (indexer 12),
-- so the catalog is rebuilt from the files anyway.
PRAGMA legacy_alter_table = ON; -- the views name entries and usage: they read the new tables once renamed

CREATE TABLE entries_new (
    file_id       INTEGER NOT NULL,
    offset        INTEGER NOT NULL,
    length        INTEGER NOT NULL,
    line          INTEGER NOT NULL,
    seq           INTEGER NOT NULL,
    id            TEXT    NOT NULL,
    parent_id     TEXT,
    type_raw      TEXT,
    role_raw,
    ts_raw        TEXT,
    ts_dt         INTEGER,
    msg           INTEGER NOT NULL DEFAULT 0,
    ts_ms         INTEGER,
    provider      TEXT,
    model         TEXT,
    target_id     TEXT,
    first_kept    TEXT,
    stop_raw,
    error         TEXT,
    tokens_before INTEGER,
    command       TEXT,
    type   TEXT    GENERATED ALWAYS AS (COALESCE(type_raw, 'message')) VIRTUAL,
    role   TEXT    GENERATED ALWAYS AS (CASE role_raw WHEN 0 THEN 'assistant' WHEN 1 THEN 'toolResult'
                                       WHEN 2 THEN 'user' ELSE role_raw END) VIRTUAL,
    stop_reason TEXT GENERATED ALWAYS AS (CASE stop_raw WHEN 0 THEN 'toolUse' WHEN 1 THEN 'stop' ELSE stop_raw END) VIRTUAL,
    ts     TEXT    GENERATED ALWAYS AS (COALESCE(ts_raw,
                       strftime('%Y-%m-%dT%H:%M:%fZ', (ts_ms + ts_dt) / 1000.0, 'unixepoch'))) VIRTUAL,
    msg_ts INTEGER GENERATED ALWAYS AS (CASE WHEN msg THEN ts_ms END) VIRTUAL,
    PRIMARY KEY (file_id, offset)
) WITHOUT ROWID;

INSERT INTO entries_new (file_id, offset, length, line, seq, id, parent_id, type_raw, role_raw, ts_raw, ts_dt, msg,
    ts_ms, provider, model, target_id, first_kept, stop_raw, error, tokens_before, command)
SELECT file_id, offset, length, line, seq, id, parent_id, NULLIF(type, 'message'),
       CASE role WHEN 'assistant' THEN 0 WHEN 'toolResult' THEN 1 WHEN 'user' THEN 2 ELSE role END,
       CASE WHEN dt IS NULL THEN ts END, dt, msg_ts IS NOT NULL, ts_ms,
       provider, model, target_id, first_kept,
       CASE stop_reason WHEN 'toolUse' THEN 0 WHEN 'stop' THEN 1 ELSE stop_reason END,
       error, tokens_before, command
FROM (SELECT *, CASE WHEN strftime('%Y-%m-%dT%H:%M:%fZ', ms / 1000.0, 'unixepoch') = ts THEN ms - ts_ms END AS dt
      FROM (SELECT *, CAST(round((julianday(ts) - 2440587.5) * 86400000.0) AS INTEGER) AS ms FROM entries));
DROP TABLE entries;
ALTER TABLE entries_new RENAME TO entries;
CREATE INDEX entries_id ON entries(file_id, id);
CREATE INDEX entries_line ON entries(file_id, line);

CREATE TABLE usage_new (
    file_id          INTEGER NOT NULL,
    offset           INTEGER NOT NULL,
    source_raw       TEXT,
    entry_id         TEXT    NOT NULL,
    ts_ms            INTEGER,
    provider         TEXT    NOT NULL DEFAULT '',
    model            TEXT    NOT NULL DEFAULT '',
    kind             TEXT    NOT NULL DEFAULT '',
    response_id      TEXT    NOT NULL DEFAULT '',
    input            INTEGER NOT NULL DEFAULT 0,
    output           INTEGER NOT NULL DEFAULT 0,
    cache_read       INTEGER NOT NULL DEFAULT 0,
    cache_write      INTEGER NOT NULL DEFAULT 0,
    total_tokens_raw INTEGER,
    cost_input       REAL    NOT NULL DEFAULT 0,
    cost_output      REAL    NOT NULL DEFAULT 0,
    cost_cache_read  REAL    NOT NULL DEFAULT 0,
    cost_cache_write REAL    NOT NULL DEFAULT 0,
    cost_total_raw   REAL,
    cache_write_1h   INTEGER NOT NULL DEFAULT 0,
    reasoning        INTEGER NOT NULL DEFAULT 0,
    attr_p           TEXT,
    attr_m           TEXT,
    on_path          INTEGER NOT NULL DEFAULT 0,
    is_copy          INTEGER NOT NULL DEFAULT 0,
    call_active      INTEGER NOT NULL DEFAULT 0,
    source        TEXT GENERATED ALWAYS AS (COALESCE(source_raw, 'assistant')) VIRTUAL,
    total_tokens  INTEGER GENERATED ALWAYS AS (COALESCE(total_tokens_raw, input + output + cache_read + cache_write)) VIRTUAL,
    cost_total    REAL GENERATED ALWAYS AS (COALESCE(cost_total_raw,
                      cost_input + cost_output + cost_cache_read + cost_cache_write)) VIRTUAL,
    attr_provider TEXT GENERATED ALWAYS AS (CASE WHEN model <> '' THEN provider ELSE attr_p END) VIRTUAL,
    attr_model    TEXT GENERATED ALWAYS AS (CASE WHEN model <> '' THEN model ELSE attr_m END) VIRTUAL,
    PRIMARY KEY (file_id, offset)
) WITHOUT ROWID;

INSERT INTO usage_new (file_id, offset, source_raw, entry_id, ts_ms, provider, model, kind, response_id, input, output,
    cache_read, cache_write, total_tokens_raw, cost_input, cost_output, cost_cache_read, cost_cache_write, cost_total_raw,
    cache_write_1h, reasoning, attr_p, attr_m, on_path, is_copy, call_active)
SELECT file_id, offset, NULLIF(source, 'assistant'), entry_id, ts_ms, provider, model, kind, response_id, input, output,
       cache_read, cache_write, NULLIF(total_tokens, input + output + cache_read + cache_write),
       cost_input, cost_output, cost_cache_read, cost_cache_write,
       CASE WHEN cost_total IS NOT cost_input + cost_output + cost_cache_read + cost_cache_write THEN cost_total END,
       cache_write_1h, reasoning, CASE WHEN model = '' THEN attr_provider END, CASE WHEN model = '' THEN attr_model END,
       on_path, is_copy, call_active
FROM usage;
DROP TABLE usage;
ALTER TABLE usage_new RENAME TO usage;
CREATE INDEX usage_entry ON usage(entry_id);

-- By entries_id always: without the planner's statistics (a catalog
-- never bulk-loaded has none) SQLite preferred scanning the file's
-- entries by primary key at every step of a walk.
DROP TABLE edges;
CREATE VIEW edges AS
SELECT e.file_id AS file_id, e.id AS child_id, e.parent_id AS parent_id, e.offset AS offset
FROM entries e INDEXED BY entries_id
WHERE NOT EXISTS (SELECT 1 FROM entries l WHERE l.file_id = e.file_id AND l.id = e.id AND l.offset > e.offset);

-- The walk drives each step: SQLite takes a CROSS JOIN's left table as
-- the outer loop (without statistics it put the view outside, scanning a
-- file's entries at every step).
DROP VIEW _active_offsets;
CREATE VIEW _active_offsets AS
WITH RECURSIVE walk(file_id, id, depth) AS (
    SELECT file_id, leaf_id, 0 FROM sessions WHERE leaf_id IS NOT NULL
    UNION ALL
    SELECT w.file_id, ed.parent_id, w.depth + 1 FROM walk w
    CROSS JOIN edges ed ON ed.file_id = w.file_id AND ed.child_id = w.id
    WHERE ed.parent_id IS NOT NULL AND w.depth < 1000000)
SELECT w.file_id AS file_id, ed.offset AS offset, w.id AS id, w.depth AS depth
FROM walk w CROSS JOIN edges ed ON ed.file_id = w.file_id AND ed.child_id = w.id;

PRAGMA legacy_alter_table = OFF;

-- +goose Down
PRAGMA legacy_alter_table = ON;
DROP VIEW edges;
CREATE TABLE edges (
    file_id   INTEGER NOT NULL,
    child_id  TEXT    NOT NULL,
    parent_id TEXT,
    offset    INTEGER NOT NULL,
    PRIMARY KEY (file_id, child_id)
) WITHOUT ROWID;
CREATE INDEX edges_parent ON edges(file_id, parent_id);
INSERT INTO edges (file_id, child_id, parent_id, offset)
SELECT file_id, id, parent_id, offset FROM entries e
WHERE NOT EXISTS (SELECT 1 FROM entries l WHERE l.file_id = e.file_id AND l.id = e.id AND l.offset > e.offset);

CREATE TABLE entries_old (
    file_id     INTEGER NOT NULL,
    offset      INTEGER NOT NULL,
    length      INTEGER NOT NULL,
    line        INTEGER NOT NULL,
    seq         INTEGER NOT NULL,
    id          TEXT    NOT NULL,
    parent_id   TEXT,
    type        TEXT    NOT NULL,
    role        TEXT,
    ts          TEXT    NOT NULL DEFAULT '',
    msg_ts      INTEGER,
    provider    TEXT,
    model       TEXT,
    target_id   TEXT,
    first_kept  TEXT, ts_ms INTEGER, stop_reason TEXT, error TEXT, tokens_before INTEGER, command TEXT,
    PRIMARY KEY (file_id, offset)
) WITHOUT ROWID;
INSERT INTO entries_old (file_id, offset, length, line, seq, id, parent_id, type, role, ts, msg_ts, provider, model,
    target_id, first_kept, ts_ms, stop_reason, error, tokens_before, command)
SELECT file_id, offset, length, line, seq, id, parent_id, type, role, ts, msg_ts, provider, model,
       target_id, first_kept, ts_ms, stop_reason, error, tokens_before, command FROM entries;
DROP TABLE entries;
ALTER TABLE entries_old RENAME TO entries;
CREATE INDEX entries_id ON entries(file_id, id);
CREATE INDEX entries_line ON entries(file_id, line);

CREATE TABLE usage_old (
    file_id          INTEGER NOT NULL,
    offset           INTEGER NOT NULL,
    source           TEXT    NOT NULL,
    entry_id         TEXT    NOT NULL,
    ts_ms            INTEGER,
    provider         TEXT    NOT NULL DEFAULT '',
    model            TEXT    NOT NULL DEFAULT '',
    kind             TEXT    NOT NULL DEFAULT '',
    response_id      TEXT    NOT NULL DEFAULT '',
    input            INTEGER NOT NULL DEFAULT 0,
    output           INTEGER NOT NULL DEFAULT 0,
    cache_read       INTEGER NOT NULL DEFAULT 0,
    cache_write      INTEGER NOT NULL DEFAULT 0,
    total_tokens     INTEGER NOT NULL DEFAULT 0,
    cost_input       REAL    NOT NULL DEFAULT 0,
    cost_output      REAL    NOT NULL DEFAULT 0,
    cost_cache_read  REAL    NOT NULL DEFAULT 0,
    cost_cache_write REAL    NOT NULL DEFAULT 0,
    cost_total       REAL    NOT NULL DEFAULT 0, cache_write_1h INTEGER NOT NULL DEFAULT 0, reasoning INTEGER NOT NULL DEFAULT 0,
    attr_provider TEXT, attr_model TEXT, on_path INTEGER NOT NULL DEFAULT 0, is_copy INTEGER NOT NULL DEFAULT 0,
    call_active INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (file_id, offset)
) WITHOUT ROWID;
INSERT INTO usage_old (file_id, offset, source, entry_id, ts_ms, provider, model, kind, response_id, input, output,
    cache_read, cache_write, total_tokens, cost_input, cost_output, cost_cache_read, cost_cache_write, cost_total,
    cache_write_1h, reasoning, attr_provider, attr_model, on_path, is_copy, call_active)
SELECT file_id, offset, source, entry_id, ts_ms, provider, model, kind, response_id, input, output,
       cache_read, cache_write, total_tokens, cost_input, cost_output, cost_cache_read, cost_cache_write, cost_total,
       cache_write_1h, reasoning, attr_provider, attr_model, on_path, is_copy, call_active FROM usage;
DROP TABLE usage;
ALTER TABLE usage_old RENAME TO usage;
CREATE INDEX usage_entry ON usage(entry_id);
DROP VIEW _active_offsets;
CREATE VIEW _active_offsets AS
WITH RECURSIVE walk(file_id, id, depth) AS (
    SELECT file_id, leaf_id, 0 FROM sessions WHERE leaf_id IS NOT NULL
    UNION ALL
    SELECT w.file_id, ed.parent_id, w.depth + 1 FROM walk w
    JOIN edges ed ON ed.file_id = w.file_id AND ed.child_id = w.id
    WHERE ed.parent_id IS NOT NULL AND w.depth < 1000000)
SELECT w.file_id AS file_id, ed.offset AS offset, w.id AS id, w.depth AS depth
FROM walk w JOIN edges ed ON ed.file_id = w.file_id AND ed.child_id = w.id;
PRAGMA legacy_alter_table = OFF;
