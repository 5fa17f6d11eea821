-- +goose Up
-- The session files whose text the search index has not caught up with
-- (indexer.textJobs): every command's refresh asks, and the answer is
-- almost always none. Without this index the question read the whole
-- files table (3,000 rows, ~220 pages, through each connection's own
-- page cache); with it, one page of an empty index.
CREATE INDEX files_text_behind ON files(root) WHERE kind = 'session' AND text_offset < offset;

-- +goose Down
DROP INDEX files_text_behind;
