-- Rules written back in a scope the operator picks (issue 47): where a coding agent keeps the rule an
-- "always allow" grant's approval tells it — its session (the default), its project or its user.
-- Carried to the agent's connector in the approval's signed receipt (`ruleScope`).
ALTER TABLE grants ADD COLUMN rule_scope TEXT NOT NULL DEFAULT 'session';
