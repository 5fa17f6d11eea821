-- +goose Up
-- The raw lines in chunks (issue 38: "raw lines compressed"). A row of
-- entry_lines held one line, and a line is about 600 bytes, under the
-- 2 KB from which PostgreSQL compresses a value (TOAST_TUPLE_THRESHOLD, a
-- build constant that toast_tuple_target does not lower): most lines were
-- stored as they are, each with a row's header and a key in the primary
-- key's index. A row of line_chunks holds a file's consecutive lines, about
-- 64 KB of them, which lz4 compresses as one value (docs/postgres.md,
-- "Lines in chunks"):
--   "offset"  the first line's offset (the key: a line is in the chunk
--             with the greatest "offset" not after its own);
--   offsets   each line's offset, ascending;
--   ends      where each line ends in raw (bytes; line i is raw[ends[i-1]:ends[i]]);
--   raw       the lines one after the other, byte-exact as entry_lines had them.
-- entry_lines stays, as a view with its columns, for the sql views, the
-- entry_json function and anyone's SQL; pidex reads the chunks.
CREATE TABLE line_chunks (
    machine_id integer   NOT NULL,
    file_id    bigint    NOT NULL,
    "offset"   bigint    NOT NULL,
    offsets    bigint[]  NOT NULL,
    ends       integer[] NOT NULL,
    raw        bytea COMPRESSION lz4 NOT NULL
);
SELECT pidex_layout('line_chunks', pidex_partitions());

-- The lines already pushed, file by file (a statement over all of them
-- would sort every line at once), each file's cut where a line starts in
-- another 64 KB of its lines than the one before (the push cuts a chunk
-- once it holds 64 KB: either cut is a valid one).
-- +goose StatementBegin
DO $$
DECLARE
    f record;
BEGIN
    FOR f IN SELECT machine_id, id FROM files ORDER BY machine_id, id LOOP
        INSERT INTO line_chunks (machine_id, file_id, "offset", offsets, ends, raw)
        SELECT f.machine_id, f.id, min("offset"), array_agg("offset" ORDER BY "offset"),
               array_agg((upto - base)::integer ORDER BY "offset"), string_agg(raw, ''::bytea ORDER BY "offset")
          FROM (SELECT "offset", raw, upto, piece, min(upto - length(raw)) OVER (PARTITION BY piece) AS base
                  FROM (SELECT "offset", raw, upto, (upto - length(raw)) / 65536 AS piece
                          FROM (SELECT "offset", raw, sum(length(raw)) OVER (ORDER BY "offset") AS upto
                                  FROM entry_lines WHERE machine_id = f.machine_id AND file_id = f.id) l) p) c
         GROUP BY piece;
    END LOOP;
END $$;
-- +goose StatementEnd
ALTER TABLE line_chunks ADD PRIMARY KEY (machine_id, file_id, "offset"),
    ADD FOREIGN KEY (machine_id, file_id) REFERENCES files (machine_id, id) ON DELETE CASCADE;
ALTER TABLE line_chunks ENABLE ROW LEVEL SECURITY;
CREATE POLICY pidex_read ON line_chunks FOR SELECT USING (true);
CREATE POLICY pidex_own ON line_chunks FOR ALL
    USING (machine_id IN (SELECT m.id FROM machines m JOIN machine_roles r ON r.machine = m.name WHERE r.role = current_user))
    WITH CHECK (machine_id IN (SELECT m.id FROM machines m JOIN machine_roles r ON r.machine = m.name WHERE r.role = current_user));

-- pidex_line(machine, file, offset) is an entry's raw line out of its
-- chunk: one probe of the key, backwards from the offset.
CREATE FUNCTION pidex_line(machine integer, file bigint, line_offset bigint) RETURNS bytea
LANGUAGE sql STABLE PARALLEL SAFE
RETURN (SELECT substring(c.raw FROM COALESCE(c.ends[c.k - 1], 0) + 1 FOR c.ends[c.k] - COALESCE(c.ends[c.k - 1], 0))
          FROM (SELECT raw, ends, array_position(offsets, line_offset) AS k FROM line_chunks
                 WHERE machine_id = machine AND file_id = file AND "offset" <= line_offset
                 ORDER BY "offset" DESC LIMIT 1) c
         WHERE c.k IS NOT NULL);

DROP VIEW tool_calls_v;
DROP TABLE entry_lines;
CREATE VIEW entry_lines AS
SELECT e.file_id AS file_id, e.offset AS "offset", e.machine_id AS machine_id,
       pidex_line(e.machine_id, e.file_id, e.offset) AS raw
FROM entries e;

-- 00011's, unchanged: its subquery now reads the view.
CREATE VIEW tool_calls_v AS
SELECT s.session_id AS session_id, f.path AS path, t.offset AS "offset", e.id AS entry_id, t.call_id AS call_id,
       t.name AS tool,
       (SELECT CASE json_typeof(a) WHEN 'string' THEN a #>> '{}' WHEN 'null' THEN NULL ELSE a::text END
          FROM (SELECT convert_from(l.raw, 'UTF8')::json -> 'message' -> 'content' -> t.idx -> 'arguments' AS a
                  FROM entry_lines l WHERE l.machine_id = t.machine_id AND l.file_id = t.file_id AND l.offset = t.offset) x) AS arguments,
       r.offset AS result_offset,
       CASE WHEN r.offset IS NOT NULL THEN COALESCE(rt.text, '') END AS result_text,
       r.is_error::int AS is_error, e.ts_ms AS ts_ms, re.ts_ms - e.ts_ms AS duration_ms,
       m.name AS machine
