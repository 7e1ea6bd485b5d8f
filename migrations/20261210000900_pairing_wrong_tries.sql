-- Pairing codes against guessing (issue 44): every wrong code tried on the remote listener counts
-- against each pairing live at that moment, and a pairing that has seen too many (see
-- app::remote::PAIRING_WRONG_TRIES) ends at once (`expires_at` moved to then). Guessing then kills
-- codes rather than locking pairing for everyone; the remote listener limits each address apart.
ALTER TABLE pairings ADD COLUMN wrong_tries INTEGER NOT NULL DEFAULT 0;
