-- +goose Up
-- What pidex stats counts, mirrored from each machine's catalog (the local
-- catalog's migration 00017 says what each column holds).
ALTER TABLE entries ADD COLUMN stop_reason   text;
ALTER TABLE entries ADD COLUMN error         text;
ALTER TABLE entries ADD COLUMN tokens_before bigint;
ALTER TABLE entries ADD COLUMN command       text;
ALTER TABLE tool_calls ADD COLUMN command text;
ALTER TABLE tool_calls ADD COLUMN size    bigint;

CREATE TABLE session_activity (
    file_id      bigint  PRIMARY KEY,
    machine_id   integer NOT NULL,
    counted_from bigint  NOT NULL,
    first_ms     bigint,
    last_ms      bigint,
    active_ms    bigint  NOT NULL,
    entries      bigint  NOT NULL,
    FOREIGN KEY (machine_id, file_id) REFERENCES files (machine_id, id) ON DELETE CASCADE
);

CREATE TABLE activity (
    file_id            bigint  NOT NULL,
    bucket             bigint  NOT NULL,
    provider           text COLLATE "C" NOT NULL,
    model              text COLLATE "C" NOT NULL,
    active             boolean NOT NULL,
    machine_id         integer NOT NULL,
    entries            bigint  NOT NULL,
    user_turns         bigint  NOT NULL,
    assistant_calls    bigint  NOT NULL,
    tool_calls         bigint  NOT NULL,
    tool_results       bigint  NOT NULL,
    tool_errors        bigint  NOT NULL,
    user_commands      bigint  NOT NULL,
    stop_error         bigint  NOT NULL,
    stop_aborted       bigint  NOT NULL,
    stop_length        bigint  NOT NULL,
    active_ms          bigint  NOT NULL,
    turns_timed        bigint  NOT NULL,
    latency_ms         bigint  NOT NULL,
    max_latency_ms     bigint  NOT NULL,
    compactions        bigint  NOT NULL,
    context_before     bigint  NOT NULL,
    max_context_before bigint  NOT NULL,
    prompt_input       double precision NOT NULL,
    prompt_cache_read  double precision NOT NULL,
    prompt_cache_write double precision NOT NULL,
    PRIMARY KEY (file_id, bucket, provider, model, active),
    FOREIGN KEY (machine_id, file_id) REFERENCES files (machine_id, id) ON DELETE CASCADE
);
CREATE INDEX activity_bucket ON activity (bucket, active_ms, user_turns);

CREATE TABLE activity_tools (
    file_id         bigint  NOT NULL,
    bucket          bigint  NOT NULL,
    kind            text COLLATE "C" NOT NULL,
    name            text COLLATE "C" NOT NULL,
    provider        text COLLATE "C" NOT NULL,
    model           text COLLATE "C" NOT NULL,
    active          boolean NOT NULL,
    machine_id      integer NOT NULL,
    calls           bigint  NOT NULL,
    results         bigint  NOT NULL,
    errors          bigint  NOT NULL,
    result_bytes    bigint  NOT NULL,
    timed           bigint  NOT NULL,
    duration_ms     bigint  NOT NULL,
    max_duration_ms bigint  NOT NULL,
    PRIMARY KEY (kind, name, file_id, bucket, provider, model, active),
    FOREIGN KEY (machine_id, file_id) REFERENCES files (machine_id, id) ON DELETE CASCADE
);
CREATE INDEX activity_tools_by_file ON activity_tools (file_id);

CREATE TABLE activity_file (
    file_id            bigint  NOT NULL,
    provider           text COLLATE "C" NOT NULL,
    model              text COLLATE "C" NOT NULL,
    active             boolean NOT NULL,
    machine_id         integer NOT NULL,
    entries            bigint  NOT NULL,
    user_turns         bigint  NOT NULL,
    assistant_calls    bigint  NOT NULL,
    tool_calls         bigint  NOT NULL,
    tool_results       bigint  NOT NULL,
    tool_errors        bigint  NOT NULL,
    user_commands      bigint  NOT NULL,
    stop_error         bigint  NOT NULL,
    stop_aborted       bigint  NOT NULL,
    stop_length        bigint  NOT NULL,
    active_ms          bigint  NOT NULL,
    turns_timed        bigint  NOT NULL,
    latency_ms         bigint  NOT NULL,
    max_latency_ms     bigint  NOT NULL,
    compactions        bigint  NOT NULL,
    context_before     bigint  NOT NULL,
    max_context_before bigint  NOT NULL,
    prompt_input       double precision NOT NULL,
    prompt_cache_read  double precision NOT NULL,
    prompt_cache_write double precision NOT NULL,
    PRIMARY KEY (file_id, provider, model, active),
    FOREIGN KEY (machine_id, file_id) REFERENCES files (machine_id, id) ON DELETE CASCADE
);

