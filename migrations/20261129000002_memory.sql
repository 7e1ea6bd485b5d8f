-- Memory: conversation threads of the local engine's agents (issue 3 item 9), used to give a run the
-- thread's earlier messages, by auto-resume (S10), and by suspended-runs?threadId=&resourceId=.

CREATE TABLE threads (
    id          TEXT PRIMARY KEY,
    resource_id TEXT NOT NULL,
    agent_id    TEXT NOT NULL,
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL
);
CREATE INDEX threads_resource ON threads (resource_id, updated_at);

CREATE TABLE messages (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT,
    thread_id  TEXT NOT NULL REFERENCES threads (id),
    run_id     TEXT NOT NULL,
    body       TEXT NOT NULL,   -- JSON: one message as the engine keeps it ({role, content, …})
    created_at TEXT NOT NULL
);
CREATE INDEX messages_thread ON messages (thread_id, seq);
