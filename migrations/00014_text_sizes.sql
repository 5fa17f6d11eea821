-- +goose Up
-- The text index is given each entry's distinct tokens, not its text
-- (issue 20: the single writer of a cold index tokenized and hashed three
-- times the bytes; an index without positions holds the same terms for
-- the same rows either way). FTS5's own record of an entry's size
-- (text_index_docsize) then counts distinct tokens, so the size search
-- ranks by is kept here: an entry's tokens, repeats included, as FTS5
-- counted them from the text (fts.Distinct), by the text index's rowid.
-- text_totals is FTS5's averages record for the same counts: the rows
-- and their tokens, for bm25's average entry length.
CREATE TABLE text_sizes (
    id INTEGER PRIMARY KEY, -- the text index's rowid
    n  INTEGER NOT NULL     -- the entry's tokens
);
CREATE TABLE text_totals (
    id     INTEGER PRIMARY KEY CHECK (id = 1),
    rows   INTEGER NOT NULL,
    tokens INTEGER NOT NULL
);
-- A catalog indexed before keeps its index: FTS5 counted its entries
-- from their text, one varint each (the SQLite varint: big-endian groups
-- of seven bits, the high bit set on every byte but the last; at most
-- four bytes below 2^28 tokens, read here as five to be safe).
INSERT INTO text_sizes (id, n)
SELECT id,
       CASE length(sz)
       WHEN 1 THEN b1
       WHEN 2 THEN ((b1 & 127) << 7) | b2
       WHEN 3 THEN ((b1 & 127) << 14) | ((b2 & 127) << 7) | b3
       WHEN 4 THEN ((b1 & 127) << 21) | ((b2 & 127) << 14) | ((b3 & 127) << 7) | b4
       ELSE ((b1 & 127) << 28) | ((b2 & 127) << 21) | ((b3 & 127) << 14) | ((b4 & 127) << 7) | b5
       END
FROM (SELECT id, sz,
             (instr('0123456789ABCDEF', substr(hex(sz), 1, 1)) - 1) * 16 + instr('0123456789ABCDEF', substr(hex(sz), 2, 1)) - 1 AS b1,
             (instr('0123456789ABCDEF', substr(hex(sz), 3, 1)) - 1) * 16 + instr('0123456789ABCDEF', substr(hex(sz), 4, 1)) - 1 AS b2,
             (instr('0123456789ABCDEF', substr(hex(sz), 5, 1)) - 1) * 16 + instr('0123456789ABCDEF', substr(hex(sz), 6, 1)) - 1 AS b3,
             (instr('0123456789ABCDEF', substr(hex(sz), 7, 1)) - 1) * 16 + instr('0123456789ABCDEF', substr(hex(sz), 8, 1)) - 1 AS b4,
             (instr('0123456789ABCDEF', substr(hex(sz), 9, 1)) - 1) * 16 + instr('0123456789ABCDEF', substr(hex(sz), 10, 1)) - 1 AS b5
      FROM text_index_docsize);
INSERT INTO text_totals (id, rows, tokens) SELECT 1, count(*), COALESCE(sum(n), 0) FROM text_sizes;

-- +goose Down
DROP TABLE text_totals;
DROP TABLE text_sizes;
