-- Team mode (issue 16): which local engine a run belongs to. Consoles sharing one database each run
-- their own local engine (`local@<instance>`); a console resumes, recovers and lists only its own
-- runs. A console on its own SQLite file is `local`.
ALTER TABLE snapshots ADD COLUMN engine TEXT NOT NULL DEFAULT 'local';
CREATE INDEX snapshots_engine_state ON snapshots (engine, state);
