-- The two-person rule, as migrations/20261201000007_approvals.sql (see there): each operator's
-- approval of a call whose tool needs several, one per operator (principal key) and call.
CREATE TABLE approvals (
    queue_item_id TEXT NOT NULL REFERENCES queue_items (id),
    operator_key  TEXT NOT NULL,
    operator      TEXT NOT NULL,
    fingerprint   TEXT NOT NULL,
    approved_at   TEXT NOT NULL,
    PRIMARY KEY (queue_item_id, operator_key)
);
