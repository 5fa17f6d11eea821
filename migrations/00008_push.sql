-- +goose Up
-- For pidex push (the team catalog, docs/postgres.md): derived_seq counts
-- the re-derivations of a file's usage flags and rollups (indexer/calls.go,
-- resum), which another file's change can cause (a fork changes which
-- record of a call is the original); a push compares it with the count it
-- pushed, so it re-sends those rows only for the files whose count moved.
-- (Numbered 00008: 00006 and 00007 are on another branch, harden.)
ALTER TABLE files ADD COLUMN derived_seq INTEGER NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE files DROP COLUMN derived_seq;
