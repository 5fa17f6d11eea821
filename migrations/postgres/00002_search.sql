-- +goose Up
-- Full-text search (docs/postgres.md, "Search"). PostgreSQL never parses
-- the text: pidex tokenizes it in Go exactly as FTS5's unicode61 does for
-- the SQLite catalog (fts.Prepare, then unicode61 remove_diacritics 2) and
-- writes tsvector literals; queries are tsquery literals. No parser, no
-- dictionary, no locale of the server's plays a part.

-- The searchable text of each entry (pi.Text): snippets, the sql views'
-- text columns, and the confirmation of the rare hit the index cannot
-- decide (a phrase longer than a window's overlap, a word longer than a
-- lexeme).
CREATE TABLE entry_text (
    file_id    bigint  NOT NULL,
    "offset"   bigint  NOT NULL,
    machine_id integer NOT NULL,
    text       text    COMPRESSION lz4 COLLATE "C" NOT NULL,
    PRIMARY KEY (file_id, "offset"),
    FOREIGN KEY (file_id, "offset") REFERENCES entries (file_id, "offset") ON DELETE CASCADE,
    FOREIGN KEY (machine_id, file_id) REFERENCES files (machine_id, id) ON DELETE CASCADE
);

-- The search rows. An entry within PostgreSQL's tsvector limits (16,383
-- positions, 256 positions a lexeme, 1 MB) is one row, part 0, with every
-- token's position: tsv @@ query is the answer. A longer one is windows
-- (win): parts of at most 4,096 tokens sharing 64 with the next, halved
-- where a word still repeats more than 256 times, so every row keeps its
-- positions; a windowed entry matches term by term over its windows. A row
-- that could not keep its positions (none can so far) is not exact: its
-- distinct lexemes only, its hits confirmed on the text.
-- tokens: the entry's length in tokens (bm25), on part 0 (0 elsewhere).
CREATE TABLE text_index (
    file_id    bigint   NOT NULL,
    "offset"   bigint   NOT NULL,
    part       integer  NOT NULL,
    machine_id integer  NOT NULL,
    win        boolean  NOT NULL DEFAULT false,
    exact      boolean  NOT NULL DEFAULT true,
    tokens     integer  NOT NULL DEFAULT 0,
    tsv        tsvector COMPRESSION lz4 NOT NULL,
    PRIMARY KEY (file_id, "offset", part),
    FOREIGN KEY (file_id, "offset") REFERENCES entries (file_id, "offset") ON DELETE CASCADE,
    FOREIGN KEY (machine_id, file_id) REFERENCES files (machine_id, id) ON DELETE CASCADE
);
CREATE INDEX text_index_one ON text_index USING gin (tsv) WHERE NOT win;
CREATE INDEX text_index_win ON text_index USING gin (tsv) WHERE win AND exact;
CREATE INDEX text_index_lossy ON text_index USING gin (tsv) WHERE NOT exact;

-- bm25's collection statistics, per machine, kept by each push in the
-- transaction that writes the rows: entries with text and their tokens.
ALTER TABLE push_state ADD COLUMN text_entries bigint NOT NULL DEFAULT 0;
ALTER TABLE push_state ADD COLUMN text_tokens  bigint NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE push_state DROP COLUMN text_tokens;
ALTER TABLE push_state DROP COLUMN text_entries;
DROP TABLE text_index;
DROP TABLE entry_text;
