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
    /// Every approval of a high-risk call needs a paired device's passkey (issue 28): approved from
    /// a phone on the remote listener, with its step-up — not from this machine's window, page, CLI.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub high_risk_passkey: bool,
    /// How long a decision's receipt may be acted on (issue 29), in seconds; `None`: an hour
    /// ([`super::receipt::DEFAULT_TTL_SECS`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub receipt_ttl_secs: Option<u64>,
}

impl SafetySettings {
    /// How long a receipt issued now may be acted on, in seconds.
    pub fn receipt_ttl(&self) -> u64 {
        self.receipt_ttl_secs.unwrap_or(super::receipt::DEFAULT_TTL_SECS)
    }

    pub fn high_risk(&self, tool: &str) -> bool {
        self.high_risk_tools.iter().any(|t| t == tool)
    }

    /// A call's risk as the console enforces it: what its arguments would do (rated by
    /// [`super::risk::assess`], `cwd` being the working directory its source reported) and, for a
    /// tool listed here, at least high.
    pub fn risk(&self, tool: &str, args: &serde_json::Value, cwd: Option<&str>) -> super::risk::Risk {
        let mut risk = super::risk::assess(tool, args, super::risk::Scene { cwd, dir: None });
        if self.high_risk(tool) {
            risk.add(super::risk::Level::High, format!("{tool} is a high-risk tool (settings)"));
        }
        risk
    }
}

/// What a call needs before it runs, as the settings are now: its risk (high or critical: an
/// operator in the console) and how many operators must approve it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Care {
    pub risk: super::risk::Risk,
    pub quorum: u32,
}

/// The settings a call's care is judged under, read together.
#[derive(Clone, Copy)]
pub struct Rules<'a> {
    pub safety: &'a SafetySettings,
    pub quorums: &'a QuorumSettings,
    pub risk: &'a super::risk::custom::RiskRules,
}

impl Care {
    /// `context`: what the call's source sent with it — its working directory (`cwd`), an MCP
    /// server's annotations of the tool (`annotations`).
    pub fn of(tool: &str, args: &serde_json::Value, context: Option<&serde_json::Value>, rules: Rules<'_>) -> Self {
        let cwd = context.and_then(|c| c.get("cwd")).and_then(serde_json::Value::as_str);
        let mut risk = rules.safety.risk(tool, args, cwd);
        if let Some(annotations) = context.and_then(|c| c.get("annotations")) {
            super::risk::hints(annotations, &mut risk);
        }
        // A relayed prompt shows a preview of the arguments only (Claude Code's channel relay: cut
        // at 200 characters): what runs may hold more than the operator saw. Only ever raises.
        if context.and_then(|c| c.get("preview")).and_then(serde_json::Value::as_bool) == Some(true) {
            risk.add(super::risk::Level::High, "preview only: its agent showed the arguments cut short, what runs may hold more");
        }
        acp_call(tool, args, context, rules.safety, &mut risk);
        // An action Codex's own reviewer denied (the app-server bridge): approving it overrides the
        // reviewer for that one action. High, so only an operator does, never a grant.
        if context.and_then(|c| c.get("guardianDenied")).and_then(serde_json::Value::as_bool) == Some(true) {
            risk.add(super::risk::Level::High, "denied by Codex's reviewer: an approval overrides it for this one action");
        }
        rules.risk.apply(tool, args, &mut risk);
        let quorums = rules.quorums;
        let quorum = quorums.quorum_for(tool, risk.level);
        Self { risk, quorum }
    }

    /// Whether a grant may approve the call: it is neither high-risk nor under a quorum.
    pub fn grantable(&self) -> bool {
        !self.risk.needs_operator() && self.quorum <= 1
    }
}

