-- Approval Console, first schema. Never edit a landed migration: add a new one.

-- S11: one snapshot per suspended local run: what it needs to resume. Deleted when the run finishes.
CREATE TABLE snapshots (
    run_id      TEXT PRIMARY KEY,
    agent_id    TEXT NOT NULL,
    thread_id   TEXT,
    resource_id TEXT,
    -- suspended: waiting for decisions; running: a process is advancing it
    state       TEXT NOT NULL CHECK (state IN ('suspended', 'running')),
    body        TEXT NOT NULL,      -- JSON: messages, step calls, step, options
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL
);
CREATE INDEX snapshots_agent ON snapshots (agent_id, updated_at);

-- C1: every paused call of every engine. `seq` orders the queue (newest first) and is the paging cursor.
CREATE TABLE queue_items (
    seq             INTEGER PRIMARY KEY AUTOINCREMENT,
    id              TEXT NOT NULL UNIQUE,
    engine          TEXT NOT NULL,
    agent_id        TEXT NOT NULL,
    agent_name      TEXT,
    thread_id       TEXT,
    resource_id     TEXT,
    run_id          TEXT NOT NULL,
    tool_call_id    TEXT NOT NULL,
    tool_name       TEXT NOT NULL,
    args            TEXT NOT NULL,   -- JSON, as stored when the call paused; the fingerprint is over it
    fingerprint     TEXT NOT NULL,
    kind            TEXT NOT NULL CHECK (kind IN ('approval', 'suspend')),
    suspend_payload TEXT,
    resume_schema   TEXT,
    chain           TEXT NOT NULL DEFAULT '[]',
    state           TEXT NOT NULL CHECK (state IN ('pending', 'decided', 'delivered', 'failed', 'interrupted', 'gone')),
    paused_at       TEXT NOT NULL,
    updated_at      TEXT NOT NULL,
    -- Position in the change feed: set by the triggers below on insert and on every state change, from
    -- any process. `serve` tails it to publish events, so changes made by the CLI show up live too.
    change_seq      INTEGER NOT NULL DEFAULT 0
);
-- One pending entry per call; a call that suspends again after a resume gets a new entry.
CREATE UNIQUE INDEX queue_items_one_pending ON queue_items (engine, run_id, tool_call_id) WHERE state = 'pending';
CREATE INDEX queue_items_state ON queue_items (state, seq);
CREATE INDEX queue_items_engine ON queue_items (state, engine, seq);
CREATE INDEX queue_items_agent ON queue_items (state, agent_id, seq);
CREATE INDEX queue_items_tool ON queue_items (state, tool_name, seq);
CREATE INDEX queue_items_kind ON queue_items (state, kind, seq);
CREATE INDEX queue_items_thread ON queue_items (state, thread_id, seq);
CREATE INDEX queue_items_run ON queue_items (run_id);
CREATE INDEX queue_items_change ON queue_items (change_seq);
CREATE TRIGGER queue_items_feed_insert AFTER INSERT ON queue_items
BEGIN UPDATE queue_items SET change_seq = (SELECT MAX(change_seq) FROM queue_items) + 1 WHERE seq = NEW.seq; END;
CREATE TRIGGER queue_items_feed_update AFTER UPDATE OF state ON queue_items
BEGIN UPDATE queue_items SET change_seq = (SELECT MAX(change_seq) FROM queue_items) + 1 WHERE seq = NEW.seq; END;

-- Decisions and their delivery to the engine (the outbox, C5). One decision per queue entry, ever.
CREATE TABLE decisions (
    id            TEXT PRIMARY KEY,
    queue_item_id TEXT NOT NULL UNIQUE REFERENCES queue_items (id),
    kind          TEXT NOT NULL CHECK (kind IN ('approve', 'decline', 'resume')),
    fingerprint   TEXT NOT NULL,    -- the one that was on screen
    reason        TEXT,
    data          TEXT,             -- resume data, JSON
    operator      TEXT NOT NULL,
    decided_at    TEXT NOT NULL,
    delivery      TEXT NOT NULL CHECK (delivery IN ('pending', 'delivering', 'delivered', 'failed')),
    attempts      INTEGER NOT NULL DEFAULT 0,
    last_error    TEXT,
    delivered_at  TEXT,
    outcome       TEXT              -- JSON: what the engine answered / what the tool returned
);
CREATE INDEX decisions_delivery ON decisions (delivery) WHERE delivery IN ('pending', 'delivering');

-- C6: append-only, hash-chained audit log.
CREATE TABLE audit_log (
    seq           INTEGER PRIMARY KEY,
    at            TEXT NOT NULL,
    actor         TEXT NOT NULL,
    action        TEXT NOT NULL,
    queue_item_id TEXT,
    tool_name     TEXT,
    fingerprint   TEXT,
    details       TEXT NOT NULL,    -- JSON
    prev_hash     TEXT NOT NULL,
    hash          TEXT NOT NULL
);
CREATE INDEX audit_log_item ON audit_log (queue_item_id);
CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log
BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;
CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log
BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;

-- The newest entry's seq and hash, written in the same transaction as each append, so that a
-- truncated tail is detected too.
CREATE TABLE audit_head (
    id   INTEGER PRIMARY KEY CHECK (id = 1),
    seq  INTEGER NOT NULL,
    hash TEXT NOT NULL
);
