-- Settings are read from memory (issue 26): a console keeps the stored documents and reads them again
-- when this number moves. Every change of the settings table moves it, in the changing statement's
-- own transaction, whoever commits it (the CLI on the same file); the change feed's reader sees it.
CREATE TABLE settings_epoch (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    n  INTEGER NOT NULL
);
INSERT INTO settings_epoch (id, n) VALUES (1, 0);
CREATE TRIGGER settings_epoch_insert AFTER INSERT ON settings
BEGIN
    UPDATE settings_epoch SET n = n + 1 WHERE id = 1;
END;
CREATE TRIGGER settings_epoch_update AFTER UPDATE ON settings
BEGIN
    UPDATE settings_epoch SET n = n + 1 WHERE id = 1;
END;
CREATE TRIGGER settings_epoch_delete AFTER DELETE ON settings
BEGIN
    UPDATE settings_epoch SET n = n + 1 WHERE id = 1;
END;
