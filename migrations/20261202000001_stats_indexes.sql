-- The team's figures (GET /api/stats) over a period of up to 90 days: the decisions taken in it, and
-- the calls that stopped waiting in it without a decision (gone), found without reading every row.
CREATE INDEX decisions_decided ON decisions (decided_at);
CREATE INDEX queue_items_state_updated ON queue_items (state, updated_at);
