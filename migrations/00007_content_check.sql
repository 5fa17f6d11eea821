-- +goose Up
-- Same-size in-place edits (an editor replacing a secret with as many
-- characters keeps the file's inode and size, and only its mtime tells).
-- content_crc: a checksum of the lines ingested so far (CRC-32C over each
-- line's offset, number and bytes), continued by every append; a refresh
-- that finds a file's stat changed without growth checks the file's
-- content against it. NULL: not known (a catalog from before, or an
-- append to one): such a file is read again from scratch instead.
-- racy: the stat was taken so soon after the file's last change that a
-- change in the same clock tick would have left it equal, so the next
-- refresh checks the content even when the stat has not changed.
ALTER TABLE files ADD COLUMN content_crc INTEGER;
ALTER TABLE files ADD COLUMN racy INTEGER NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE files DROP COLUMN racy;
ALTER TABLE files DROP COLUMN content_crc;