FROM tool_calls t JOIN sessions s ON s.machine_id = t.machine_id AND s.file_id = t.file_id
JOIN files f ON f.machine_id = t.machine_id AND f.id = t.file_id
JOIN machines m ON m.id = t.machine_id
JOIN entries e ON e.machine_id = t.machine_id AND e.file_id = t.file_id AND e.offset = t.offset
LEFT JOIN tool_calls r ON r.machine_id = t.machine_id AND r.file_id = t.file_id AND r.call_id = t.call_id AND r.idx = -1
    AND r.offset = (SELECT min(r2.offset) FROM tool_calls r2
                    WHERE r2.machine_id = t.machine_id AND r2.file_id = t.file_id AND r2.call_id = t.call_id
                      AND r2.idx = -1 AND r2.offset > t.offset)
LEFT JOIN entries re ON re.machine_id = r.machine_id AND re.file_id = r.file_id AND re.offset = r.offset
LEFT JOIN entry_text rt ON rt.machine_id = r.machine_id AND rt.file_id = r.file_id AND rt.offset = r.offset
WHERE t.idx >= 0;

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION pidex_machine_tables() RETURNS text[] LANGUAGE sql IMMUTABLE
RETURN ARRAY['files', 'sessions', 'entries', 'line_chunks', 'entry_text', 'text_index', 'edges', 'labels',
    'usage', 'usage_xm', 'usage_rollup', 'usage_rollup_hour', 'tool_calls', 'warnings', 'session_activity',
    'activity', 'activity_tools', 'activity_file', 'activity_tools_file', 'activity_events', 'off_path'];
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION pidex_machine_tables() RETURNS text[] LANGUAGE sql IMMUTABLE
RETURN ARRAY['files', 'sessions', 'entries', 'entry_lines', 'entry_text', 'text_index', 'edges', 'labels',
    'usage', 'usage_xm', 'usage_rollup', 'usage_rollup_hour', 'tool_calls', 'warnings', 'session_activity',
    'activity', 'activity_tools', 'activity_file', 'activity_tools_file', 'activity_events', 'off_path'];
-- +goose StatementEnd
DROP VIEW tool_calls_v;
DROP VIEW entry_lines;
CREATE TABLE entry_lines (
    file_id    bigint NOT NULL,
    "offset"   bigint NOT NULL,
    machine_id integer NOT NULL,
    raw        bytea COMPRESSION lz4 NOT NULL
);
SELECT pidex_layout('entry_lines', pidex_partitions());
INSERT INTO entry_lines (file_id, "offset", machine_id, raw)
SELECT c.file_id, c.offsets[i], c.machine_id,
       substring(c.raw FROM COALESCE(c.ends[i - 1], 0) + 1 FOR c.ends[i] - COALESCE(c.ends[i - 1], 0))
FROM line_chunks c CROSS JOIN LATERAL generate_subscripts(c.offsets, 1) i;
ALTER TABLE entry_lines ADD PRIMARY KEY (machine_id, file_id, "offset"),
    ADD FOREIGN KEY (machine_id, file_id, "offset") REFERENCES entries (machine_id, file_id, "offset") ON DELETE CASCADE;
ALTER TABLE entry_lines ENABLE ROW LEVEL SECURITY;
CREATE POLICY pidex_read ON entry_lines FOR SELECT USING (true);
CREATE POLICY pidex_own ON entry_lines FOR ALL
    USING (machine_id IN (SELECT m.id FROM machines m JOIN machine_roles r ON r.machine = m.name WHERE r.role = current_user))
    WITH CHECK (machine_id IN (SELECT m.id FROM machines m JOIN machine_roles r ON r.machine = m.name WHERE r.role = current_user));
CREATE VIEW tool_calls_v AS
SELECT s.session_id AS session_id, f.path AS path, t.offset AS "offset", e.id AS entry_id, t.call_id AS call_id,
       t.name AS tool,
       (SELECT CASE json_typeof(a) WHEN 'string' THEN a #>> '{}' WHEN 'null' THEN NULL ELSE a::text END
          FROM (SELECT convert_from(l.raw, 'UTF8')::json -> 'message' -> 'content' -> t.idx -> 'arguments' AS a
                  FROM entry_lines l WHERE l.machine_id = t.machine_id AND l.file_id = t.file_id AND l.offset = t.offset) x) AS arguments,
       r.offset AS result_offset,
       CASE WHEN r.offset IS NOT NULL THEN COALESCE(rt.text, '') END AS result_text,
       r.is_error::int AS is_error, e.ts_ms AS ts_ms, re.ts_ms - e.ts_ms AS duration_ms,
       m.name AS machine
FROM tool_calls t JOIN sessions s ON s.machine_id = t.machine_id AND s.file_id = t.file_id
JOIN files f ON f.machine_id = t.machine_id AND f.id = t.file_id
JOIN machines m ON m.id = t.machine_id
JOIN entries e ON e.machine_id = t.machine_id AND e.file_id = t.file_id AND e.offset = t.offset
LEFT JOIN tool_calls r ON r.machine_id = t.machine_id AND r.file_id = t.file_id AND r.call_id = t.call_id AND r.idx = -1
    AND r.offset = (SELECT min(r2.offset) FROM tool_calls r2
                    WHERE r2.machine_id = t.machine_id AND r2.file_id = t.file_id AND r2.call_id = t.call_id
                      AND r2.idx = -1 AND r2.offset > t.offset)
LEFT JOIN entries re ON re.machine_id = r.machine_id AND re.file_id = r.file_id AND re.offset = r.offset
LEFT JOIN entry_text rt ON rt.machine_id = r.machine_id AND rt.file_id = r.file_id AND rt.offset = r.offset
WHERE t.idx >= 0;
DROP FUNCTION pidex_line(integer, bigint, bigint);
DROP TABLE line_chunks;