/// An Agent Client Protocol agent's tool call (`approval-console acp`: context `event`
/// `session/request_permission`): its arguments are the tool call as the agent shows it (`title`,
/// `kind`, `rawInput`, `content`, `locations`), so what it runs is rated from `rawInput` when the
/// agent sends one. An `execute` without it (Gemini CLI's ACP mode) is a command the agent shows only
/// in its title: the title is rated as a command line too, and the call is at least medium, saying
/// so. Only ever raises.
fn acp_call(
    tool: &str,
    args: &serde_json::Value,
    context: Option<&serde_json::Value>,
    safety: &SafetySettings,
    risk: &mut super::risk::Risk,
) {
    use serde_json::Value;
    if context.and_then(|c| c.get("event")).and_then(Value::as_str) != Some("session/request_permission") {
        return;
    }
    let cwd = context.and_then(|c| c.get("cwd")).and_then(Value::as_str);
    let rated = match args.get("rawInput").filter(|r| r.is_object()) {
        Some(raw) => safety.risk(tool, raw, cwd),
        None if args.get("kind").and_then(Value::as_str) == Some("execute") => {
            risk.add(super::risk::Level::Medium, "its agent shows the command only as a title, no input: read the title, it is what runs");
            let title = args.get("title").and_then(Value::as_str).unwrap_or_default();
            safety.risk("execute", &serde_json::json!({ "command": title }), cwd)
        }
        None => return,
    };
    for reason in rated.reasons {
        risk.add(reason.level, reason.text);
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
    /// How many different operators must approve each call rated critical (2–10), whatever its
    /// tool; none: a critical call needs what its tool needs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub critical: Option<u32>,
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

    /// How many approvals a call of `tool` rated `level` needs: its tool's, or the critical calls'
    /// quorum when it is critical and that is more.
    pub fn quorum_for(&self, tool: &str, level: super::risk::Level) -> u32 {
        let tool = self.quorum(tool);
        match self.critical {
            Some(n) if level == super::risk::Level::Critical => tool.max(n),
            _ => tool,
        }
    }

    /// Refuses a rule without a tool name, a tool named twice, and a quorum outside 2–[`MAX_QUORUM`]
    /// (one approval is what every tool needs without a rule: remove the rule instead).
    pub fn check(&self) -> Result<(), super::Error> {
        let bad = |m: String| Err(super::Error::InvalidRequest(format!("quorum: {m}")));
        if let Some(n) = self.critical.filter(|n| !(2..=MAX_QUORUM).contains(n)) {
            return bad(format!("critical calls' approvals must be 2 to {MAX_QUORUM}, not {n} (leave it out for none)"));
        }
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

    /// These settings with each critical call needing `approvals`: 2 or more sets it, 1 removes it
    /// (a critical call needs what its tool needs), 0 is refused.
    pub fn with_critical(mut self, approvals: u32) -> Result<Self, super::Error> {
        if approvals == 0 {
            return Err(super::Error::InvalidRequest("quorum: critical calls need at least one approval (1 removes the rule)".into()));
        }
        self.critical = (approvals > 1).then_some(approvals);
        self.check()?;
        Ok(self)
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
        let twice = QuorumSettings {
            rules: vec![QuorumRule { tool: "a".into(), approvals: 2 }, QuorumRule { tool: "a".into(), approvals: 3 }],
            critical: None,
        };
        assert!(twice.check().unwrap_err().to_string().contains("two rules"));
        let one = QuorumSettings { rules: vec![QuorumRule { tool: "a".into(), approvals: 1 }], critical: None };
        assert_eq!(one.check().unwrap_err().code(), "invalid_request");
    }

    #[test]
    fn a_critical_call_needs_the_critical_quorum_when_it_is_more_than_its_tools() {
        use crate::domain::risk::Level;
        let s = QuorumSettings { critical: Some(2), ..QuorumSettings::default() }.with("drop_db", 3).unwrap();
        assert_eq!(s.quorum_for("Bash", Level::Critical), 2);
        assert_eq!(s.quorum_for("Bash", Level::High), 1);
        assert_eq!(s.quorum_for("drop_db", Level::Critical), 3);
        assert_eq!(QuorumSettings::default().quorum_for("Bash", Level::Critical), 1);
        assert_eq!(s.clone().with_critical(1).unwrap().critical, None);
        assert_eq!(s.clone().with_critical(4).unwrap().critical, Some(4));
        assert!(s.clone().with_critical(0).is_err());
        for bad in [0, 1, MAX_QUORUM + 1] {
            let e = QuorumSettings { critical: Some(bad), ..QuorumSettings::default() }.check().unwrap_err();
            assert!(e.to_string().contains("critical"), "{e}");
        }
    }

    #[test]
    fn care_rates_the_arguments_and_the_listed_tools_and_no_grant_covers_high_or_a_quorum() {
        use crate::domain::risk::Level;
        use serde_json::json;
        let safety = SafetySettings { high_risk_tools: vec!["delete_record".into()], ..Default::default() };
        let quorums = QuorumSettings { critical: Some(2), ..QuorumSettings::default() };
        let custom = crate::domain::risk::custom::RiskRules::default();
        let rules = Rules { safety: &safety, quorums: &quorums, risk: &custom };
        let context = json!({ "cwd": "/home/dev/p" });
        let care = |tool: &str, args| Care::of(tool, &args, Some(&context), rules);
        let plain = care("Bash", json!({"command": "ls -la"}));
        assert_eq!((plain.risk.level, plain.quorum, plain.grantable()), (Level::Low, 1, true));
        let push = care("Bash", json!({"command": "git push --force origin main"}));
        assert!(push.risk.needs_operator() && !push.grantable() && push.quorum == 1, "{push:?}");
        let root = care("Bash", json!({"command": "rm -rf /"}));
        assert_eq!((root.risk.level, root.quorum), (Level::Critical, 2));
        let listed = care("delete_record", json!({"id": "rec-1"}));
        assert_eq!(listed.risk.level, Level::High);
        assert_eq!(listed.risk.first_reason(), "delete_record is a high-risk tool (settings)");
        // An MCP server's hints only raise: destructive says so; read-only lowers nothing.
        let gated = |annotations| Care::of("wipe", &json!({}), Some(&json!({ "annotations": annotations })), rules);
        assert_eq!(gated(json!({ "destructiveHint": true })).risk.level, Level::Medium);
        assert_eq!(gated(json!({ "readOnlyHint": true })).risk.level, Level::Low);
        let root = Care::of("Bash", &json!({ "command": "rm -rf /" }), Some(&json!({ "annotations": { "readOnlyHint": true } })), rules);
        assert_eq!(root.risk.level, Level::Critical, "a read-only claim lowers nothing");
        // A relayed prompt's preview (Claude Code's channel): high, so no grant approves it.
        let preview = Care::of("Bash", &json!({ "input_preview": "{\"command\":\"ls\"}" }), Some(&json!({ "preview": true })), rules);
        assert!(preview.risk.level == Level::High && !preview.grantable(), "{preview:?}");
        assert!(preview.risk.first_reason().starts_with("preview only"), "{preview:?}");
        let full = Care::of("Bash", &json!({ "command": "ls" }), Some(&json!({ "preview": false })), rules);
        assert!(full.grantable(), "{full:?}");
    }

    #[test]
    fn an_acp_agents_call_is_rated_from_its_raw_input_or_its_title_and_a_command_shown_only_as_a_title_is_at_least_medium() {
        use crate::domain::risk::Level;
        use serde_json::json;
        let (safety, quorums, custom) =
            (SafetySettings::default(), QuorumSettings::default(), crate::domain::risk::custom::RiskRules::default());
        let rules = Rules { safety: &safety, quorums: &quorums, risk: &custom };
        let acp = json!({ "event": "session/request_permission", "cwd": "/work" });
        let care = |args| Care::of("execute", &args, Some(&acp), rules).risk;
        // Gemini CLI's ACP mode: the command is the title, no rawInput.
        let shown = care(json!({ "title": "ls -la", "kind": "execute" }));
        assert_eq!(shown.level, Level::Medium, "{shown:?}");
        assert!(shown.first_reason().contains("only as a title"), "{shown:?}");
        assert_eq!(care(json!({ "title": "rm -rf /", "kind": "execute" })).level, Level::Critical);
        // rawInput, when the agent sends it, is rated as the call's arguments.
        let raw = care(json!({ "title": "Run a command", "kind": "execute", "rawInput": { "command": "git push --force origin main" } }));
        assert!(raw.needs_operator(), "{raw:?}");
        assert_eq!(care(json!({ "title": "Run a command", "kind": "execute", "rawInput": { "command": "ls" } })).level, Level::Low);
        // Not an ACP call: the same arguments are not read this way.
        assert_eq!(Care::of("execute", &json!({ "title": "rm -rf /", "kind": "execute" }), None, rules).risk.level, Level::Low);
    }

    #[test]
    fn an_action_codexs_reviewer_denied_is_rated_high_so_no_grant_overrides_the_reviewer() {
        use crate::domain::risk::Level;
        use serde_json::json;
        let (safety, quorums, custom) =
            (SafetySettings::default(), QuorumSettings::default(), crate::domain::risk::custom::RiskRules::default());
        let rules = Rules { safety: &safety, quorums: &quorums, risk: &custom };
        let denied = Care::of("Bash", &json!({ "command": "ls" }), Some(&json!({ "guardianDenied": true, "cwd": "/w" })), rules);
        assert!(denied.risk.level == Level::High && !denied.grantable(), "{denied:?}");
        assert!(denied.risk.first_reason().starts_with("denied by Codex's reviewer"), "{denied:?}");
        for context in [json!({ "guardianDenied": false }), json!({ "guardianDenied": "true" }), json!({})] {
            let care = Care::of("Bash", &json!({ "command": "ls" }), Some(&context), rules);
            assert!(care.grantable(), "{context}: {care:?}");
        }
    }
}
