-- AG-UI engines (issue 48): agent endpoints the console relays runs to. A run that ends with
-- `RUN_FINISHED` `outcome: "interrupt"` is stored here, one row per thread (the interrupts a thread
-- waits on are those of its last run), before the client hears of it; the engine lists its waiting
-- interrupts from this table and resumes the run once every one is decided. SQLite cannot widen a
-- CHECK in place: `engines` is copied into one with the wider check.
CREATE TABLE engines_new (
    name          TEXT PRIMARY KEY,
    kind          TEXT NOT NULL CHECK (kind IN ('mastra', 'langgraph', 'ag-ui')),
    base_url      TEXT NOT NULL,
    token_ref     TEXT,
    poll_ms       INTEGER NOT NULL CHECK (poll_ms >= 100),
    created_at    TEXT NOT NULL,
    updated_at    TEXT NOT NULL,
    health        TEXT NOT NULL DEFAULT 'unknown',
    last_error    TEXT,
    last_error_at TEXT,
    last_ok_at    TEXT
);
INSERT INTO engines_new (name, kind, base_url, token_ref, poll_ms, created_at, updated_at, health, last_error, last_error_at, last_ok_at)
    SELECT name, kind, base_url, token_ref, poll_ms, created_at, updated_at, health, last_error, last_error_at, last_ok_at FROM engines;
DROP TABLE engines;
ALTER TABLE engines_new RENAME TO engines;

CREATE TABLE agui_runs (
    engine        TEXT NOT NULL,
    thread_id     TEXT NOT NULL,
    -- The run that ended with the interrupts.
    run_id        TEXT NOT NULL,
    -- The RunAgentInput the run was started with (its resume repeats its messages, tools, context,
    -- state and forwarded props), without its own `resume`.
    input         TEXT NOT NULL,
    -- The open interrupts as the agent sent them, each with the tool call it names (name, arguments).
    interrupts    TEXT NOT NULL,
    -- `waiting` (its interrupts queued), `resuming` (the resume is being sent: never sent twice),
    -- `resumed`, `ended` (a later run of the thread ended without interrupts).
    state         TEXT NOT NULL CHECK (state IN ('waiting', 'resuming', 'resumed', 'ended')),
    resume_run_id TEXT,
    created_at    TEXT NOT NULL,
    updated_at    TEXT NOT NULL,
    PRIMARY KEY (engine, thread_id)
);
CREATE INDEX agui_runs_waiting ON agui_runs (engine, state);
