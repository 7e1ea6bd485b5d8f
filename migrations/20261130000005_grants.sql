-- "Always allow" grants (issue 6): a call matching a live grant is approved by the console at once,
-- bound to its own fingerprint and audited as the grant's use. Never deleted: a revoked or expired
-- grant stays as history.
CREATE TABLE grants (
    id          TEXT PRIMARY KEY,
    tool_name   TEXT NOT NULL,
    -- Scope, widest first: the engine always; the agent unless the scope is the engine; the run only
    -- for a run's grant.
    scope       TEXT NOT NULL CHECK (scope IN ('run', 'agent', 'engine')),
    engine      TEXT NOT NULL,
    agent_id    TEXT,
    run_id      TEXT,
    -- JSON array of {pointer, op, value}: every one must hold for the call's arguments.
    conditions  TEXT NOT NULL,
    from_item   TEXT REFERENCES queue_items (id),
    created_at  TEXT NOT NULL,
    created_by  TEXT NOT NULL,
    expires_at  TEXT NOT NULL,
    revoked_at  TEXT,
    revoked_by  TEXT,
    uses        INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX grants_tool ON grants (tool_name, engine);
