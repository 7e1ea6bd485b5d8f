-- The rules an "always allow" grant's approvals wrote back to coding agents (issue 47): one row per
-- grant and distinct rule (the rule as JSON: agent, scope, destination, rule, location), written with
-- the `grant.used` audit entry that records it. The grants view lists them; revoking reads them.
CREATE TABLE grant_rules (
    grant_id TEXT NOT NULL,
    rule     TEXT NOT NULL,
    first_at TEXT NOT NULL,
    PRIMARY KEY (grant_id, rule)
);
