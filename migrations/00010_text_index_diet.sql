-- +goose Up
-- The index diet (issue 20): the full-text index keeps which entries hold
-- each token, not where in them (detail=none: no positions, about a third
-- of the size). A phrase or an identifier of several tokens is looked up
-- as all of its tokens, and the candidates are confirmed against the
-- entry's own text (query.Search reads the line, tokenizes it as FTS5
-- does and matches the query exactly). rowid = (file id << 28) | the
-- entry's line number (was: its byte offset): within a file, rowids that
-- differ by a few lines are a byte apart in FTS5's delta-encoded lists.
-- The text is prepared by package fts as before (CJK runs as bigrams).
DROP TABLE text_index;
CREATE VIRTUAL TABLE text_index USING fts5(
    text,
    content = '',
    contentless_delete = 1,
    detail = none,
    tokenize = 'unicode61 remove_diacritics 2'
);
INSERT INTO text_index (text_index, rank) VALUES ('hashsize', 33554432);
-- A hit names its entry by file and line.
CREATE INDEX entries_line ON entries(file_id, line);
-- The old index is gone: every file's text is indexed again by the next
-- text pass.
UPDATE files SET text_offset = 0;

-- +goose Down
DROP INDEX entries_line;
DROP TABLE text_index;
CREATE VIRTUAL TABLE text_index USING fts5(
    text,
    content = '',
    contentless_delete = 1,
    tokenize = 'unicode61 remove_diacritics 2'
);
INSERT INTO text_index (text_index, rank) VALUES ('hashsize', 33554432);
UPDATE files SET text_offset = 0;
