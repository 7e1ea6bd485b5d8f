-- A2A agents as remote engines (issue 48), next to Mastra and LangGraph servers.
ALTER TABLE engines DROP CONSTRAINT engines_kind_check;
ALTER TABLE engines ADD CONSTRAINT engines_kind_check CHECK (kind IN ('mastra', 'langgraph', 'ag-ui', 'a2a'));
