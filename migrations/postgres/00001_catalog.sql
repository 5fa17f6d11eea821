-- +goose Up
-- The team catalog: the union of several machines' local catalogs
-- (docs/postgres.md). Every row belongs to one machine: a push writes and
-- deletes only its own machine's rows, keyed so that it never needs to
-- know another machine's ids. The tables mirror the SQLite catalog's
-- (migrations/*.sql: same names, same columns, same meaning) plus:
--   machine_id  the owner, on every machine-owned row; a composite foreign
--               key (machine_id, file_id) → files makes it agree with the
--               row's file, and deleting a file deletes all its rows;
--   file ids    assigned here (a local catalog's ids change when it is
--               rebuilt); a push maps (machine, path) → id;
--   entry_lines the raw JSONL line of each entry (the files are not on the
--               other machines);
--   push_state  where each machine's last push got to (resumable pushes).
-- Token counts are double precision: pi's JSON numbers, decoded as
-- float64 (schema.Usage), fractional and huge values kept.
-- "offset" is quoted: a reserved word in PostgreSQL (qualified references
-- such as e.offset need no quotes).
-- Text columns are COLLATE "C": compared and ordered byte by byte, as
-- SQLite's BINARY does, whatever the server's default collation (an
-- en_US collation would order paths differently, and so pick another
-- original for a forked call), and lower() folds ASCII only, as SQLite's.

-- One row per machine that pushes. derivation: indexer.Derivation of the
-- pidex whose local catalog produced the machine's rows (machines may run
-- different releases: a reader compares its own and says which machines
-- are behind; the machine's next push with a newer pidex re-pushes all).
CREATE TABLE machines (
    id         integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name       text COLLATE "C"    NOT NULL UNIQUE,
    derivation integer NOT NULL DEFAULT 0,
    text_version integer NOT NULL DEFAULT 0  -- version of the text preparation (tokens, folding) behind its search rows
);

-- Facts about the team catalog itself (not about one machine).
CREATE TABLE meta (
    key   text COLLATE "C" PRIMARY KEY,
    value text COLLATE "C" NOT NULL
);

-- Where a machine's pushes are. A push writes started_ms first and
-- finished_ms last; each file's own cursor (files.generation, offset,
-- text_offset, derived_seq) moves in the transaction that carries its rows,
-- so an interrupted push resumes file by file. catalog_id is the identity
-- of the local catalog last pushed: another one (a rebuilt or recreated
-- local catalog, whose generations and ids start again) makes the next
-- push verify every file instead of trusting the cursors.
CREATE TABLE push_state (
    machine_id  integer PRIMARY KEY REFERENCES machines ON DELETE CASCADE,
    catalog_id  text COLLATE "C"    NOT NULL DEFAULT '',
    derivation  integer NOT NULL DEFAULT 0,
    started_ms  bigint,
    finished_ms bigint,
    pushed_by   text COLLATE "C"    NOT NULL DEFAULT '', -- pidex version
    files       bigint  NOT NULL DEFAULT 0,  -- last complete push: files and bytes mirrored
    bytes       bigint  NOT NULL DEFAULT 0
);

-- One row per file the machine's catalog holds.
CREATE TABLE files (
    id          bigint  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    machine_id  integer NOT NULL REFERENCES machines ON DELETE CASCADE,
    path        text COLLATE "C"    NOT NULL,           -- the machine's own path
    root        text COLLATE "C"    NOT NULL,
    kind        text COLLATE "C"    NOT NULL,           -- session | not_session | empty
    size        bigint  NOT NULL DEFAULT 0,
    mtime_ns    bigint  NOT NULL DEFAULT 0,
    "offset"    bigint  NOT NULL DEFAULT 0, -- entries pushed up to here (the local offset at that push)
    head_hash   text COLLATE "C"    NOT NULL DEFAULT '', -- the local catalog's fingerprints at that offset:
    tail_hash   text COLLATE "C"    NOT NULL DEFAULT '', -- a push compares them to tell an append from a rewrite
    open_tail   boolean NOT NULL DEFAULT false,
    lines       bigint  NOT NULL DEFAULT 0,
    seq         bigint  NOT NULL DEFAULT 0,
    version     integer NOT NULL DEFAULT 0,
    last_id     text COLLATE "C"    NOT NULL DEFAULT '',
    warnings    bigint  NOT NULL DEFAULT 0,
    text_offset bigint  NOT NULL DEFAULT 0, -- search rows pushed up to here
    generation  bigint  NOT NULL DEFAULT 0, -- the local generation pushed (a rewrite bumps it)
    derived_seq bigint  NOT NULL DEFAULT 0, -- the local count of re-derivations of its usage rows pushed
    UNIQUE (machine_id, path),
    UNIQUE (machine_id, id)                 -- the target of every composite foreign key
);

CREATE TABLE sessions (
    file_id          bigint  PRIMARY KEY,
    machine_id       integer NOT NULL,
    session_id       text COLLATE "C"    NOT NULL,
    version          integer NOT NULL,
    cwd              text COLLATE "C"    NOT NULL DEFAULT '',
    parent_session   text COLLATE "C"    NOT NULL DEFAULT '',
    branched_from    text COLLATE "C"    NOT NULL DEFAULT '',
    created          text COLLATE "C"    NOT NULL DEFAULT '',
    created_ms       bigint,
    name             text,
    last_activity_ms bigint,
    message_count    bigint  NOT NULL DEFAULT 0,
    first_message    text,
    entry_count      bigint  NOT NULL DEFAULT 0,
    leaf_id          text,
    leaf_offset      bigint,
    branch_points    bigint  NOT NULL DEFAULT 0,
    models           text COLLATE "C"    NOT NULL DEFAULT '[]',
    input            double precision NOT NULL DEFAULT 0,
    output           double precision NOT NULL DEFAULT 0,
    cache_read       double precision NOT NULL DEFAULT 0,
    cache_write      double precision NOT NULL DEFAULT 0,
    total_tokens     double precision NOT NULL DEFAULT 0,
    cost             double precision NOT NULL DEFAULT 0,
    FOREIGN KEY (machine_id, file_id) REFERENCES files (machine_id, id) ON DELETE CASCADE
);
-- Session ids are not unique across machines (a file copied between two
-- laptops keeps its header id): resolution may find one per machine.
CREATE INDEX sessions_session_id ON sessions (session_id);
CREATE INDEX sessions_cwd ON sessions (cwd);
CREATE INDEX sessions_name ON sessions (name) WHERE name IS NOT NULL;
CREATE INDEX sessions_machine ON sessions (machine_id);

CREATE TABLE entries (
    file_id     bigint  NOT NULL,
    "offset"    bigint  NOT NULL,
    machine_id  integer NOT NULL,
    length      bigint  NOT NULL,
    line        bigint  NOT NULL,
    seq         bigint  NOT NULL,
    id          text COLLATE "C"    NOT NULL,
    parent_id   text,
    type        text COLLATE "C"    NOT NULL,
    role        text,
    ts          text COLLATE "C"    NOT NULL DEFAULT '',
    msg_ts      bigint,
    ts_ms       bigint,
    provider    text,
    model       text,
    target_id   text,
    first_kept  text,
    PRIMARY KEY (file_id, "offset"),
    FOREIGN KEY (machine_id, file_id) REFERENCES files (machine_id, id) ON DELETE CASCADE
);
CREATE INDEX entries_id ON entries (file_id, id);

-- The raw JSONL line of each entry, byte for byte (bytea: a damaged file's
-- line need not be UTF-8, and text cannot hold NUL), apart from entries so
-- that the tree and path walks read narrow rows. What entry_json and
-- entry_text read locally from the file. lz4: the fastest of PostgreSQL's
-- TOAST compressions, on text that compresses well (docs/postgres.md).
CREATE TABLE entry_lines (
    file_id    bigint  NOT NULL,
    "offset"   bigint  NOT NULL,
    machine_id integer NOT NULL,
    raw        bytea   COMPRESSION lz4 NOT NULL,
    PRIMARY KEY (file_id, "offset"),
    FOREIGN KEY (file_id, "offset") REFERENCES entries (file_id, "offset") ON DELETE CASCADE,
    FOREIGN KEY (machine_id, file_id) REFERENCES files (machine_id, id) ON DELETE CASCADE
);

CREATE TABLE edges (
    file_id    bigint  NOT NULL,
    child_id   text COLLATE "C"    NOT NULL,
    machine_id integer NOT NULL,
    parent_id  text,
    "offset"   bigint  NOT NULL,
    PRIMARY KEY (file_id, child_id),
    FOREIGN KEY (machine_id, file_id) REFERENCES files (machine_id, id) ON DELETE CASCADE
);
CREATE INDEX edges_parent ON edges (file_id, parent_id);

CREATE TABLE labels (
    file_id    bigint  NOT NULL,
    target_id  text COLLATE "C"    NOT NULL,
    machine_id integer NOT NULL,
    label      text COLLATE "C"    NOT NULL,
    ts         text COLLATE "C"    NOT NULL DEFAULT '',
    "offset"   bigint  NOT NULL,
    PRIMARY KEY (file_id, target_id),
    FOREIGN KEY (machine_id, file_id) REFERENCES files (machine_id, id) ON DELETE CASCADE
);

-- Usage records with the cost report's derived facts (migration 00005 of
-- the SQLite catalog, indexer/calls.go). attr_*, on_path: per file, as the
-- machine derived them. is_copy, call_active: as the machine derived them
-- over its own files; where the other machines change them (a call held by
-- two machines), usage_xm says so (see there).
CREATE TABLE usage (
    file_id          bigint  NOT NULL,
    "offset"         bigint  NOT NULL,
    machine_id       integer NOT NULL,
    source           text COLLATE "C"    NOT NULL,
    entry_id         text COLLATE "C"    NOT NULL,
    ts_ms            bigint,
    provider         text COLLATE "C"    NOT NULL DEFAULT '',
    model            text COLLATE "C"    NOT NULL DEFAULT '',
    kind             text COLLATE "C"    NOT NULL DEFAULT '',
    response_id      text COLLATE "C"    NOT NULL DEFAULT '',
    input            double precision NOT NULL DEFAULT 0,
    output           double precision NOT NULL DEFAULT 0,
    cache_read       double precision NOT NULL DEFAULT 0,
    cache_write      double precision NOT NULL DEFAULT 0,
    total_tokens     double precision NOT NULL DEFAULT 0,
    cost_input       double precision NOT NULL DEFAULT 0,
    cost_output      double precision NOT NULL DEFAULT 0,
    cost_cache_read  double precision NOT NULL DEFAULT 0,
    cost_cache_write double precision NOT NULL DEFAULT 0,
    cost_total       double precision NOT NULL DEFAULT 0,
    cache_write_1h   double precision NOT NULL DEFAULT 0,
    reasoning        double precision NOT NULL DEFAULT 0,
    attr_provider    text,
    attr_model       text,
    on_path          boolean NOT NULL DEFAULT false,
    is_copy          boolean NOT NULL DEFAULT false,
    call_active      boolean NOT NULL DEFAULT false,
    PRIMARY KEY (file_id, "offset"),
    FOREIGN KEY (machine_id, file_id) REFERENCES files (machine_id, id) ON DELETE CASCADE
);
-- A call's records, wherever they are: the call key starts with the entry id.
CREATE INDEX usage_call ON usage (entry_id, source, ts_ms);

-- Cross-machine dedup: the usage rows whose flags over the union of all
-- machines differ from the flags their machine derived (is_copy: another
-- machine holds the same call in a session created earlier — by
-- (created_ms, path, machine name, offset); call_active: another machine's
-- record of the call is on its file's path). Usually empty or small: only
-- calls held by two machines. A report reads the rollups and moves each of
-- these rows' amounts from its machine's flags to these. Derived, owned by
-- no machine: a push that adds, removes or re-derives usage rows recomputes
-- the overrides of every call sharing their entry ids, on all machines,
-- under the advisory lock 'pidex calls' (docs/postgres.md).
CREATE TABLE usage_xm (
    file_id     bigint  NOT NULL,
    "offset"    bigint  NOT NULL,
    is_copy     boolean NOT NULL,
    call_active boolean NOT NULL,
    PRIMARY KEY (file_id, "offset"),
    FOREIGN KEY (file_id, "offset") REFERENCES usage (file_id, "offset") ON DELETE CASCADE
);

-- The rollups, as the machine derived them (its flags); see usage_xm.
-- bucket = ts_ms / 900000 (quarter hours, UTC), -1 without a time.
CREATE TABLE usage_rollup (
    file_id        bigint  NOT NULL,
    bucket         bigint  NOT NULL,
    provider       text COLLATE "C"    NOT NULL,
    model          text COLLATE "C"    NOT NULL,
    source         text COLLATE "C"    NOT NULL,
    is_copy        boolean NOT NULL,
    active         boolean NOT NULL,
    machine_id     integer NOT NULL,
    calls          bigint  NOT NULL,
    input          double precision NOT NULL,
    output         double precision NOT NULL,
    cache_read     double precision NOT NULL,
    cache_write    double precision NOT NULL,
    cache_write_1h double precision NOT NULL,
    total_tokens   double precision NOT NULL,
    cost           double precision NOT NULL,
    PRIMARY KEY (file_id, bucket, provider, model, source, is_copy, active),
    FOREIGN KEY (machine_id, file_id) REFERENCES files (machine_id, id) ON DELETE CASCADE
);
CREATE INDEX usage_rollup_bucket ON usage_rollup (bucket);

-- The same per hour (bucket: the hour's first quarter hour).
CREATE TABLE usage_rollup_hour (LIKE usage_rollup INCLUDING ALL,
    FOREIGN KEY (machine_id, file_id) REFERENCES files (machine_id, id) ON DELETE CASCADE);

CREATE TABLE tool_calls (
    file_id    bigint  NOT NULL,
    call_id    text COLLATE "C"    NOT NULL,
    "offset"   bigint  NOT NULL,
    idx        integer NOT NULL,
    machine_id integer NOT NULL,
    name       text COLLATE "C"    NOT NULL,
    is_error   boolean,
    PRIMARY KEY (file_id, call_id, "offset", idx),
    FOREIGN KEY (machine_id, file_id) REFERENCES files (machine_id, id) ON DELETE CASCADE
);

CREATE TABLE warnings (
    file_id    bigint  NOT NULL,
    machine_id integer NOT NULL,
    line       bigint  NOT NULL,
    message    text COLLATE "C"    NOT NULL,
    FOREIGN KEY (machine_id, file_id) REFERENCES files (machine_id, id) ON DELETE CASCADE
);
CREATE INDEX warnings_file ON warnings (file_id);

-- Every composite foreign key needs an index on its referencing columns
-- for ON DELETE CASCADE not to scan the table: the primary keys start with
-- file_id, which is enough (a file has one machine).

-- +goose Down
DROP TABLE warnings;
DROP TABLE tool_calls;
DROP TABLE usage_rollup_hour;
DROP TABLE usage_rollup;
DROP TABLE usage_xm;
DROP TABLE usage;
DROP TABLE labels;
DROP TABLE edges;
DROP TABLE entry_lines;
DROP TABLE entries;
DROP TABLE sessions;
DROP TABLE files;
DROP TABLE push_state;
DROP TABLE meta;
DROP TABLE machines;
