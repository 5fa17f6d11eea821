-- +goose Up
-- The entries that are not on their session's current root-to-leaf path,
-- as the pushing machine's indexer found them (the local catalog's
-- migration 00023): a push replaces a file's rows whenever it changes, so
-- that `search --branch active` tests a match against them instead of
-- walking every matching session's path at each search. A machine-owned
-- table like the others: keyed by machine first, laid out in the catalog's
-- partitions, written by the machine's own roles only.
CREATE TABLE off_path (
    machine_id integer NOT NULL,
    file_id    bigint  NOT NULL,
    "offset"   bigint  NOT NULL
);
SELECT pidex_layout('off_path', pidex_partitions());
-- The sessions already pushed, from the catalog's own walk of their paths
-- (_active_offsets, the same rule): correct at once, before each machine
-- pushes again. Each step of the walk by the edges' key (this
-- transaction's settings only): the planner's own plan hashed the edges
-- at each step, over 11 minutes for 20 machines' 1.3 GB, 3.8 s so.
SET LOCAL enable_hashjoin = off;
SET LOCAL enable_mergejoin = off;
SET LOCAL enable_seqscan = off;
INSERT INTO off_path (machine_id, file_id, "offset")
SELECT e.machine_id, e.file_id, e."offset" FROM entries e
WHERE EXISTS (SELECT 1 FROM sessions s WHERE s.machine_id = e.machine_id AND s.file_id = e.file_id)
EXCEPT SELECT machine_id, file_id, "offset" FROM _active_offsets;
ALTER TABLE off_path ADD PRIMARY KEY (machine_id, file_id, "offset"),
    ADD FOREIGN KEY (machine_id, file_id) REFERENCES files (machine_id, id) ON DELETE CASCADE;
ALTER TABLE off_path ENABLE ROW LEVEL SECURITY;
CREATE POLICY pidex_read ON off_path FOR SELECT USING (true);
CREATE POLICY pidex_own ON off_path FOR ALL
    USING (machine_id IN (SELECT m.id FROM machines m JOIN machine_roles r ON r.machine = m.name WHERE r.role = current_user))
    WITH CHECK (machine_id IN (SELECT m.id FROM machines m JOIN machine_roles r ON r.machine = m.name WHERE r.role = current_user));

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION pidex_machine_tables() RETURNS text[] LANGUAGE sql IMMUTABLE
RETURN ARRAY['files', 'sessions', 'entries', 'entry_lines', 'entry_text', 'text_index', 'edges', 'labels',
    'usage', 'usage_xm', 'usage_rollup', 'usage_rollup_hour', 'tool_calls', 'warnings', 'session_activity',
    'activity', 'activity_tools', 'activity_file', 'activity_tools_file', 'activity_events', 'off_path'];
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION pidex_machine_tables() RETURNS text[] LANGUAGE sql IMMUTABLE
RETURN ARRAY['files', 'sessions', 'entries', 'entry_lines', 'entry_text', 'text_index', 'edges', 'labels',
    'usage', 'usage_xm', 'usage_rollup', 'usage_rollup_hour', 'tool_calls', 'warnings', 'session_activity',
    'activity', 'activity_tools', 'activity_file', 'activity_tools_file', 'activity_events'];
-- +goose StatementEnd
DROP TABLE off_path;
