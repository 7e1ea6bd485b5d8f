-- A read-only `viewer` role (issue 23): metrics and the team's figures, nothing else. SQLite cannot
-- change a CHECK in place: the table is copied into one with the wider check.
CREATE TABLE credentials_new (
    id           TEXT PRIMARY KEY,
    name         TEXT NOT NULL,
    role         TEXT NOT NULL CHECK (role IN ('agent', 'viewer', 'operator', 'admin')),
    secret_hash  TEXT NOT NULL UNIQUE,   -- "sha256:" + hex of the whole token
    created_at   TEXT NOT NULL,
    created_by   TEXT NOT NULL,
    last_used_at TEXT,
    revoked_at   TEXT,
    revoked_by   TEXT,
    -- From 20261203000001_principals: whose it is, and the agent names and sources it may claim.
    person       TEXT,
    agents       TEXT,
    sources      TEXT
);
INSERT INTO credentials_new (id, name, role, secret_hash, created_at, created_by, last_used_at, revoked_at, revoked_by,
        person, agents, sources)
    SELECT id, name, role, secret_hash, created_at, created_by, last_used_at, revoked_at, revoked_by,
        person, agents, sources FROM credentials;
DROP TABLE credentials;
ALTER TABLE credentials_new RENAME TO credentials;
CREATE UNIQUE INDEX credentials_live_name ON credentials (name) WHERE revoked_at IS NULL;
