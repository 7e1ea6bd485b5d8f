-- Settings are read from memory (issue 26): a console keeps the stored documents and reads them again
-- when this number moves. Every change of the settings table moves it, in the changing statement's
-- own transaction, and notifies every console of the team (their change feed readers wake and see it).
CREATE TABLE settings_epoch (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    n  BIGINT NOT NULL
);
INSERT INTO settings_epoch (id, n) VALUES (1, 0);
CREATE FUNCTION settings_epoch_bump() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE settings_epoch SET n = n + 1 WHERE id = 1;
    PERFORM pg_notify('approval_console_queue', 'settings');
    RETURN NULL;
END $$;
CREATE TRIGGER settings_epoch_bump AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON settings
    FOR EACH STATEMENT EXECUTE FUNCTION settings_epoch_bump();
