-- Remote engines of more than one kind (issue 17): LangGraph servers next to Mastra servers.
ALTER TABLE engines DROP CONSTRAINT engines_kind_check;
ALTER TABLE engines ADD CONSTRAINT engines_kind_check CHECK (kind IN ('mastra', 'langgraph'));
