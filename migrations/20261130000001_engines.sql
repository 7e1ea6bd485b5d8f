-- Remote engines (issue 4): Mastra servers whose suspended runs the console queues.

-- One row per remote engine. `name` is also its engine id in queue_items.engine. The bearer token is
-- never here (C7): `token_ref` names its keyring entry.
CREATE TABLE engines (
    name          TEXT PRIMARY KEY,
    kind          TEXT NOT NULL CHECK (kind IN ('mastra')),
    base_url      TEXT NOT NULL,
    token_ref     TEXT,
    poll_ms       INTEGER NOT NULL CHECK (poll_ms >= 100),
    created_at    TEXT NOT NULL,
    updated_at    TEXT NOT NULL,
    -- Last known health, written when it changes: unknown, reachable, unreachable, auth_failed, incompatible.
    health        TEXT NOT NULL DEFAULT 'unknown',
    last_error    TEXT,
    last_error_at TEXT,
    last_ok_at    TEXT
);

-- What an engine said about its agents' tools (approval flag, resume schema as JSON Schema), kept so
-- that a suspended call listed without its schema still gets one, also after a restart.
CREATE TABLE remote_tools (
    engine     TEXT NOT NULL,
    agent_id   TEXT NOT NULL,
    tool_name  TEXT NOT NULL,
    body       TEXT NOT NULL,   -- JSON: {requireApproval, inputSchema, resumeSchema, suspendSchema}
    seen_at    TEXT NOT NULL,
    PRIMARY KEY (engine, agent_id, tool_name)
);

-- Outbox retries (C5): when the next delivery attempt of a deferred decision is due.
ALTER TABLE decisions ADD COLUMN next_attempt_at TEXT;
