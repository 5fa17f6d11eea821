-- +goose Up
-- FTS5 merges a level's segments once it holds `automerge` of them
-- (default 4). A cold text pass writes one segment per transaction, and
-- merging them was a fifth of its single writer (profiled, issue 20);
-- merging by eights moves each posting through fewer merges: the text
-- pass of the 3,000-session corpus 4 s shorter in two alternated pairs,
-- searches unchanged (BENCHMARKS.md).
INSERT INTO text_index (text_index, rank) VALUES ('automerge', 8);

-- +goose Down
INSERT INTO text_index (text_index, rank) VALUES ('automerge', 4);
