-- Least data (issue 44): the text of the file a coding agent's edit changes, as its hook read it,
-- is kept apart from the rest of the call's context and only while the call waits. The context
-- keeps the file's path, size and sha256; `file_text` holds the text for the diff, and is emptied
-- by the trigger below as the call leaves `pending` (decided by anyone, withdrawn, gone). The
-- database runs with `secure_delete`, so the text's old bytes are overwritten, not left in free
-- space.
ALTER TABLE submissions ADD COLUMN file_text TEXT;

-- Submissions stored before: the text leaves the context; a waiting call's goes to `file_text`.
UPDATE submissions SET
    file_text = CASE WHEN queue_item_id IN (SELECT id FROM queue_items WHERE state = 'pending')
                     THEN json_extract(context, '$.file.text') END,
    context = json_remove(context, '$.file.text')
WHERE CASE WHEN json_valid(context) THEN json_type(context, '$.file.text') = 'text' ELSE 0 END;

CREATE TRIGGER submissions_file_text_let_go AFTER UPDATE OF state ON queue_items
WHEN OLD.state = 'pending' AND NEW.state <> 'pending'
BEGIN
    UPDATE submissions SET file_text = NULL WHERE queue_item_id = NEW.id AND file_text IS NOT NULL;
END;
