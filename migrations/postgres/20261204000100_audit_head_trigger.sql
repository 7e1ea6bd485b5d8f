-- The audit head follows each append inside the append's own statement (issue 26: one round trip
-- fewer per audit entry). Same rule as before: the newest entry's seq and hash, in the same
-- transaction, so a cut tail is still told apart.
CREATE FUNCTION audit_log_head() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO audit_head (id, seq, hash) VALUES (1, NEW.seq, NEW.hash)
        ON CONFLICT (id) DO UPDATE SET seq = excluded.seq, hash = excluded.hash;
    RETURN NEW;
END $$;
CREATE TRIGGER audit_log_head AFTER INSERT ON audit_log
    FOR EACH ROW EXECUTE FUNCTION audit_log_head();
