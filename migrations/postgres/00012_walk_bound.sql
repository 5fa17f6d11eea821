-- +goose Up
-- A session's active path is walked for at most as many steps as the
-- session has entries, as `pidex path` walks it (the local catalog's
-- migration 00022): bounded by a million steps, one damaged session's
-- parent cycle made every read of the active paths walk a million steps.
CREATE OR REPLACE VIEW _active_offsets AS
WITH RECURSIVE walk(machine_id, file_id, id, depth, bound) AS (
    SELECT machine_id, file_id, leaf_id, 0, entry_count FROM sessions WHERE leaf_id IS NOT NULL
    UNION ALL
    SELECT w.machine_id, w.file_id, ed.parent_id, w.depth + 1, w.bound FROM walk w
    JOIN edges ed ON ed.machine_id = w.machine_id AND ed.file_id = w.file_id AND ed.child_id = w.id
    WHERE ed.parent_id IS NOT NULL AND w.depth < w.bound)
SELECT w.file_id AS file_id, ed.offset AS "offset", w.id AS id, w.depth AS depth, w.machine_id AS machine_id
FROM walk w JOIN edges ed ON ed.machine_id = w.machine_id AND ed.file_id = w.file_id AND ed.child_id = w.id;

-- +goose Down
CREATE OR REPLACE VIEW _active_offsets AS
WITH RECURSIVE walk(machine_id, file_id, id, depth) AS (
    SELECT machine_id, file_id, leaf_id, 0 FROM sessions WHERE leaf_id IS NOT NULL
    UNION ALL
    SELECT w.machine_id, w.file_id, ed.parent_id, w.depth + 1 FROM walk w
    JOIN edges ed ON ed.machine_id = w.machine_id AND ed.file_id = w.file_id AND ed.child_id = w.id
    WHERE ed.parent_id IS NOT NULL AND w.depth < 1000000)
SELECT w.file_id AS file_id, ed.offset AS "offset", w.id AS id, w.depth AS depth, w.machine_id AS machine_id
FROM walk w JOIN edges ed ON ed.machine_id = w.machine_id AND ed.file_id = w.file_id AND ed.child_id = w.id;
