-- +goose Up
-- The catalog is a cache of the session files: every row can be rebuilt by
-- re-reading them. Entries are keyed by (file, byte offset) because entry ids
-- are unique only within a file (forks copy entries, ids and all).

-- One row per discovered .jsonl file, with how far it has been ingested.
CREATE TABLE files (
    id         INTEGER PRIMARY KEY,
    path       TEXT    NOT NULL UNIQUE,
    root       TEXT    NOT NULL,
    kind       TEXT    NOT NULL,            -- session | not_session | empty
    dev        INTEGER NOT NULL DEFAULT 0,
    ino        INTEGER NOT NULL DEFAULT 0,
    size       INTEGER NOT NULL DEFAULT 0,
    mtime_ns   INTEGER NOT NULL DEFAULT 0,
    offset     INTEGER NOT NULL DEFAULT 0,  -- ingested up to here (a line boundary)
    head_hash  TEXT    NOT NULL DEFAULT '', -- fingerprint of the first bytes
    tail_hash  TEXT    NOT NULL DEFAULT '', -- fingerprint of the bytes before offset
    open_tail  INTEGER NOT NULL DEFAULT 0,  -- last ingested line had no newline
    lines      INTEGER NOT NULL DEFAULT 0,  -- physical lines before offset
    seq        INTEGER NOT NULL DEFAULT 0,  -- parsed lines before offset (header = 0)
    version    INTEGER NOT NULL DEFAULT 0,
    last_id    TEXT    NOT NULL DEFAULT '', -- last entry id (v1 entries chain to it)
    warnings   INTEGER NOT NULL DEFAULT 0
);

-- One row per session file (a file whose first parsed line is a header).
-- Listing fields are materialised here and kept current on every append,
-- so listing thousands of sessions reads one table.
CREATE TABLE sessions (
    file_id          INTEGER PRIMARY KEY,
    session_id       TEXT    NOT NULL,
    version          INTEGER NOT NULL,
    cwd              TEXT    NOT NULL DEFAULT '',
    parent_session   TEXT    NOT NULL DEFAULT '', -- header parentSession (pi's field)
    branched_from    TEXT    NOT NULL DEFAULT '', -- v1/v2 header alias of parentSession
    created          TEXT    NOT NULL DEFAULT '', -- header timestamp as written
    created_ms       INTEGER,                     -- parsed; NULL when unparsable
    name             TEXT,                        -- latest session_info name, trimmed; NULL = none
    last_activity_ms INTEGER,                     -- max user/assistant message time
    message_count    INTEGER NOT NULL DEFAULT 0,
    first_message    TEXT,                        -- first non-empty user text
    entry_count      INTEGER NOT NULL DEFAULT 0,
    leaf_id          TEXT,
    leaf_offset      INTEGER,
    branch_points    INTEGER NOT NULL DEFAULT 0,  -- entries with more than one child
    models           TEXT    NOT NULL DEFAULT '[]', -- JSON array of "provider/model" used
    input            INTEGER NOT NULL DEFAULT 0,
    output           INTEGER NOT NULL DEFAULT 0,
    cache_read       INTEGER NOT NULL DEFAULT 0,
    cache_write      INTEGER NOT NULL DEFAULT 0,
    total_tokens     INTEGER NOT NULL DEFAULT 0,
    cost             REAL    NOT NULL DEFAULT 0
);
CREATE INDEX sessions_session_id ON sessions(session_id);
CREATE INDEX sessions_cwd ON sessions(cwd);
CREATE INDEX sessions_name ON sessions(name) WHERE name IS NOT NULL;

-- One row per parsed non-header line. The line's JSON stays in the file:
-- read it back by (offset, length).
CREATE TABLE entries (
    file_id     INTEGER NOT NULL,
    offset      INTEGER NOT NULL,
    length      INTEGER NOT NULL,
    line        INTEGER NOT NULL,  -- 1-based physical line
    seq         INTEGER NOT NULL,  -- index among parsed lines, header = 0
    id          TEXT    NOT NULL,  -- v1 entries: synthetic 'v1:<offset>'
    parent_id   TEXT,
    type        TEXT    NOT NULL,
    role        TEXT,              -- message role (hookMessage read as custom)
    ts          TEXT    NOT NULL DEFAULT '',
    msg_ts      INTEGER,           -- message.timestamp (ms)
    provider    TEXT,
    model       TEXT,
    target_id   TEXT,              -- label, context_edit
    first_kept  TEXT,              -- compaction: firstKeptEntryId (v1 index resolved)
    PRIMARY KEY (file_id, offset)
) WITHOUT ROWID;
CREATE INDEX entries_id ON entries(file_id, id);

-- pi's id map: child id -> parent id, per file, later duplicates win.
-- The root-to-leaf path is a recursive CTE over this table.
CREATE TABLE edges (
    file_id   INTEGER NOT NULL,
    child_id  TEXT    NOT NULL,
    parent_id TEXT,
    offset    INTEGER NOT NULL,    -- the entry that owns child_id
    PRIMARY KEY (file_id, child_id)
) WITHOUT ROWID;
CREATE INDEX edges_parent ON edges(file_id, parent_id);

-- Current label per target, pi's semantics: file order, last wins, empty clears.
CREATE TABLE labels (
    file_id   INTEGER NOT NULL,
    target_id TEXT    NOT NULL,
    label     TEXT    NOT NULL,
    ts        TEXT    NOT NULL DEFAULT '',
    offset    INTEGER NOT NULL,    -- the label entry that set it
    PRIMARY KEY (file_id, target_id)
) WITHOUT ROWID;

-- One row per usage record wherever it occurs.
CREATE TABLE usage (
    file_id          INTEGER NOT NULL,
    offset           INTEGER NOT NULL,
    source           TEXT    NOT NULL,  -- assistant | toolResult | compaction | branch_summary | usage
    entry_id         TEXT    NOT NULL,
    ts_ms            INTEGER,
    provider         TEXT    NOT NULL DEFAULT '',
    model            TEXT    NOT NULL DEFAULT '',
    kind             TEXT    NOT NULL DEFAULT '', -- usage entries' category
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
    cost_total       REAL    NOT NULL DEFAULT 0,
    PRIMARY KEY (file_id, offset)
) WITHOUT ROWID;
-- Indexes for cost reports (by day, by model) come with those reports,
-- measured against their queries: each index slows the single writer.

-- Lines that could not be read, so that nothing is silently lost.
CREATE TABLE warnings (
    file_id INTEGER NOT NULL,
    line    INTEGER NOT NULL,
    message TEXT    NOT NULL
);
CREATE INDEX warnings_file ON warnings(file_id);

-- +goose Down
DROP TABLE warnings;
DROP TABLE usage;
DROP TABLE labels;
DROP TABLE edges;
DROP TABLE entries;
DROP TABLE sessions;
DROP TABLE files;
