-- +goose Up
-- Honest prices (issue 36), as the local catalog's migration 00018: the
-- rollups keep the calls that pi recorded at exactly $0 although they used
-- tokens (pidex.ZeroCostSQL) apart from the others, by zero_cost, which
-- joins the primary key. Rows pushed before this have false there until
-- their machine pushes again: the local catalog's derivation moved with
-- the column (indexer.Derivation 10), so every machine's next push sends
-- its files again whole, and until then the team catalog names it behind.
ALTER TABLE usage_rollup ADD COLUMN zero_cost boolean NOT NULL DEFAULT false;
ALTER TABLE usage_rollup DROP CONSTRAINT usage_rollup_pkey,
    ADD PRIMARY KEY (file_id, bucket, provider, model, source, is_copy, active, zero_cost);
ALTER TABLE usage_rollup_hour ADD COLUMN zero_cost boolean NOT NULL DEFAULT false;
ALTER TABLE usage_rollup_hour DROP CONSTRAINT usage_rollup_hour_pkey,
    ADD PRIMARY KEY (file_id, bucket, provider, model, source, is_copy, active, zero_cost);

-- +goose Down
-- Rows split by zero_cost cannot keep the old key: they go, and every
-- machine's next push sends them again (as 00003 did).
DELETE FROM usage_rollup;
DELETE FROM usage_rollup_hour;
UPDATE machines SET text_version = 0;
ALTER TABLE usage_rollup DROP CONSTRAINT usage_rollup_pkey, DROP COLUMN zero_cost,
    ADD PRIMARY KEY (file_id, bucket, provider, model, source, is_copy, active);
ALTER TABLE usage_rollup_hour DROP CONSTRAINT usage_rollup_hour_pkey, DROP COLUMN zero_cost,
    ADD PRIMARY KEY (file_id, bucket, provider, model, source, is_copy, active);
