-- Why a call paused (issue 13: the detail leads with it), as JSON `{kind, rule?, agent?, detail?}`
-- (`domain::PauseReason`); NULL when the engine did not say (and for every earlier entry).
ALTER TABLE queue_items ADD COLUMN pause_reason TEXT;
