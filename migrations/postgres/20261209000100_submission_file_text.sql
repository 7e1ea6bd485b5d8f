-- Least data (issue 44): the text of the file a coding agent's edit changes, as its hook read it,
-- is kept apart from the rest of the call's context and only while the call waits. The context
-- keeps the file's path, size and sha256; `file_text` holds the text for the diff, and is emptied
-- by the trigger below as the call leaves `pending` (decided by any console, withdrawn, gone).
-- The old row version stays in the table's pages until VACUUM reclaims it (autovacuum does).
ALTER TABLE submissions ADD COLUMN file_text TEXT;

-- Submissions stored before: the text leaves the context; a waiting call's goes to `file_text`. A
-- context jsonb cannot read (a \u0000 escape) is left as it is.
UPDATE submissions SET
    file_text = CASE WHEN queue_item_id IN (SELECT id FROM queue_items WHERE state = 'pending')
                     THEN context::jsonb #>> '{file,text}' END,
    context = (context::jsonb #- '{file,text}')::text
WHERE CASE WHEN context IS NOT NULL AND position(E'\\u0000' in context) = 0
           THEN jsonb_typeof(context::jsonb #> '{file,text}') = 'string' ELSE false END;

CREATE FUNCTION submissions_file_text_let_go() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE submissions SET file_text = NULL WHERE queue_item_id = NEW.id AND file_text IS NOT NULL;
    RETURN NULL;
END $$;
CREATE TRIGGER submissions_file_text_let_go AFTER UPDATE OF state ON queue_items
    FOR EACH ROW WHEN (OLD.state = 'pending' AND NEW.state <> 'pending')
    EXECUTE FUNCTION submissions_file_text_let_go();
