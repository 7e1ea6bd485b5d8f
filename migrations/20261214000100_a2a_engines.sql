-- A2A agents as remote engines (issue 48), next to Mastra and LangGraph servers. SQLite cannot
-- change a CHECK in place: the table is copied into one with the wider check (as 20261202000004 did).
CREATE TABLE engines_new (
    name          TEXT PRIMARY KEY,
    kind          TEXT NOT NULL CHECK (kind IN ('mastra', 'langgraph', 'ag-ui', 'a2a')),
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
