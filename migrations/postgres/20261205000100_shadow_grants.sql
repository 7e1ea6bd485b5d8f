-- Shadow grants (issue 27): a grant made in shadow approves nothing; the console reports what it
-- would have done beside what operators did. 1: shadow, 0: a grant that approves.
ALTER TABLE grants ADD COLUMN shadow BIGINT NOT NULL DEFAULT 0;