CREATE TABLE activity_tools_file (
    kind            text COLLATE "C" NOT NULL,
    name            text COLLATE "C" NOT NULL,
    file_id         bigint  NOT NULL,
    provider        text COLLATE "C" NOT NULL,
    model           text COLLATE "C" NOT NULL,
    active          boolean NOT NULL,
    machine_id      integer NOT NULL,
    calls           bigint  NOT NULL,
    results         bigint  NOT NULL,
    errors          bigint  NOT NULL,
    result_bytes    bigint  NOT NULL,
    timed           bigint  NOT NULL,
    duration_ms     bigint  NOT NULL,
    max_duration_ms bigint  NOT NULL,
    PRIMARY KEY (kind, name, file_id, provider, model, active),
    FOREIGN KEY (machine_id, file_id) REFERENCES files (machine_id, id) ON DELETE CASCADE
);
CREATE INDEX activity_tools_file_by_file ON activity_tools_file (file_id);

CREATE TABLE activity_events (
    file_id     bigint  NOT NULL,
    "offset"    bigint  NOT NULL,
    kind        text COLLATE "C" NOT NULL,
    bucket      bigint  NOT NULL,
    provider    text COLLATE "C" NOT NULL,
    model       text COLLATE "C" NOT NULL,
    active      boolean NOT NULL,
    machine_id  integer NOT NULL,
    text        text    NOT NULL,
    duration_ms bigint,
    PRIMARY KEY (file_id, "offset"),
    FOREIGN KEY (machine_id, file_id) REFERENCES files (machine_id, id) ON DELETE CASCADE
);
CREATE INDEX activity_events_slow ON activity_events (kind, duration_ms);
CREATE INDEX activity_events_text ON activity_events (kind, text, bucket);

CREATE VIEW activity_v AS
SELECT s.session_id AS session_id, f.path AS path, e.offset AS "offset", e.line AS line, e.id AS id, e.type AS type,
       e.role AS role, e.ts_ms AS ts_ms, e.provider AS provider, e.model AS model, e.stop_reason AS stop_reason,
       e.error AS error, e.tokens_before AS tokens_before, e.command AS command,
       CASE WHEN e.offset >= a.counted_from AND NOT EXISTS (SELECT 1 FROM sessions s2 JOIN files f2 ON f2.id = s2.file_id
           JOIN entries e2 ON e2.file_id = s2.file_id AND e2.id = e.id AND e2.ts_ms IS NOT DISTINCT FROM e.ts_ms
           WHERE s2.session_id = s.session_id AND s2.file_id != s.file_id AND f2.path < f.path)
       THEN 1 ELSE 0 END AS counted, m.name AS machine
FROM entries e JOIN sessions s ON s.file_id = e.file_id JOIN files f ON f.id = e.file_id
JOIN machines m ON m.id = f.machine_id
JOIN session_activity a ON a.file_id = e.file_id;

CREATE VIEW tool_uses_v AS
SELECT s.session_id AS session_id, f.path AS path, t.offset AS "offset", e.id AS entry_id, t.call_id AS call_id,
       t.name AS tool, t.command AS command, e.ts_ms AS ts_ms,
       r.offset AS result_offset, r.is_error::int AS is_error, r.size AS result_size, re.ts_ms - e.ts_ms AS duration_ms,
       CASE WHEN t.offset >= a.counted_from AND NOT EXISTS (SELECT 1 FROM sessions s2 JOIN files f2 ON f2.id = s2.file_id
           JOIN entries e2 ON e2.file_id = s2.file_id AND e2.id = e.id AND e2.ts_ms IS NOT DISTINCT FROM e.ts_ms
           WHERE s2.session_id = s.session_id AND s2.file_id != s.file_id AND f2.path < f.path)
       THEN 1 ELSE 0 END AS counted, m.name AS machine
FROM tool_calls t JOIN sessions s ON s.file_id = t.file_id JOIN files f ON f.id = t.file_id
JOIN machines m ON m.id = f.machine_id
JOIN entries e ON e.file_id = t.file_id AND e.offset = t.offset
JOIN session_activity a ON a.file_id = t.file_id
LEFT JOIN tool_calls r ON r.file_id = t.file_id AND r.call_id = t.call_id AND r.idx = -1
    AND r.offset = (SELECT min(r2.offset) FROM tool_calls r2
                    WHERE r2.file_id = t.file_id AND r2.call_id = t.call_id AND r2.idx = -1 AND r2.offset > t.offset)
LEFT JOIN entries re ON re.file_id = r.file_id AND re.offset = r.offset
WHERE t.idx >= 0;

-- +goose Down
DROP VIEW tool_uses_v;
DROP VIEW activity_v;
DROP TABLE activity_tools_file;
DROP TABLE activity_file;
DROP TABLE activity_events;
DROP TABLE activity_tools;
DROP TABLE activity;
DROP TABLE session_activity;
ALTER TABLE tool_calls DROP COLUMN size;
ALTER TABLE tool_calls DROP COLUMN command;
ALTER TABLE entries DROP COLUMN command;
ALTER TABLE entries DROP COLUMN tokens_before;
ALTER TABLE entries DROP COLUMN error;
ALTER TABLE entries DROP COLUMN stop_reason;
