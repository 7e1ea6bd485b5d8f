-- A read-only `viewer` role (issue 23): metrics and the team's figures, nothing else.
ALTER TABLE credentials DROP CONSTRAINT credentials_role_check;
ALTER TABLE credentials ADD CONSTRAINT credentials_role_check CHECK (role IN ('agent', 'viewer', 'operator', 'admin'));
