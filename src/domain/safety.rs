//! Safety settings: what needs more care than an ordinary call, whoever or whatever would decide it.

use serde::{Deserialize, Serialize};

/// The high-risk tools: every call of one needs the console's confirm step; it is never approved
/// from a notification, through a Mastra-shaped route or by a grant (and a grant stops applying
/// when its tool becomes high-risk). Stored under the settings key `safety`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SafetySettings {
    #[serde(default)]
    pub high_risk_tools: Vec<String>,
}

impl SafetySettings {
    pub fn high_risk(&self, tool: &str) -> bool {
        self.high_risk_tools.iter().any(|t| t == tool)
    }
}

/// The most approvals a quorum may ask for.
pub const MAX_QUORUM: u32 = 10;

/// The two-person rule: each call of a tool named here runs only after `approvals` approvals by
/// that many different operators (principals, by [`super::Principal::key`]), all of the call's one
/// fingerprint; one decline ends it, its time limit covers the whole quorum, the principal that
/// started the run cannot approve it, and neither a grant nor a Mastra-shaped route nor an approval
/// with edited arguments stands in for an operator's approval. A tool without a rule needs one
/// approval. Stored under the settings key `quorum`; changed by admins only.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct QuorumSettings {
    #[serde(default)]
    pub rules: Vec<QuorumRule>,
}

/// One tool's quorum.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct QuorumRule {
    /// The tool's name, exactly (no patterns).
    pub tool: String,
    /// How many different operators must approve a call of it: 2 to 10.
    pub approvals: u32,
}

impl QuorumSettings {
    /// How many approvals a call of `tool` needs: its rule's, else 1.
    pub fn quorum(&self, tool: &str) -> u32 {
        self.rules.iter().find(|r| r.tool == tool).map_or(1, |r| r.approvals)
    }

    /// Refuses a rule without a tool name, a tool named twice, and a quorum outside 2–[`MAX_QUORUM`]
    /// (one approval is what every tool needs without a rule: remove the rule instead).
    pub fn check(&self) -> Result<(), super::Error> {
        let bad = |m: String| Err(super::Error::InvalidRequest(format!("quorum: {m}")));
        for (i, r) in self.rules.iter().enumerate() {
            if r.tool.trim().is_empty() {
                return bad(format!("rule {} has no tool name", i + 1));
            }
            if !(2..=MAX_QUORUM).contains(&r.approvals) {
                return bad(format!(
                    "{}: approvals must be 2 to {MAX_QUORUM}, not {} (remove the rule for one approval)",
                    r.tool, r.approvals
                ));
            }
            if self.rules[..i].iter().any(|o| o.tool == r.tool) {
                return bad(format!("{} has two rules", r.tool));
            }
        }
        Ok(())
    }

    /// These settings with `tool` needing `approvals`: 2 or more sets (or replaces) its rule, 1
    /// removes it, 0 is refused.
    pub fn with(mut self, tool: &str, approvals: u32) -> Result<Self, super::Error> {
        if tool.trim().is_empty() {
            return Err(super::Error::InvalidRequest("quorum: a tool name is needed".into()));
        }
        if approvals == 0 {
            return Err(super::Error::InvalidRequest(format!("quorum: {tool} needs at least one approval (1 removes its rule)")));
        }
        self.rules.retain(|r| r.tool != tool);
        if approvals > 1 {
            self.rules.push(QuorumRule { tool: tool.to_owned(), approvals });
        }
        self.check()?;
        Ok(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_quorum_rule_sets_replaces_and_one_approval_removes_it() {
        let s = QuorumSettings::default().with("delete_record", 2).unwrap();
        assert_eq!(s.quorum("delete_record"), 2);
        assert_eq!(s.quorum("lookup_record"), 1);
        let s = s.with("delete_record", 3).unwrap();
        assert_eq!(s.rules, vec![QuorumRule { tool: "delete_record".into(), approvals: 3 }]);
        assert!(s.clone().with("delete_record", 1).unwrap().rules.is_empty());
        assert!(s.clone().with("delete_record", 0).is_err());
        assert!(s.clone().with("x", MAX_QUORUM + 1).is_err());
        let twice =
            QuorumSettings { rules: vec![QuorumRule { tool: "a".into(), approvals: 2 }, QuorumRule { tool: "a".into(), approvals: 3 }] };
        assert!(twice.check().unwrap_err().to_string().contains("two rules"));
        let one = QuorumSettings { rules: vec![QuorumRule { tool: "a".into(), approvals: 1 }] };
        assert_eq!(one.check().unwrap_err().code(), "invalid_request");
    }
}
