-- +goose Up
-- first: the entry's token index (from 0) at a search row's position 1.
-- A window's positions are its own; with first, a reader places the
-- query's words of every window in the entry and ranks a windowed entry
-- from positions alone, as it ranks an entry of one row, instead of
-- tokenizing its text again (a push of 00004's pidex writes it: rows from
-- before are pushed again, their format differs).
ALTER TABLE text_index ADD COLUMN first integer NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE text_index DROP COLUMN first;
