-- +goose Up
-- Full-text search. The index is contentless: the text stays in the session
-- files (read back by offset for snippets), the index holds only postings.
-- rowid = (file id << 40) | byte offset of the entry's line, so a hit names
-- its entry without a mapping table (offsets below 1 TiB, file ids below 2^23).
-- CJK runs are rewritten into bigrams by pidex before they reach the
-- tokenizer (see package fts).
CREATE VIRTUAL TABLE text_index USING fts5(
    text,
    content = '',
    contentless_delete = 1,
    tokenize = 'unicode61 remove_diacritics 2'
);
-- Buffer up to 32 MB of postings before writing a segment (default 1 MB):
-- fewer, larger segments to merge during a cold text pass.
INSERT INTO text_index (text_index, rank) VALUES ('hashsize', 33554432);

-- The text index fills behind the metadata: text_offset is how far the
-- file's entries have their text indexed (all entries below it); generation
-- counts the file's rewrites, so a text pass planned before a rewrite
-- cannot write rows for lines that are gone.
ALTER TABLE files ADD COLUMN text_offset INTEGER NOT NULL DEFAULT 0;
ALTER TABLE files ADD COLUMN generation  INTEGER NOT NULL DEFAULT 0;

-- The entry's time in ms (its message's timestamp, else its ISO timestamp
-- as JavaScript parses it), for time filters and recency.
ALTER TABLE entries ADD COLUMN ts_ms INTEGER;

-- +goose Down
ALTER TABLE entries DROP COLUMN ts_ms;
ALTER TABLE files DROP COLUMN generation;
ALTER TABLE files DROP COLUMN text_offset;
DROP TABLE text_index;
