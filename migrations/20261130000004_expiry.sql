-- Calls nobody decides in time (issue 6). The time limits themselves are settings (key `expiry`);
-- this table holds what is per call: a deadline moved by a snooze (NULL: the tool's limit counted
-- from paused_at), when the "about to expire" warning went out (once per deadline), and why a call
-- cannot expire at all (its engine cannot decline it, e.g. a Mastra suspend() call), once found.
CREATE TABLE deadlines (
    queue_item_id TEXT PRIMARY KEY REFERENCES queue_items (id),
    expires_at    TEXT,
    warned_at     TEXT,
    never_reason  TEXT
);
CREATE INDEX deadlines_expires ON deadlines (expires_at);

-- The expiry worker's questions: "pending calls of this tool paused before T", "… of any tool".
CREATE INDEX queue_items_tool_paused ON queue_items (state, tool_name, paused_at);
CREATE INDEX queue_items_paused ON queue_items (state, paused_at);
