-- AG-UI engines (issue 48): agent endpoints the console relays runs to. A run that ends with
-- `RUN_FINISHED` `outcome: "interrupt"` is stored here, one row per thread (the interrupts a thread
-- waits on are those of its last run), before the client hears of it; the engine lists its waiting
-- interrupts from this table and resumes the run once every one is decided.
ALTER TABLE engines DROP CONSTRAINT engines_kind_check;
ALTER TABLE engines ADD CONSTRAINT engines_kind_check CHECK (kind IN ('mastra', 'langgraph', 'ag-ui'));

CREATE TABLE agui_runs (
    engine        TEXT NOT NULL,
    thread_id     TEXT NOT NULL,
    run_id        TEXT NOT NULL,
    input         TEXT NOT NULL,
    interrupts    TEXT NOT NULL,
    state         TEXT NOT NULL CHECK (state IN ('waiting', 'resuming', 'resumed', 'ended')),
    resume_run_id TEXT,
    created_at    TEXT NOT NULL,
    updated_at    TEXT NOT NULL,
    PRIMARY KEY (engine, thread_id)
);
CREATE INDEX agui_runs_waiting ON agui_runs (engine, state);
