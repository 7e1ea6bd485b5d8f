//! What a grant's approvals told agents, as the grants view lists it (issue 47): each rule
//! ([`AgentRule`]) read as the operator knows it — `Bash(npm test)` as Claude Code's settings hold
//! it, Codex's `prefix_rule(…)`, Gemini CLI's `commandPrefix` — with where the agent keeps it; and
//! what revoking the grant did about each ([`Removal`]). Pure: the console reads the files.

use super::{AgentRule, RuleScope};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One rule an agent was told, as listed with its grant: the agent (the call's source), its scope,
/// the rule as the agent writes it, and the file it goes to (`None`: the agent's session only; `~`
/// is the agent's home; a project's file is under the directory its hook reported).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WrittenRule {
    pub agent: String,
    pub scope: RuleScope,
    pub rule: String,
    #[schema(required = true)]
    pub location: Option<String>,
}

/// What revoking a grant did about one rule it wrote back.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum RemovalOutcome {
    /// Taken out of its file by the console, after a backup (`backup`).
    Removed,
    /// Kept in the agent's session until that session ends; nothing to remove.
    Session,
    /// The operator removes it by hand from `location` (`why` says why the console did not).
    ByHand,
}

/// One written rule and what revoking did about it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Removal {
    #[serde(flatten)]
    pub rule: WrittenRule,
    pub outcome: RemovalOutcome,
    /// The backup made before removing it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backup: Option<String>,
    /// Why the console left it to the operator (English; the UI shows it as text).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
}

/// The rules `rule` stands for, as listed: Claude Code's settings strings (`Tool(content)`, or
/// `Tool` alone), Codex's `prefix_rule(…)` line, Gemini CLI's `commandPrefix`, or the app-server's
/// decision; nothing for a shape no connector sends.
pub fn shown(rule: &AgentRule) -> Vec<WrittenRule> {
    let texts: Vec<String> = match (rule.agent.as_str(), &rule.rule) {
        (_, Value::String(decision)) => vec![decision.clone()],
        ("gemini", r) => r["commandPrefix"].as_str().map(|p| format!("commandPrefix = {}", quoted(p))).into_iter().collect(),
        (_, Value::Array(updates)) => {
            updates.iter().filter_map(|u| u["rules"].as_array()).flatten().filter_map(|r| rule_text(&rule.agent, r)).collect()
        }
        _ => Vec::new(),
    };
    texts
        .into_iter()
        .map(|text| WrittenRule { agent: rule.agent.clone(), scope: rule.scope, rule: text, location: rule.location.clone() })
        .collect()
}

/// Claude Code's rule string (`Bash(npm test)`) or Codex's `prefix_rule` line of one rule.
fn rule_text(agent: &str, r: &Value) -> Option<String> {
    if agent == "codex" {
        let words: Vec<String> = r["command"].as_array()?.iter().map(|w| w.as_str().map(quoted)).collect::<Option<_>>()?;
        return Some(format!("prefix_rule(pattern=[{}], decision=\"allow\")", words.join(", ")));
    }
    let tool = r["toolName"].as_str().filter(|t| !t.is_empty())?;
    Some(match r["ruleContent"].as_str() {
        Some(content) => format!("{tool}({content})"),
        None => tool.to_owned(),
    })
}

/// `text` as a JSON string (what Codex's and Gemini's files quote alike for plain words).
fn quoted(text: &str) -> String {
    Value::String(text.to_owned()).to_string()
}

/// `settings` (a Claude Code settings file's text) without `rule` in `permissions.allow`, every other
/// key and value kept in its order; `None` when the text is not a JSON object or holds no such
/// string there (nothing to write).
pub fn without_claude_rule(settings: &str, rule: &str) -> Option<String> {
    let mut doc: Value = serde_json::from_str(settings).ok()?;
    let allow = doc.get_mut("permissions")?.get_mut("allow")?.as_array_mut()?;
    let before = allow.len();
    allow.retain(|r| r.as_str() != Some(rule));
    if allow.len() == before {
        return None;
    }
    let mut text = serde_json::to_string_pretty(&doc).ok()?;
    text.push('\n');
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn agent_rule(agent: &str, scope: RuleScope, rule: Value, location: Option<&str>) -> AgentRule {
        AgentRule { agent: agent.into(), scope, destination: "x".into(), rule, location: location.map(str::to_owned) }
    }

    #[test]
    fn each_agents_rule_is_listed_as_its_own_file_writes_it() {
        let claude = agent_rule(
            "claude-code",
            RuleScope::Project,
            json!([{ "type": "addRules", "rules": [{ "toolName": "Bash", "ruleContent": "npm test" }, { "toolName": "Read" }] }]),
            Some("/repo/.claude/settings.json"),
        );
        let listed: Vec<String> = shown(&claude).into_iter().map(|w| w.rule).collect();
        assert_eq!(listed, ["Bash(npm test)", "Read"]);
        assert_eq!(shown(&claude)[0].location.as_deref(), Some("/repo/.claude/settings.json"));
        let codex =
            agent_rule("codex", RuleScope::User, json!([{ "rules": [{ "type": "prefixRule", "command": ["cargo", "test"] }] }]), None);
        assert_eq!(shown(&codex)[0].rule, "prefix_rule(pattern=[\"cargo\", \"test\"], decision=\"allow\")");
        let gemini = agent_rule("gemini", RuleScope::User, super::super::gemini_policy::rule("npm test"), Some("~/x.toml"));
        assert_eq!(shown(&gemini)[0].rule, "commandPrefix = \"npm test\"");
        assert_eq!(shown(&agent_rule("codex", RuleScope::Session, json!("acceptForSession"), None))[0].rule, "acceptForSession");
    }

    #[test]
    fn a_claude_rule_is_taken_out_of_permissions_allow_alone_and_every_other_key_kept_in_order() {
        let settings = r#"{"model":"x","permissions":{"deny":["Bash(npm test)"],"allow":["Read","Bash(npm test)","Bash(npm test:*)"],"ask":[]},"hooks":{"a":1}}"#;
        let out = without_claude_rule(settings, "Bash(npm test)").unwrap();
        let doc: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(doc["permissions"]["allow"], json!(["Read", "Bash(npm test:*)"]));
        assert_eq!(doc["permissions"]["deny"], json!(["Bash(npm test)"]), "only the allow list");
        let keys: Vec<&String> = doc.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["model", "permissions", "hooks"], "order kept");
        let inner: Vec<&String> = doc["permissions"].as_object().unwrap().keys().collect();
        assert_eq!(inner, ["deny", "allow", "ask"]);
        assert_eq!(without_claude_rule(settings, "Bash(npm)"), None, "only the exact string");
        assert_eq!(without_claude_rule("not json", "Read"), None);
        assert_eq!(without_claude_rule(r#"{"permissions":{"allow":"Read"}}"#, "Read"), None);
    }
}
