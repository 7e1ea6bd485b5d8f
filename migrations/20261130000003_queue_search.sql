-- The queue's search box (issue 6): an FTS5 trigram index over what an operator searches for in a
-- call: tool name, agent id and name, and the JSON text of the arguments. Trigrams make every
-- substring of three or more characters findable, case-insensitively, without scanning the table.
--
-- Contentless (the text already lives in queue_items); the rowid is queue_items.seq. Kept by
-- triggers, like the change feed, so every insert is indexed whoever makes it. A migration that
-- rebuilds queue_items must keep `seq` and create these triggers again (DROP TABLE drops them).
CREATE VIRTUAL TABLE queue_search USING fts5(text, content = '', contentless_delete = 1, tokenize = 'trigram');

-- Fields separated by newlines: a search word never holds whitespace, so it cannot match across two.
INSERT INTO queue_search (rowid, text)
SELECT seq, tool_name || char(10) || agent_id || char(10) || COALESCE(agent_name, '') || char(10) || args FROM queue_items;

-- Only inserts and deletes matter: the searched fields of an entry never change (changed arguments
-- make a new entry). Queue entries are not deleted today; the delete trigger keeps the index true if
-- they ever are.
CREATE TRIGGER queue_search_insert AFTER INSERT ON queue_items
BEGIN
    INSERT INTO queue_search (rowid, text)
    VALUES (NEW.seq, NEW.tool_name || char(10) || NEW.agent_id || char(10) || COALESCE(NEW.agent_name, '') || char(10) || NEW.args);
END;
CREATE TRIGGER queue_search_delete AFTER DELETE ON queue_items
BEGIN
    DELETE FROM queue_search WHERE rowid = OLD.seq;
END;
