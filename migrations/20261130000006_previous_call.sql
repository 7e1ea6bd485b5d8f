-- The previous decided call of the same tool in the same thread (issue 6: "what changed since the
-- last approval or decline"): found newest first from one call's thread and tool.
CREATE INDEX queue_items_thread_tool ON queue_items (thread_id, tool_name, seq);
