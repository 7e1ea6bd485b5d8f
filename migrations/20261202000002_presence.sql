-- Presence: who has a call open right now. Each open detail says so every few seconds (POST
-- /api/queue/{id}/viewers); a row older than the presence window is nobody's any more and is
-- pruned by the next heartbeat. Not audited, not in the change feed: it is no decision and no
-- change of the queue.
CREATE TABLE presence (
    queue_item_id TEXT NOT NULL,
    -- Principal::key() (`token:alice`, `local:bob`): one row per person, whichever window.
    viewer_key TEXT NOT NULL,
    -- As the audit log names them, with the channel of the last heartbeat: `alice (web)`.
    viewer TEXT NOT NULL,
    since TEXT NOT NULL,
    seen_at TEXT NOT NULL,
    PRIMARY KEY (queue_item_id, viewer_key)
);
CREATE INDEX presence_seen ON presence (seen_at);
