-- Paired devices (PostgreSQL) (issue 28): a phone paired with a short code, then a passkey (WebAuthn), acting as
-- an operator credential of the person who paired it on the remote listener (`serve --listen`).
-- No secret is stored: a passkey is a public key (webauthn-rs's `Passkey` as JSON: credential id,
-- public key, sign counter); a pairing code and a session cookie are kept as SHA-256 only.
CREATE TABLE devices (
    id            TEXT PRIMARY KEY,
    name          TEXT NOT NULL,
    person        TEXT NOT NULL,
    credential_id TEXT NOT NULL UNIQUE,   -- the passkey's credential id, base64url
    passkey       TEXT NOT NULL,
    created_at    TEXT NOT NULL,
    created_by    TEXT NOT NULL,
    last_used_at  TEXT,
    revoked_at    TEXT,
    revoked_by    TEXT
);
CREATE UNIQUE INDEX devices_live_name ON devices (name) WHERE revoked_at IS NULL;
-- A signed-in browser on the remote listener: the SHA-256 of its cookie. Revoking the device ends
-- them (deleted in the revocation's transaction; the guard also joins the device's revoked_at).
CREATE TABLE device_sessions (
    secret_hash TEXT PRIMARY KEY,
    device_id   TEXT NOT NULL REFERENCES devices (id),
    created_at  TEXT NOT NULL,
    expires_at  TEXT NOT NULL
);
CREATE INDEX device_sessions_device ON device_sessions (device_id);
-- A pairing started by an admin (`devices pair`, the window): single use, expires in minutes.
CREATE TABLE pairings (
    id         TEXT PRIMARY KEY,
    code_hash  TEXT NOT NULL UNIQUE,
    name       TEXT NOT NULL,
    person     TEXT NOT NULL,
    created_at TEXT NOT NULL,
    created_by TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    used_at    TEXT
);
