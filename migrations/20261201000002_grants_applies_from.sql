-- A grant told not to touch the calls already waiting (issue 12) covers only calls paused from
-- `applies_from` on; NULL: it covers the waiting ones too (as every earlier grant did).
ALTER TABLE grants ADD COLUMN applies_from TEXT;
