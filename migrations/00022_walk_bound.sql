-- +goose Up
-- A session's active path is walked for at most as many steps as the
-- session has entries, as `pidex path` walks it: a path cannot be longer
-- without a parent cycle, and bounded by a million steps, one damaged
-- session's cycle (an entry its own parent) made every read of
-- _active_offsets (active_path_v, usage_v's on_active_path) walk a million
-- steps: seconds, and a million rows of active_path_v.
DROP VIEW _active_offsets;
CREATE VIEW _active_offsets AS
WITH RECURSIVE walk(file_id, id, depth, bound) AS (
    SELECT file_id, leaf_id, 0, entry_count FROM sessions WHERE leaf_id IS NOT NULL
    UNION ALL
    SELECT w.file_id, ed.parent_id, w.depth + 1, w.bound FROM walk w
    CROSS JOIN edges ed ON ed.file_id = w.file_id AND ed.child_id = w.id
    WHERE ed.parent_id IS NOT NULL AND w.depth < w.bound)
SELECT w.file_id AS file_id, ed.offset AS offset, w.id AS id, w.depth AS depth
FROM walk w CROSS JOIN edges ed ON ed.file_id = w.file_id AND ed.child_id = w.id;

-- +goose Down
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
