-- +goose Up
-- edges a view of entries (issue 38: less work per entry), as the local
-- catalog has had it since its migration 00021: the table was a second
-- copy of each entry's id, parent id and offset, with a key and an index
-- by parent that no read used, written by every push. pi's id map: an
-- id's latest entry wins. A push no longer sends edges (push protocol 3).
DROP VIEW active_path_v, _active_offsets;
DROP TABLE edges;
CREATE VIEW edges AS
SELECT e.file_id AS file_id, e.id AS child_id, e.machine_id AS machine_id, e.parent_id AS parent_id, e.offset AS "offset"
FROM entries e
WHERE NOT EXISTS (SELECT 1 FROM entries l
                  WHERE l.machine_id = e.machine_id AND l.file_id = e.file_id AND l.id = e.id AND l.offset > e.offset);

-- 00012's and 00011's, unchanged: they now read the view.
CREATE VIEW _active_offsets AS
WITH RECURSIVE walk(machine_id, file_id, id, depth, bound) AS (
    SELECT machine_id, file_id, leaf_id, 0, entry_count FROM sessions WHERE leaf_id IS NOT NULL
    UNION ALL
    SELECT w.machine_id, w.file_id, ed.parent_id, w.depth + 1, w.bound FROM walk w
    JOIN edges ed ON ed.machine_id = w.machine_id AND ed.file_id = w.file_id AND ed.child_id = w.id
    WHERE ed.parent_id IS NOT NULL AND w.depth < w.bound)
SELECT w.file_id AS file_id, ed.offset AS "offset", w.id AS id, w.depth AS depth, w.machine_id AS machine_id
FROM walk w JOIN edges ed ON ed.machine_id = w.machine_id AND ed.file_id = w.file_id AND ed.child_id = w.id;
CREATE VIEW active_path_v AS
SELECT s.session_id AS session_id, f.path AS path, a.offset AS "offset", a.id AS id, a.depth AS depth,
       m.name AS machine
FROM _active_offsets a JOIN sessions s ON s.machine_id = a.machine_id AND s.file_id = a.file_id
JOIN files f ON f.machine_id = a.machine_id AND f.id = a.file_id
JOIN machines m ON m.id = a.machine_id;

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION pidex_machine_tables() RETURNS text[] LANGUAGE sql IMMUTABLE
RETURN ARRAY['files', 'sessions', 'entries', 'line_chunks', 'entry_text', 'text_index', 'labels',
    'usage', 'usage_xm', 'usage_rollup', 'usage_rollup_hour', 'tool_calls', 'warnings', 'session_activity',
    'activity', 'activity_tools', 'activity_file', 'activity_tools_file', 'activity_events', 'off_path'];
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION pidex_machine_tables() RETURNS text[] LANGUAGE sql IMMUTABLE
RETURN ARRAY['files', 'sessions', 'entries', 'line_chunks', 'entry_text', 'text_index', 'edges', 'labels',
    'usage', 'usage_xm', 'usage_rollup', 'usage_rollup_hour', 'tool_calls', 'warnings', 'session_activity',
    'activity', 'activity_tools', 'activity_file', 'activity_tools_file', 'activity_events', 'off_path'];
-- +goose StatementEnd
DROP VIEW active_path_v, _active_offsets;
CREATE TABLE edges_rows AS SELECT file_id, child_id, machine_id, parent_id, "offset" FROM edges WHERE child_id IS NOT NULL;
DROP VIEW edges;
CREATE TABLE edges (
    file_id    bigint  NOT NULL,
    child_id   text COLLATE "C" NOT NULL,
    machine_id integer NOT NULL,
    parent_id  text,
    "offset"   bigint  NOT NULL
);
SELECT pidex_layout('edges', pidex_partitions());
INSERT INTO edges SELECT * FROM edges_rows;
DROP TABLE edges_rows;
ALTER TABLE edges ADD PRIMARY KEY (machine_id, file_id, child_id),
    ADD FOREIGN KEY (machine_id, file_id) REFERENCES files (machine_id, id) ON DELETE CASCADE;
CREATE INDEX edges_parent ON edges (machine_id, file_id, parent_id);
ALTER TABLE edges ENABLE ROW LEVEL SECURITY;
CREATE POLICY pidex_read ON edges FOR SELECT USING (true);
CREATE POLICY pidex_own ON edges FOR ALL
    USING (machine_id IN (SELECT m.id FROM machines m JOIN machine_roles r ON r.machine = m.name WHERE r.role = current_user))
    WITH CHECK (machine_id IN (SELECT m.id FROM machines m JOIN machine_roles r ON r.machine = m.name WHERE r.role = current_user));
CREATE VIEW _active_offsets AS
WITH RECURSIVE walk(machine_id, file_id, id, depth, bound) AS (
    SELECT machine_id, file_id, leaf_id, 0, entry_count FROM sessions WHERE leaf_id IS NOT NULL
    UNION ALL
    SELECT w.machine_id, w.file_id, ed.parent_id, w.depth + 1, w.bound FROM walk w
    JOIN edges ed ON ed.machine_id = w.machine_id AND ed.file_id = w.file_id AND ed.child_id = w.id
    WHERE ed.parent_id IS NOT NULL AND w.depth < w.bound)
SELECT w.file_id AS file_id, ed.offset AS "offset", w.id AS id, w.depth AS depth, w.machine_id AS machine_id
FROM walk w JOIN edges ed ON ed.machine_id = w.machine_id AND ed.file_id = w.file_id AND ed.child_id = w.id;
CREATE VIEW active_path_v AS
SELECT s.session_id AS session_id, f.path AS path, a.offset AS "offset", a.id AS id, a.depth AS depth,
       m.name AS machine
FROM _active_offsets a JOIN sessions s ON s.machine_id = a.machine_id AND s.file_id = a.file_id
JOIN files f ON f.machine_id = a.machine_id AND f.id = a.file_id
JOIN machines m ON m.id = a.machine_id;
