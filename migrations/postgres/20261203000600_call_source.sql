-- Each call's source stored with it (issue 24): the registry of engine kinds (`engine::kinds`) says
-- what a source is; the queue no longer derives it from engine names. Existing calls get the source
-- their engine's name told before: `local` and `local@<instance>` are the local engine, the sources of
-- submitted calls are engines of their own names, a LangGraph engine's row says its kind, and every
-- other engine (connected or removed since) was a Mastra server.
ALTER TABLE queue_items ADD COLUMN source TEXT NOT NULL DEFAULT 'mastra';
UPDATE queue_items SET source = 'local' WHERE engine = 'local' OR engine LIKE 'local@%';
UPDATE queue_items SET source = engine WHERE engine IN ('http', 'claude-code', 'codex', 'mcp');
UPDATE queue_items SET source = 'langgraph' WHERE engine IN (SELECT name FROM engines WHERE kind = 'langgraph');
CREATE INDEX queue_items_source ON queue_items (state, source, seq);
