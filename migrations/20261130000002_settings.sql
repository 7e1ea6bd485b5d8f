-- Operator settings (issue 5): one JSON document per key, e.g. `notifications`.
CREATE TABLE settings (
    key        TEXT PRIMARY KEY,
    value      TEXT NOT NULL,   -- JSON
    updated_at TEXT NOT NULL
);
