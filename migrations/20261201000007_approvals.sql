-- The two-person rule: a tool may need N approvals by N different operators (settings key `quorum`).
-- Each approval below the quorum waits here; the N-th becomes the call's one decision (the decisions
-- table, as for any call) and is kept here too, so the table holds every approval of the call. One
-- approval per operator and call, ever: the primary key refuses a second one whatever the caller
-- checked. `operator_key` is the principal's key (`token:alice`, `local:bob`); `operator` its audit
-- name (`alice (web)`); `fingerprint` the one that was on screen (always the call's own).
CREATE TABLE approvals (
    queue_item_id TEXT NOT NULL REFERENCES queue_items (id),
    operator_key  TEXT NOT NULL,
    operator      TEXT NOT NULL,
    fingerprint   TEXT NOT NULL,
    approved_at   TEXT NOT NULL,
    PRIMARY KEY (queue_item_id, operator_key)
);
