-- +goose Up
-- Entries' previews (pi.Preview, the one-line summaries of tree views),
-- made when the entries are ingested and written in their transaction, so
-- that the tree of a 50 MB session is a query, not a decoding of the file
-- (issue 20). One row per ingest batch: offset is the batch's first
-- entry's; data is, for each entry of the batch with a preview, its
-- offset, its line's length and its preview (uvarints and bytes),
-- deflated (readside.PreviewBlock). A line longer than
-- readside.PreviewMaxLine has none (its tree row gives its size).
CREATE TABLE entry_previews (
    file_id INTEGER NOT NULL,
    offset  INTEGER NOT NULL,
    data    BLOB    NOT NULL,
    PRIMARY KEY (file_id, offset)
) WITHOUT ROWID;

-- +goose Down
DROP TABLE entry_previews;
