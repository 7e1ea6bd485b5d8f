-- Issue 15: an interrupted call (the console stopped while its tool ran) is resolved by an operator:
-- it ran, it did not run, or (idempotent tools) run it again through a new entry. One resolution per
-- entry, ever: the primary key refuses a second one whatever the caller checked.
CREATE TABLE resolutions (
    queue_item_id TEXT PRIMARY KEY REFERENCES queue_items (id),
    kind          TEXT NOT NULL CHECK (kind IN ('ran', 'did_not_run', 'run_again')),
    result        TEXT,             -- JSON: what the model was told the call returned (ran, did_not_run)
    fingerprint   TEXT NOT NULL,    -- the one that was on screen
    operator      TEXT NOT NULL,
    resolved_at   TEXT NOT NULL,
    retry_item_id TEXT REFERENCES queue_items (id)  -- run_again: the entry whose approval runs it again
);
