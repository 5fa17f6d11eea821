-- +goose Up
-- The entries that are not on their session's current root-to-leaf path
-- (pi's branch): those of abandoned branches, and an id's earlier entries,
-- which its latest one hides (the edges view's rule). Kept by the indexer
-- at each file's last batch (indexer/offpath.go, derivation 13), from the
-- same walk that marks usage.on_path, so that `search --branch active`
-- tests a match against it instead of walking every matching session's
-- path at each search. Most sessions never branch: few rows.
CREATE TABLE off_path (
    file_id INTEGER NOT NULL,
    offset  INTEGER NOT NULL,
    PRIMARY KEY (file_id, offset)
) WITHOUT ROWID;

-- +goose Down
DROP TABLE off_path;
