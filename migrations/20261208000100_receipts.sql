-- Signed decision receipts (issue 29): each decision's receipt (a JWS, docs/receipts.md) is stored
-- with it; the consoles' public keys are kept here so every console publishes every key of a team
-- (the private halves stay in each console's keyring or owner-only file, named by secret_ref).
ALTER TABLE decisions ADD COLUMN receipt TEXT;
-- The receipt's own id (its `id` claim), to find it by (`approval-console receipt rct_…`); unique.
ALTER TABLE decisions ADD COLUMN receipt_id TEXT;
CREATE UNIQUE INDEX decisions_receipt_id ON decisions (receipt_id);
CREATE TABLE receipt_keys (
    kid        TEXT PRIMARY KEY,
    instance   TEXT NOT NULL,
    public_key TEXT NOT NULL,
    secret_ref TEXT NOT NULL,
    created_at TEXT NOT NULL,
    retired_at TEXT
);
-- One live key per console: two processes of one console making its first key at once store one.
CREATE UNIQUE INDEX receipt_keys_live ON receipt_keys (instance) WHERE retired_at IS NULL;
