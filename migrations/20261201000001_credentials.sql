-- Credentials with roles (issue 12): `approval-console tokens add NAME --role agent|operator|admin`.
-- Only the SHA-256 of a token is kept: the token is shown once, when it is made. A revoked credential
-- stays (its name is in the audit log) but no longer authenticates; its name may be used again.
CREATE TABLE credentials (
    id           TEXT PRIMARY KEY,
    name         TEXT NOT NULL,
    role         TEXT NOT NULL CHECK (role IN ('agent', 'operator', 'admin')),
    secret_hash  TEXT NOT NULL UNIQUE,   -- "sha256:" + hex of the whole token
    created_at   TEXT NOT NULL,
    created_by   TEXT NOT NULL,
    last_used_at TEXT,
    revoked_at   TEXT,
    revoked_by   TEXT
);
CREATE UNIQUE INDEX credentials_live_name ON credentials (name) WHERE revoked_at IS NULL;
