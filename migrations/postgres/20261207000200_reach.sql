-- Reaching operators (issue 28; PostgreSQL): the messages a paused call gets on operators' channels, planned
-- once per call when it pauses (reach_planned), each sent when due and retried until it goes
-- (reach_outbox: the channels' outbox); and who claimed a call ("I'm on it"), which stops its
-- escalation and is shown to everyone.
CREATE TABLE reach_planned (
    queue_item_id TEXT PRIMARY KEY,
    planned_at    TEXT NOT NULL
);
CREATE TABLE reach_outbox (
    id              TEXT PRIMARY KEY,
    queue_item_id   TEXT NOT NULL,
    channel         TEXT NOT NULL,
    person          TEXT NOT NULL,
    rule            TEXT NOT NULL,
    step            INTEGER NOT NULL,
    due_at          TEXT NOT NULL,
    state           TEXT NOT NULL CHECK (state IN ('pending', 'sent', 'skipped', 'failed')),
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at TEXT NOT NULL,
    last_error      TEXT,
    created_at      TEXT NOT NULL,
    sent_at         TEXT,
    UNIQUE (queue_item_id, channel, step)
);
CREATE INDEX reach_outbox_due ON reach_outbox (state, next_attempt_at);
CREATE TABLE claims (
    queue_item_id TEXT PRIMARY KEY,
    principal_key TEXT NOT NULL,
    person        TEXT NOT NULL,
    claimed_at    TEXT NOT NULL
);
