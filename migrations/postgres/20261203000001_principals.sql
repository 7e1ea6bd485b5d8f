-- Provenance (issue 23): who asked for each call, and what each credential may claim.
-- The principal that submitted a call (POST /api/calls) or started its run (the local engine), as
-- Principal::key() (`token:claude-hook`, `local:alice`); null where the engine does not say (remote
-- servers) and for calls queued before this column.
ALTER TABLE queue_items ADD COLUMN requested_by TEXT;
UPDATE queue_items SET requested_by = (SELECT principal_key FROM submissions WHERE submissions.queue_item_id = queue_items.id)
    WHERE requested_by IS NULL;
-- The person a credential belongs to (the two-person rule counts persons, not credentials; null:
-- the credential's own name), and the agent names and sources its submitted calls may claim (JSON
-- arrays of strings; null: its calls carry its own name as the agent, any source).
ALTER TABLE credentials ADD COLUMN person TEXT;
ALTER TABLE credentials ADD COLUMN agents TEXT;
ALTER TABLE credentials ADD COLUMN sources TEXT;
-- A grant made from a call that says who asked for it covers only later calls asked for by the same
-- principal (scopes run and agent): never a call that merely claims the same agent name.
ALTER TABLE grants ADD COLUMN requested_by TEXT;
