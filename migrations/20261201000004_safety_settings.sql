-- The high-risk tools are a safety policy, not a notification preference (issue 14): they move from
-- the `notifications` document to a `safety` document of their own.
INSERT INTO settings (key, value, updated_at)
SELECT 'safety', json_object('highRiskTools', json(COALESCE(json_extract(value, '$.highRiskTools'), '[]'))), updated_at
FROM settings WHERE key = 'notifications' AND json_extract(value, '$.highRiskTools') IS NOT NULL;
UPDATE settings SET value = json_remove(value, '$.highRiskTools') WHERE key = 'notifications';
