-- Run ids being started (issue 23): a run id a client chose is claimed here before its run starts,
-- so two consoles sharing the database never start one run id twice (first writer wins; the other
-- gets `run_exists`). A claim lasts while its run is being started and driven; from its first pause
-- on, the run's snapshot holds the id.
CREATE TABLE run_claims (
    run_id     TEXT PRIMARY KEY,
    -- The local engine (`local@<instance>`) that claimed it: its console drops its own claims at start-up.
    engine     TEXT NOT NULL,
    claimed_at TEXT NOT NULL
);
