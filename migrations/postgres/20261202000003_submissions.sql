-- Calls that agents submit themselves over HTTP (POST /api/calls: any agent, the coding agents'
-- hooks, the MCP gate): one row per submitted call, naming the credential that submitted it (only
-- it, and operators, read the decision) and the idempotency key it was submitted under (a retry
-- with the same key finds the same call; the same key with another request is refused).
CREATE TABLE submissions (
    queue_item_id TEXT NOT NULL UNIQUE,
    -- Principal::key() of the submitting credential (`token:ci-bot`).
    principal_key TEXT NOT NULL,
    -- The client's Idempotency-Key, or one made up when it sent none.
    idempotency_key TEXT NOT NULL,
    -- sha256 of the request as submitted: a reused key must come with the same request.
    request_hash TEXT NOT NULL,
    -- What the submitter said around the call (the hook's working directory and event), JSON.
    context TEXT,
    submitted_at TEXT NOT NULL,
    PRIMARY KEY (principal_key, idempotency_key)
);
