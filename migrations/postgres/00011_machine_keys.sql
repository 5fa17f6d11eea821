-- +goose Up
-- Keys that start with the machine (issue 38, docs/postgres.md "Keys and
-- partitions"): every machine-owned table's primary key, unique
-- constraint and foreign key leads with machine_id, so that the tables
-- can be hash-partitioned by machine (PostgreSQL's declarative
-- partitioning; the distribution column Citus needs): a partitioned
-- table's keys must hold its partition key, and a row's file, entry and
-- usage record are then always in the partition of its machine.
--   files.id    a number from the sequence file_ids, unique over the
--               catalog as before, but its key is (machine_id, id): no
--               constraint spans partitions (an identity column cannot be
--               on a partitioned table in PostgreSQL 15);
--   usage_xm    gains machine_id, its usage row's;
--   partitions  the setting pidex.partitions of the migrating session
--               (pidex team init --partitions N, pidex push --partitions N
--               when the push makes the catalog): N > 0 lays every
--               machine-owned table out as N hash partitions by machine_id
--               (rows copied), 0 or unset keeps plain tables (keys changed
--               in place). Recorded in meta ('partitions'). Chosen when
--               this migration runs: a later change means a new catalog.
-- The views join by machine and file, so that their lookups use the keys.

-- The tables whose rows belong to a machine, parents before children.
-- +goose StatementBegin
CREATE FUNCTION pidex_machine_tables() RETURNS text[] LANGUAGE sql IMMUTABLE
RETURN ARRAY['files', 'sessions', 'entries', 'entry_lines', 'entry_text', 'text_index', 'edges', 'labels',
    'usage', 'usage_xm', 'usage_rollup', 'usage_rollup_hour', 'tool_calls', 'warnings', 'session_activity',
    'activity', 'activity_tools', 'activity_file', 'activity_tools_file', 'activity_events'];
-- +goose StatementEnd

-- How many hash partitions the machine-owned tables have (0: plain).
-- +goose StatementBegin
CREATE FUNCTION pidex_partitions() RETURNS integer LANGUAGE sql STABLE
RETURN COALESCE((SELECT value::integer FROM meta WHERE key = 'partitions'), 0);
-- +goose StatementEnd

-- pidex_layout(t, n) lays table t out as n hash partitions by machine_id,
-- t_p0 … t_p(n-1) (n = 0: one plain table), keeping its columns (with
-- their defaults, collations, compression), rows and secondary indexes.
-- Nothing may depend on t (no key, foreign key, view or policy: they
-- are made after). Already so laid out: nothing to do. A migration that
-- makes a machine-owned table calls it with pidex_partitions() before
-- adding the table's keys, so that every table of a partitioned catalog
-- is partitioned.
-- +goose StatementBegin
CREATE FUNCTION pidex_layout(t text, n integer) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    s name := current_schema();
    rel oid := format('%I.%I', s, t)::regclass;
    old text := t || '_unlaid';
    defs text[];
    d text;
    have integer;
BEGIN
    IF n < 0 OR n > 1024 THEN
        RAISE EXCEPTION 'pidex.partitions is %: give a number of partitions from 0 (none) to 1024', n;
    END IF;
    SELECT CASE WHEN c.relkind = 'p' THEN (SELECT count(*) FROM pg_inherits i WHERE i.inhparent = c.oid) ELSE 0 END
      INTO have FROM pg_class c WHERE c.oid = rel;
    IF have = n THEN
        RETURN;
    END IF;
    SELECT array_agg(pg_get_indexdef(i.indexrelid) ORDER BY i.indexrelid) INTO defs FROM pg_index i WHERE i.indrelid = rel;
    EXECUTE format('ALTER TABLE %I.%I RENAME TO %I', s, t, old);
    EXECUTE format('CREATE TABLE %I.%I (LIKE %I.%I INCLUDING DEFAULTS INCLUDING COMPRESSION INCLUDING STORAGE)%s',
        s, t, s, old, CASE WHEN n > 0 THEN ' PARTITION BY HASH (machine_id)' ELSE '' END);
    FOR i IN 0 .. n - 1 LOOP
        EXECUTE format('CREATE TABLE %I.%I PARTITION OF %I.%I FOR VALUES WITH (MODULUS %s, REMAINDER %s)',
            s, t || '_p' || i, s, t, n, i);
    END LOOP;
    EXECUTE format('INSERT INTO %I.%I SELECT * FROM %I.%I', s, t, s, old);
    EXECUTE format('DROP TABLE %I.%I', s, old);
    FOREACH d IN ARRAY COALESCE(defs, '{}') LOOP
        EXECUTE replace(d, ' ON ONLY ', ' ON ');
    END LOOP;
END $$;
-- +goose StatementEnd
REVOKE ALL ON FUNCTION pidex_layout(text, integer) FROM PUBLIC;

-- What depends on the old keys goes first: the views, the call flags'
-- derivation (bound to usage_xm's columns), every key and foreign key of
-- the machine-owned tables and the indexes that change.
DROP VIEW tool_uses_v, activity_v, labels_v, usage_v, active_path_v, _active_offsets, tool_calls_v,
    messages_v, entries_v, sessions_v;
DROP FUNCTION pidex_derive_calls(text[]);
-- +goose StatementBegin
DO $$
DECLARE
    c record;
BEGIN
    FOR c IN SELECT k.conrelid::regclass AS rel, k.conname FROM pg_constraint k
              WHERE k.conrelid = ANY (SELECT format('%I.%I', current_schema(), tn)::regclass FROM unnest(pidex_machine_tables()) tn)
                AND k.contype IN ('p', 'u', 'f')
              ORDER BY k.contype = 'f' DESC LOOP
        EXECUTE format('ALTER TABLE %s DROP CONSTRAINT %I', c.rel, c.conname);
    END LOOP;
END $$;
-- +goose StatementEnd
DROP INDEX sessions_machine, entries_id, edges_parent, warnings_file, activity_tools_by_file, activity_tools_file_by_file;

-- files.id: from a sequence (see above), the next number where the
-- identity was.
ALTER TABLE files ALTER COLUMN id DROP IDENTITY;
CREATE SEQUENCE file_ids AS bigint;
SELECT setval('file_ids', COALESCE(max(id), 0) + 1, false) FROM files;
ALTER TABLE files ALTER COLUMN id SET DEFAULT nextval('file_ids');

-- usage_xm: its row's machine.
ALTER TABLE usage_xm ADD COLUMN machine_id integer;
UPDATE usage_xm x SET machine_id = u.machine_id FROM usage u WHERE u.file_id = x.file_id AND u."offset" = x."offset";
DELETE FROM usage_xm WHERE machine_id IS NULL;
ALTER TABLE usage_xm ALTER COLUMN machine_id SET NOT NULL;

-- The layout.
INSERT INTO meta (key, value)
VALUES ('partitions', COALESCE(NULLIF(current_setting('pidex.partitions', true), ''), '0')::integer::text)
ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value;
SELECT pidex_layout(t, pidex_partitions()) FROM unnest(pidex_machine_tables()) t;
ALTER SEQUENCE file_ids OWNED BY files.id;

-- The keys.
ALTER TABLE files ADD PRIMARY KEY (machine_id, id), ADD UNIQUE (machine_id, path),
    ADD FOREIGN KEY (machine_id) REFERENCES machines ON DELETE CASCADE;
-- A read that knows a file's id, not its machine (a session reference),
-- finds the file here.
CREATE INDEX files_id ON files (id);
ALTER TABLE sessions ADD PRIMARY KEY (machine_id, file_id),
    ADD FOREIGN KEY (machine_id, file_id) REFERENCES files (machine_id, id) ON DELETE CASCADE;
ALTER TABLE entries ADD PRIMARY KEY (machine_id, file_id, "offset"),
    ADD FOREIGN KEY (machine_id, file_id) REFERENCES files (machine_id, id) ON DELETE CASCADE;
CREATE INDEX entries_id ON entries (machine_id, file_id, id);
ALTER TABLE entry_lines ADD PRIMARY KEY (machine_id, file_id, "offset"),
    ADD FOREIGN KEY (machine_id, file_id, "offset") REFERENCES entries (machine_id, file_id, "offset") ON DELETE CASCADE;
ALTER TABLE entry_text ADD PRIMARY KEY (machine_id, file_id, "offset"),
    ADD FOREIGN KEY (machine_id, file_id, "offset") REFERENCES entries (machine_id, file_id, "offset") ON DELETE CASCADE;
ALTER TABLE text_index ADD PRIMARY KEY (machine_id, file_id, "offset", part),
    ADD FOREIGN KEY (machine_id, file_id, "offset") REFERENCES entries (machine_id, file_id, "offset") ON DELETE CASCADE;
ALTER TABLE edges ADD PRIMARY KEY (machine_id, file_id, child_id),
    ADD FOREIGN KEY (machine_id, file_id) REFERENCES files (machine_id, id) ON DELETE CASCADE;
CREATE INDEX edges_parent ON edges (machine_id, file_id, parent_id);
ALTER TABLE labels ADD PRIMARY KEY (machine_id, file_id, target_id),
    ADD FOREIGN KEY (machine_id, file_id) REFERENCES files (machine_id, id) ON DELETE CASCADE;
ALTER TABLE usage ADD PRIMARY KEY (machine_id, file_id, "offset"),
    ADD FOREIGN KEY (machine_id, file_id) REFERENCES files (machine_id, id) ON DELETE CASCADE;
ALTER TABLE usage_xm ADD PRIMARY KEY (machine_id, file_id, "offset"),
    ADD FOREIGN KEY (machine_id, file_id, "offset") REFERENCES usage (machine_id, file_id, "offset") ON DELETE CASCADE;
ALTER TABLE usage_rollup ADD PRIMARY KEY (machine_id, file_id, bucket, provider, model, source, is_copy, active, zero_cost),
    ADD FOREIGN KEY (machine_id, file_id) REFERENCES files (machine_id, id) ON DELETE CASCADE;
ALTER TABLE usage_rollup_hour ADD PRIMARY KEY (machine_id, file_id, bucket, provider, model, source, is_copy, active, zero_cost),
    ADD FOREIGN KEY (machine_id, file_id) REFERENCES files (machine_id, id) ON DELETE CASCADE;
ALTER TABLE tool_calls ADD PRIMARY KEY (machine_id, file_id, call_id, "offset", idx),
    ADD FOREIGN KEY (machine_id, file_id) REFERENCES files (machine_id, id) ON DELETE CASCADE;
ALTER TABLE warnings ADD FOREIGN KEY (machine_id, file_id) REFERENCES files (machine_id, id) ON DELETE CASCADE;
CREATE INDEX warnings_file ON warnings (machine_id, file_id);
ALTER TABLE session_activity ADD PRIMARY KEY (machine_id, file_id),
    ADD FOREIGN KEY (machine_id, file_id) REFERENCES files (machine_id, id) ON DELETE CASCADE;
ALTER TABLE activity ADD PRIMARY KEY (machine_id, file_id, bucket, provider, model, active),
    ADD FOREIGN KEY (machine_id, file_id) REFERENCES files (machine_id, id) ON DELETE CASCADE;
ALTER TABLE activity_tools ADD PRIMARY KEY (machine_id, file_id, kind, name, bucket, provider, model, active),
    ADD FOREIGN KEY (machine_id, file_id) REFERENCES files (machine_id, id) ON DELETE CASCADE;
ALTER TABLE activity_file ADD PRIMARY KEY (machine_id, file_id, provider, model, active),
    ADD FOREIGN KEY (machine_id, file_id) REFERENCES files (machine_id, id) ON DELETE CASCADE;
ALTER TABLE activity_tools_file ADD PRIMARY KEY (machine_id, file_id, kind, name, provider, model, active),
    ADD FOREIGN KEY (machine_id, file_id) REFERENCES files (machine_id, id) ON DELETE CASCADE;
ALTER TABLE activity_events ADD PRIMARY KEY (machine_id, file_id, "offset"),
    ADD FOREIGN KEY (machine_id, file_id) REFERENCES files (machine_id, id) ON DELETE CASCADE;

-- Row-level security as 00009 made it, on the tables laid out again (a
-- partitioned table's policies hold for its partitions, read through it;
-- the partitions themselves have none, so pidex_grant lets the groups
-- only read them). usage_xm has none: only pidex_derive_calls writes it.
-- +goose StatementBegin
DO $$
DECLARE
    t text;
BEGIN
    FOREACH t IN ARRAY array_remove(pidex_machine_tables(), 'usage_xm') LOOP
        EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', t);
        EXECUTE format('DROP POLICY IF EXISTS pidex_read ON %I', t);
        EXECUTE format('DROP POLICY IF EXISTS pidex_own ON %I', t);
        EXECUTE format('CREATE POLICY pidex_read ON %I FOR SELECT USING (true)', t);
        EXECUTE format('CREATE POLICY pidex_own ON %I FOR ALL
            USING (machine_id IN (SELECT m.id FROM machines m JOIN machine_roles r ON r.machine = m.name WHERE r.role = current_user))
            WITH CHECK (machine_id IN (SELECT m.id FROM machines m JOIN machine_roles r ON r.machine = m.name WHERE r.role = current_user))', t);
    END LOOP;
END $$;
-- +goose StatementEnd

-- The call flags' derivation (00009), with the machine of each row.
-- +goose StatementBegin
CREATE FUNCTION pidex_derive_calls(touched text[]) RETURNS void
LANGUAGE sql SECURITY DEFINER
BEGIN ATOMIC
    SELECT one FROM calls_lock FOR UPDATE;
    DELETE FROM usage_xm x USING usage u
     WHERE u.machine_id = x.machine_id AND u.file_id = x.file_id AND u."offset" = x."offset" AND u.entry_id = ANY (touched);
    INSERT INTO usage_xm (machine_id, file_id, "offset", is_copy, call_active)
    SELECT machine_id, file_id, "offset", g_copy, g_active FROM (
        SELECT u.machine_id, u.file_id, u."offset", u.is_copy, u.call_active,
               row_number() OVER (call ORDER BY COALESCE(s.created_ms, 0), f.path, m.name, u."offset") > 1 AS g_copy,
               bool_or(u.on_path) OVER call AS g_active
          FROM usage u JOIN files f ON f.machine_id = u.machine_id AND f.id = u.file_id JOIN machines m ON m.id = u.machine_id
          LEFT JOIN sessions s ON s.machine_id = u.machine_id AND s.file_id = u.file_id
         WHERE u.entry_id IN (SELECT entry_id FROM usage WHERE entry_id = ANY (touched)
                GROUP BY entry_id HAVING count(DISTINCT machine_id) > 1)
        WINDOW call AS (PARTITION BY u.entry_id, u.source, u.ts_ms, u.input, u.output, u.cache_read, u.cache_write)) k
     WHERE (g_copy, g_active) IS DISTINCT FROM (is_copy, call_active);
END;
-- +goose StatementEnd
REVOKE ALL ON FUNCTION pidex_derive_calls(text[]) FROM PUBLIC;

-- The views of 00003, 00006 and 00008, joined by machine and file.
CREATE VIEW sessions_v AS
SELECT s.session_id AS session_id, f.path AS path, s.cwd AS cwd,
       regexp_replace(s.cwd, '^.*/', '') AS project,
       s.name AS name, s.version AS version,
       NULLIF(s.parent_session, '') AS parent_session_path,
       s.created_ms AS created_ms,
       CASE WHEN s.last_activity_ms > 0 THEN s.last_activity_ms
            WHEN s.created_ms IS NOT NULL THEN s.created_ms ELSE f.mtime_ns / 1000000 END AS modified_ms,
       s.message_count AS message_count, COALESCE(s.first_message, '(no messages)') AS first_message,
       s.entry_count AS entry_count, s.leaf_id AS leaf_id, s.branch_points AS branch_points,
       s.models AS models, s.input AS input, s.output AS output, s.cache_read AS cache_read,
       s.cache_write AS cache_write, s.total_tokens AS total_tokens, s.cost AS cost, f.size AS size_bytes,
       s.source AS source, NULLIF(s.spawned_by, '') AS spawned_by, NULLIF(s.run, '') AS run, m.name AS machine
FROM sessions s JOIN files f ON f.machine_id = s.machine_id AND f.id = s.file_id JOIN machines m ON m.id = s.machine_id;

CREATE VIEW entries_v AS
SELECT s.session_id AS session_id, f.path AS path, e.offset AS "offset", e.line AS line, e.id AS id,
       e.length AS length, e.parent_id AS parent_id, e.type AS type, e.role AS role, e.ts AS timestamp,
       e.ts_ms AS ts_ms, e.provider AS provider, e.model AS model, COALESCE(t.text, '') AS text,
       m.name AS machine
FROM entries e JOIN sessions s ON s.machine_id = e.machine_id AND s.file_id = e.file_id
JOIN files f ON f.machine_id = e.machine_id AND f.id = e.file_id
JOIN machines m ON m.id = e.machine_id
LEFT JOIN entry_text t ON t.machine_id = e.machine_id AND t.file_id = e.file_id AND t.offset = e.offset;

CREATE VIEW messages_v AS
SELECT session_id, path, "offset", line, id, length, parent_id, role, timestamp, ts_ms, provider, model, text, machine
FROM entries_v WHERE type = 'message';

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

CREATE VIEW _active_offsets AS
WITH RECURSIVE walk(machine_id, file_id, id, depth) AS (
    SELECT machine_id, file_id, leaf_id, 0 FROM sessions WHERE leaf_id IS NOT NULL
    UNION ALL
    SELECT w.machine_id, w.file_id, ed.parent_id, w.depth + 1 FROM walk w
    JOIN edges ed ON ed.machine_id = w.machine_id AND ed.file_id = w.file_id AND ed.child_id = w.id
    WHERE ed.parent_id IS NOT NULL AND w.depth < 1000000)
SELECT w.file_id AS file_id, ed.offset AS "offset", w.id AS id, w.depth AS depth, w.machine_id AS machine_id
FROM walk w JOIN edges ed ON ed.machine_id = w.machine_id AND ed.file_id = w.file_id AND ed.child_id = w.id;

CREATE VIEW active_path_v AS
SELECT s.session_id AS session_id, f.path AS path, a.offset AS "offset", a.id AS id, a.depth AS depth,
       m.name AS machine
FROM _active_offsets a JOIN sessions s ON s.machine_id = a.machine_id AND s.file_id = a.file_id
JOIN files f ON f.machine_id = a.machine_id AND f.id = a.file_id
JOIN machines m ON m.id = a.machine_id;

CREATE VIEW usage_v AS
SELECT s.session_id AS session_id, f.path AS path, u.offset AS "offset", u.entry_id AS entry_id,
       u.source AS source, u.kind AS kind, u.provider AS provider, u.model AS model,
       u.input AS input, u.output AS output, u.cache_read AS cache_read, u.cache_write AS cache_write,
       u.cache_write_1h AS cache_write_1h, u.reasoning AS reasoning, u.total_tokens AS total_tokens,
       u.cost_total AS cost, u.cost_input AS cost_input, u.cost_output AS cost_output,
       u.cost_cache_read AS cost_cache_read, u.cost_cache_write AS cost_cache_write, u.ts_ms AS ts_ms,
       COALESCE(x.is_copy, u.is_copy)::int AS is_fork_copy, u.on_path::int AS on_active_path,
       m.name AS machine
FROM usage u JOIN sessions s ON s.machine_id = u.machine_id AND s.file_id = u.file_id
JOIN files f ON f.machine_id = u.machine_id AND f.id = u.file_id
JOIN machines m ON m.id = u.machine_id
LEFT JOIN usage_xm x ON x.machine_id = u.machine_id AND x.file_id = u.file_id AND x.offset = u.offset;

CREATE VIEW labels_v AS
SELECT s.session_id AS session_id, f.path AS path, l.target_id AS target_id, l.label AS label,
       l.ts AS timestamp, l.offset AS label_offset, m.name AS machine
FROM labels l JOIN sessions s ON s.machine_id = l.machine_id AND s.file_id = l.file_id
JOIN files f ON f.machine_id = l.machine_id AND f.id = l.file_id
JOIN machines m ON m.id = l.machine_id;

CREATE VIEW activity_v AS
SELECT s.session_id AS session_id, f.path AS path, e.offset AS "offset", e.line AS line, e.id AS id, e.type AS type,
       e.role AS role, e.ts_ms AS ts_ms, e.provider AS provider, e.model AS model, e.stop_reason AS stop_reason,
       e.error AS error, e.tokens_before AS tokens_before, e.command AS command,
       CASE WHEN e.offset >= a.counted_from AND NOT EXISTS (SELECT 1 FROM sessions s2
           JOIN files f2 ON f2.machine_id = s2.machine_id AND f2.id = s2.file_id
           JOIN entries e2 ON e2.machine_id = s2.machine_id AND e2.file_id = s2.file_id AND e2.id = e.id
                AND e2.ts_ms IS NOT DISTINCT FROM e.ts_ms
           WHERE s2.session_id = s.session_id AND s2.file_id != s.file_id AND f2.path < f.path)
       THEN 1 ELSE 0 END AS counted, m.name AS machine
FROM entries e JOIN sessions s ON s.machine_id = e.machine_id AND s.file_id = e.file_id
JOIN files f ON f.machine_id = e.machine_id AND f.id = e.file_id
JOIN machines m ON m.id = e.machine_id
JOIN session_activity a ON a.machine_id = e.machine_id AND a.file_id = e.file_id;

CREATE VIEW tool_uses_v AS
SELECT s.session_id AS session_id, f.path AS path, t.offset AS "offset", e.id AS entry_id, t.call_id AS call_id,
       t.name AS tool, t.command AS command, e.ts_ms AS ts_ms,
       r.offset AS result_offset, r.is_error::int AS is_error, r.size AS result_size, re.ts_ms - e.ts_ms AS duration_ms,
       CASE WHEN t.offset >= a.counted_from AND NOT EXISTS (SELECT 1 FROM sessions s2
           JOIN files f2 ON f2.machine_id = s2.machine_id AND f2.id = s2.file_id
           JOIN entries e2 ON e2.machine_id = s2.machine_id AND e2.file_id = s2.file_id AND e2.id = e.id
                AND e2.ts_ms IS NOT DISTINCT FROM e.ts_ms
           WHERE s2.session_id = s.session_id AND s2.file_id != s.file_id AND f2.path < f.path)
       THEN 1 ELSE 0 END AS counted, m.name AS machine
FROM tool_calls t JOIN sessions s ON s.machine_id = t.machine_id AND s.file_id = t.file_id
JOIN files f ON f.machine_id = t.machine_id AND f.id = t.file_id
JOIN machines m ON m.id = t.machine_id
JOIN entries e ON e.machine_id = t.machine_id AND e.file_id = t.file_id AND e.offset = t.offset
JOIN session_activity a ON a.machine_id = t.machine_id AND a.file_id = t.file_id
LEFT JOIN tool_calls r ON r.machine_id = t.machine_id AND r.file_id = t.file_id AND r.call_id = t.call_id AND r.idx = -1
    AND r.offset = (SELECT min(r2.offset) FROM tool_calls r2
                    WHERE r2.machine_id = t.machine_id AND r2.file_id = t.file_id AND r2.call_id = t.call_id
                      AND r2.idx = -1 AND r2.offset > t.offset)
LEFT JOIN entries re ON re.machine_id = r.machine_id AND re.file_id = r.file_id AND re.offset = r.offset
WHERE t.idx >= 0;

-- entry_json and entry_text (00003), through the keys.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION entry_json(path text, "offset" bigint, length bigint DEFAULT NULL) RETURNS text
LANGUAGE plpgsql STABLE AS $$
DECLARE
    line text;
    n integer;
BEGIN
    SELECT convert_from(l.raw, 'UTF8'), count(*) OVER () INTO line, n
      FROM entry_lines l JOIN files f ON f.machine_id = l.machine_id AND f.id = l.file_id
     WHERE f.path = entry_json.path AND l.offset = entry_json."offset" LIMIT 1;
    IF n > 1 THEN
        RAISE EXCEPTION 'entry_json: % is a file of % machines (read entry_lines with files.machine_id)', path, n;
    END IF;
    RETURN line;
END $$;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION entry_text(path text, "offset" bigint, length bigint DEFAULT NULL) RETURNS text
LANGUAGE plpgsql STABLE AS $$
DECLARE
    body text;
    n integer;
BEGIN
    SELECT COALESCE(t.text, ''), count(*) OVER () INTO body, n
      FROM entries e JOIN files f ON f.machine_id = e.machine_id AND f.id = e.file_id
      LEFT JOIN entry_text t ON t.machine_id = e.machine_id AND t.file_id = e.file_id AND t.offset = e.offset
     WHERE f.path = entry_text.path AND e.offset = entry_text."offset" LIMIT 1;
    IF n > 1 THEN
        RAISE EXCEPTION 'entry_text: % is a file of % machines (read entry_text with files.machine_id)', path, n;
    END IF;
    RETURN body;
END $$;
-- +goose StatementEnd

-- +goose Down
-- Plain tables with 00010's keys, rows kept (a partitioned catalog's rows
-- are copied back into one table each).
DROP VIEW tool_uses_v, activity_v, labels_v, usage_v, active_path_v, _active_offsets, tool_calls_v,
    messages_v, entries_v, sessions_v;
DROP FUNCTION pidex_derive_calls(text[]);
-- +goose StatementBegin
DO $$
DECLARE
    c record;
    t text;
BEGIN
    FOR c IN SELECT k.conrelid::regclass AS rel, k.conname FROM pg_constraint k
              WHERE k.conrelid = ANY (SELECT format('%I.%I', current_schema(), tn)::regclass FROM unnest(pidex_machine_tables()) tn)
                AND k.contype IN ('p', 'u', 'f') AND k.conparentid = 0
              ORDER BY k.contype = 'f' DESC LOOP
        EXECUTE format('ALTER TABLE %s DROP CONSTRAINT %I', c.rel, c.conname);
    END LOOP;
    FOREACH t IN ARRAY pidex_machine_tables() LOOP
        EXECUTE format('DROP POLICY IF EXISTS pidex_read ON %I', t);
        EXECUTE format('DROP POLICY IF EXISTS pidex_own ON %I', t);
    END LOOP;
END $$;
-- +goose StatementEnd
DROP INDEX files_id, entries_id, edges_parent, warnings_file;
ALTER SEQUENCE file_ids OWNED BY NONE;
SELECT pidex_layout(t, 0) FROM unnest(pidex_machine_tables()) t;
ALTER TABLE files ALTER COLUMN id DROP DEFAULT;
DROP SEQUENCE file_ids;
ALTER TABLE files ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY;
SELECT setval(pg_get_serial_sequence('files', 'id'), COALESCE(max(id), 0) + 1, false) FROM files;
ALTER TABLE usage_xm DROP COLUMN machine_id;
DELETE FROM meta WHERE key = 'partitions';

ALTER TABLE files ADD PRIMARY KEY (id), ADD UNIQUE (machine_id, path), ADD UNIQUE (machine_id, id),
    ADD FOREIGN KEY (machine_id) REFERENCES machines ON DELETE CASCADE;
ALTER TABLE sessions ADD PRIMARY KEY (file_id),
    ADD FOREIGN KEY (machine_id, file_id) REFERENCES files (machine_id, id) ON DELETE CASCADE;
CREATE INDEX sessions_machine ON sessions (machine_id);
ALTER TABLE entries ADD PRIMARY KEY (file_id, "offset"),
    ADD FOREIGN KEY (machine_id, file_id) REFERENCES files (machine_id, id) ON DELETE CASCADE;
CREATE INDEX entries_id ON entries (file_id, id);
ALTER TABLE entry_lines ADD PRIMARY KEY (file_id, "offset"),
    ADD FOREIGN KEY (file_id, "offset") REFERENCES entries (file_id, "offset") ON DELETE CASCADE,
    ADD FOREIGN KEY (machine_id, file_id) REFERENCES files (machine_id, id) ON DELETE CASCADE;
ALTER TABLE entry_text ADD PRIMARY KEY (file_id, "offset"),
    ADD FOREIGN KEY (file_id, "offset") REFERENCES entries (file_id, "offset") ON DELETE CASCADE,
    ADD FOREIGN KEY (machine_id, file_id) REFERENCES files (machine_id, id) ON DELETE CASCADE;
ALTER TABLE text_index ADD PRIMARY KEY (file_id, "offset", part),
    ADD FOREIGN KEY (file_id, "offset") REFERENCES entries (file_id, "offset") ON DELETE CASCADE,
    ADD FOREIGN KEY (machine_id, file_id) REFERENCES files (machine_id, id) ON DELETE CASCADE;
ALTER TABLE edges ADD PRIMARY KEY (file_id, child_id),
    ADD FOREIGN KEY (machine_id, file_id) REFERENCES files (machine_id, id) ON DELETE CASCADE;
CREATE INDEX edges_parent ON edges (file_id, parent_id);
ALTER TABLE labels ADD PRIMARY KEY (file_id, target_id),
    ADD FOREIGN KEY (machine_id, file_id) REFERENCES files (machine_id, id) ON DELETE CASCADE;
ALTER TABLE usage ADD PRIMARY KEY (file_id, "offset"),
    ADD FOREIGN KEY (machine_id, file_id) REFERENCES files (machine_id, id) ON DELETE CASCADE;
ALTER TABLE usage_xm ADD PRIMARY KEY (file_id, "offset"),
    ADD FOREIGN KEY (file_id, "offset") REFERENCES usage (file_id, "offset") ON DELETE CASCADE;
ALTER TABLE usage_rollup ADD PRIMARY KEY (file_id, bucket, provider, model, source, is_copy, active, zero_cost),
    ADD FOREIGN KEY (machine_id, file_id) REFERENCES files (machine_id, id) ON DELETE CASCADE;
ALTER TABLE usage_rollup_hour ADD PRIMARY KEY (file_id, bucket, provider, model, source, is_copy, active, zero_cost),
    ADD FOREIGN KEY (machine_id, file_id) REFERENCES files (machine_id, id) ON DELETE CASCADE;
ALTER TABLE tool_calls ADD PRIMARY KEY (file_id, call_id, "offset", idx),
    ADD FOREIGN KEY (machine_id, file_id) REFERENCES files (machine_id, id) ON DELETE CASCADE;
ALTER TABLE warnings ADD FOREIGN KEY (machine_id, file_id) REFERENCES files (machine_id, id) ON DELETE CASCADE;
CREATE INDEX warnings_file ON warnings (file_id);
ALTER TABLE session_activity ADD PRIMARY KEY (file_id),
    ADD FOREIGN KEY (machine_id, file_id) REFERENCES files (machine_id, id) ON DELETE CASCADE;
ALTER TABLE activity ADD PRIMARY KEY (file_id, bucket, provider, model, active),
    ADD FOREIGN KEY (machine_id, file_id) REFERENCES files (machine_id, id) ON DELETE CASCADE;
ALTER TABLE activity_tools ADD PRIMARY KEY (kind, name, file_id, bucket, provider, model, active),
    ADD FOREIGN KEY (machine_id, file_id) REFERENCES files (machine_id, id) ON DELETE CASCADE;
CREATE INDEX activity_tools_by_file ON activity_tools (file_id);
ALTER TABLE activity_file ADD PRIMARY KEY (file_id, provider, model, active),
    ADD FOREIGN KEY (machine_id, file_id) REFERENCES files (machine_id, id) ON DELETE CASCADE;
ALTER TABLE activity_tools_file ADD PRIMARY KEY (kind, name, file_id, provider, model, active),
    ADD FOREIGN KEY (machine_id, file_id) REFERENCES files (machine_id, id) ON DELETE CASCADE;
CREATE INDEX activity_tools_file_by_file ON activity_tools_file (file_id);
ALTER TABLE activity_events ADD PRIMARY KEY (file_id, "offset"),
    ADD FOREIGN KEY (machine_id, file_id) REFERENCES files (machine_id, id) ON DELETE CASCADE;
DROP FUNCTION pidex_layout(text, integer);
DROP FUNCTION pidex_partitions();

-- +goose StatementBegin
DO $$
DECLARE
    t text;
BEGIN
    FOREACH t IN ARRAY array_remove(pidex_machine_tables(), 'usage_xm') LOOP
        EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', t);
        EXECUTE format('CREATE POLICY pidex_read ON %I FOR SELECT USING (true)', t);
        EXECUTE format('CREATE POLICY pidex_own ON %I FOR ALL
            USING (machine_id IN (SELECT m.id FROM machines m JOIN machine_roles r ON r.machine = m.name WHERE r.role = current_user))
            WITH CHECK (machine_id IN (SELECT m.id FROM machines m JOIN machine_roles r ON r.machine = m.name WHERE r.role = current_user))', t);
    END LOOP;
END $$;
-- +goose StatementEnd
DROP FUNCTION pidex_machine_tables();

-- +goose StatementBegin
CREATE FUNCTION pidex_derive_calls(touched text[]) RETURNS void
LANGUAGE sql SECURITY DEFINER
BEGIN ATOMIC
    SELECT one FROM calls_lock FOR UPDATE;
    DELETE FROM usage_xm x USING usage u
     WHERE u.file_id = x.file_id AND u."offset" = x."offset" AND u.entry_id = ANY (touched);
    INSERT INTO usage_xm (file_id, "offset", is_copy, call_active)
    SELECT file_id, "offset", g_copy, g_active FROM (
        SELECT u.file_id, u."offset", u.is_copy, u.call_active,
               row_number() OVER (call ORDER BY COALESCE(s.created_ms, 0), f.path, m.name, u."offset") > 1 AS g_copy,
               bool_or(u.on_path) OVER call AS g_active
          FROM usage u JOIN files f ON f.id = u.file_id JOIN machines m ON m.id = f.machine_id
          LEFT JOIN sessions s ON s.file_id = u.file_id
         WHERE u.entry_id IN (SELECT entry_id FROM usage WHERE entry_id = ANY (touched)
                GROUP BY entry_id HAVING count(DISTINCT machine_id) > 1)
        WINDOW call AS (PARTITION BY u.entry_id, u.source, u.ts_ms, u.input, u.output, u.cache_read, u.cache_write)) k
     WHERE (g_copy, g_active) IS DISTINCT FROM (is_copy, call_active);
END;
-- +goose StatementEnd
REVOKE ALL ON FUNCTION pidex_derive_calls(text[]) FROM PUBLIC;

-- The views as 00003, 00006 and 00008 left them.
CREATE VIEW sessions_v AS
SELECT s.session_id AS session_id, f.path AS path, s.cwd AS cwd,
       regexp_replace(s.cwd, '^.*/', '') AS project,
       s.name AS name, s.version AS version,
       NULLIF(s.parent_session, '') AS parent_session_path,
       s.created_ms AS created_ms,
       CASE WHEN s.last_activity_ms > 0 THEN s.last_activity_ms
            WHEN s.created_ms IS NOT NULL THEN s.created_ms ELSE f.mtime_ns / 1000000 END AS modified_ms,
       s.message_count AS message_count, COALESCE(s.first_message, '(no messages)') AS first_message,
       s.entry_count AS entry_count, s.leaf_id AS leaf_id, s.branch_points AS branch_points,
       s.models AS models, s.input AS input, s.output AS output, s.cache_read AS cache_read,
       s.cache_write AS cache_write, s.total_tokens AS total_tokens, s.cost AS cost, f.size AS size_bytes,
       s.source AS source, NULLIF(s.spawned_by, '') AS spawned_by, NULLIF(s.run, '') AS run, m.name AS machine
FROM sessions s JOIN files f ON f.id = s.file_id JOIN machines m ON m.id = f.machine_id;

CREATE VIEW entries_v AS
SELECT s.session_id AS session_id, f.path AS path, e.offset AS "offset", e.line AS line, e.id AS id,
       e.length AS length, e.parent_id AS parent_id, e.type AS type, e.role AS role, e.ts AS timestamp,
       e.ts_ms AS ts_ms, e.provider AS provider, e.model AS model, COALESCE(t.text, '') AS text,
       m.name AS machine
FROM entries e JOIN sessions s ON s.file_id = e.file_id JOIN files f ON f.id = e.file_id
JOIN machines m ON m.id = f.machine_id
LEFT JOIN entry_text t ON t.file_id = e.file_id AND t.offset = e.offset;

CREATE VIEW messages_v AS
SELECT session_id, path, "offset", line, id, length, parent_id, role, timestamp, ts_ms, provider, model, text, machine
FROM entries_v WHERE type = 'message';

CREATE VIEW tool_calls_v AS
SELECT s.session_id AS session_id, f.path AS path, t.offset AS "offset", e.id AS entry_id, t.call_id AS call_id,
       t.name AS tool,
       (SELECT CASE json_typeof(a) WHEN 'string' THEN a #>> '{}' WHEN 'null' THEN NULL ELSE a::text END
          FROM (SELECT convert_from(l.raw, 'UTF8')::json -> 'message' -> 'content' -> t.idx -> 'arguments' AS a
                  FROM entry_lines l WHERE l.file_id = t.file_id AND l.offset = t.offset) x) AS arguments,
       r.offset AS result_offset,
       CASE WHEN r.offset IS NOT NULL THEN COALESCE(rt.text, '') END AS result_text,
       r.is_error::int AS is_error, e.ts_ms AS ts_ms, re.ts_ms - e.ts_ms AS duration_ms,
       m.name AS machine
FROM tool_calls t JOIN sessions s ON s.file_id = t.file_id JOIN files f ON f.id = t.file_id
JOIN machines m ON m.id = f.machine_id
JOIN entries e ON e.file_id = t.file_id AND e.offset = t.offset
LEFT JOIN tool_calls r ON r.file_id = t.file_id AND r.call_id = t.call_id AND r.idx = -1
    AND r.offset = (SELECT min(r2.offset) FROM tool_calls r2
                    WHERE r2.file_id = t.file_id AND r2.call_id = t.call_id AND r2.idx = -1 AND r2.offset > t.offset)
LEFT JOIN entries re ON re.file_id = r.file_id AND re.offset = r.offset
LEFT JOIN entry_text rt ON rt.file_id = r.file_id AND rt.offset = r.offset
WHERE t.idx >= 0;

CREATE VIEW _active_offsets AS
WITH RECURSIVE walk(file_id, id, depth) AS (
    SELECT file_id, leaf_id, 0 FROM sessions WHERE leaf_id IS NOT NULL
    UNION ALL
    SELECT w.file_id, ed.parent_id, w.depth + 1 FROM walk w
    JOIN edges ed ON ed.file_id = w.file_id AND ed.child_id = w.id
    WHERE ed.parent_id IS NOT NULL AND w.depth < 1000000)
SELECT w.file_id AS file_id, ed.offset AS "offset", w.id AS id, w.depth AS depth
FROM walk w JOIN edges ed ON ed.file_id = w.file_id AND ed.child_id = w.id;

CREATE VIEW active_path_v AS
SELECT s.session_id AS session_id, f.path AS path, a.offset AS "offset", a.id AS id, a.depth AS depth,
       m.name AS machine
FROM _active_offsets a JOIN sessions s ON s.file_id = a.file_id JOIN files f ON f.id = a.file_id
JOIN machines m ON m.id = f.machine_id;

CREATE VIEW usage_v AS
SELECT s.session_id AS session_id, f.path AS path, u.offset AS "offset", u.entry_id AS entry_id,
       u.source AS source, u.kind AS kind, u.provider AS provider, u.model AS model,
       u.input AS input, u.output AS output, u.cache_read AS cache_read, u.cache_write AS cache_write,
       u.cache_write_1h AS cache_write_1h, u.reasoning AS reasoning, u.total_tokens AS total_tokens,
       u.cost_total AS cost, u.cost_input AS cost_input, u.cost_output AS cost_output,
       u.cost_cache_read AS cost_cache_read, u.cost_cache_write AS cost_cache_write, u.ts_ms AS ts_ms,
       COALESCE(x.is_copy, u.is_copy)::int AS is_fork_copy, u.on_path::int AS on_active_path,
       m.name AS machine
FROM usage u JOIN sessions s ON s.file_id = u.file_id JOIN files f ON f.id = u.file_id
JOIN machines m ON m.id = f.machine_id
LEFT JOIN usage_xm x ON x.file_id = u.file_id AND x.offset = u.offset;

CREATE VIEW labels_v AS
SELECT s.session_id AS session_id, f.path AS path, l.target_id AS target_id, l.label AS label,
       l.ts AS timestamp, l.offset AS label_offset, m.name AS machine
FROM labels l JOIN sessions s ON s.file_id = l.file_id JOIN files f ON f.id = l.file_id
JOIN machines m ON m.id = f.machine_id;

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
