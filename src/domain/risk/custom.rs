//! Operators' own risk rules (issue 27), beside the built-in ones: a tool (or every tool), what to
//! look at — a JSON Pointer into the arguments, or each command of a shell line as the shell would
//! split it — a regular expression the whole value must match, and the level and reason it adds. A
//! rule only adds a reason: it never lowers what the built-in rules found. Stored under the settings
//! key `risk`; part of the policy file.

use super::{Level, Risk};
use regex::Regex;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// The most rules.
pub const MAX_RULES: usize = 200;
/// The most bytes of one rule's pattern.
const MAX_PATTERN: usize = 1_000;

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RiskRules {
    #[serde(default)]
    pub rules: Vec<RiskRule>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RiskRule {
    /// The tool's name, exactly, or `"*"` for every tool.
    pub tool: String,
    /// What is matched: a JSON Pointer into the arguments (`"/path"`; a string, or a number as its
    /// text), or `"command"`: each simple command of the call's shell line, its words joined by one
    /// space, wrappers such as `sudo` kept (`kubectl delete namespace prod`).
    pub on: String,
    /// A regular expression the whole value must match.
    pub regex: String,
    pub level: Level,
    /// What the operator reads ("deletes a production namespace").
    pub reason: String,
}

impl RiskRules {
    /// Refuses a rule without a tool, a reason or a target, an unknown target, a pattern that does
    /// not compile (or is too large), and more than [`MAX_RULES`] rules.
    pub fn check(&self) -> Result<(), String> {
        if self.rules.len() > MAX_RULES {
            return Err(format!("at most {MAX_RULES} risk rules, not {}", self.rules.len()));
        }
        for (i, r) in self.rules.iter().enumerate() {
            let n = i + 1;
            if r.tool.trim().is_empty() {
                return Err(format!("risk rule {n} has no tool (use \"*\" for every tool)"));
            }
            if r.reason.trim().is_empty() {
                return Err(format!("risk rule {n} ({}) has no reason: say what an operator should know", r.tool));
            }
            if r.on != "command" && !r.on.starts_with('/') {
                return Err(format!("risk rule {n} ({}): on is \"command\" or a JSON Pointer such as \"/path\", not {:?}", r.tool, r.on));
            }
            compiled(&r.regex).map_err(|e| format!("risk rule {n} ({}): its regex does not compile: {e}", r.tool))?;
        }
        Ok(())
    }

    /// Adds the reason of each rule that matches the call.
    pub fn apply(&self, tool: &str, args: &Value, risk: &mut Risk) {
        let mut commands: Option<Vec<String>> = None;
        for r in self.rules.iter().filter(|r| r.tool == "*" || r.tool == tool) {
            let Ok(re) = compiled(&r.regex) else { continue };
            let hit = if r.on == "command" {
                commands.get_or_insert_with(|| super::commands_of(tool, args)).iter().any(|c| re.is_match(c) || re.is_match(unwrapped(c)))
            } else {
                match args.pointer(&r.on) {
                    Some(Value::String(s)) => re.is_match(s),
                    Some(v @ (Value::Number(_) | Value::Bool(_))) => re.is_match(&v.to_string()),
                    _ => false,
                }
            };
            if hit {
                risk.add(r.level, r.reason.clone());
            }
        }
    }
}

/// A command without its leading wrappers (`sudo`, `env A=1`, `nice -n 5`, `timeout 10`, …): a rule
/// for `kubectl apply …` matches `sudo kubectl apply …` too.
fn unwrapped(command: &str) -> &str {
    const WRAPPERS: &[&str] = &["sudo", "doas", "env", "nice", "nohup", "time", "command", "exec", "timeout", "stdbuf", "ionice"];
    let mut rest = command;
    let mut after_wrapper = false;
    while let Some((word, tail)) = rest.split_once(' ') {
        let wrapper = WRAPPERS.contains(&word.rsplit('/').next().unwrap_or(word));
        let operand = after_wrapper && (word.starts_with('-') || word.contains('=') || word.chars().all(|c| c.is_ascii_digit()));
        if !(wrapper || operand || word.contains('=') && !word.starts_with('-')) {
            break;
        }
        after_wrapper |= wrapper;
        rest = tail;
    }
    rest
}

/// `pattern`, anchored at both ends, compiled once (a small cache: items are judged on every read).
fn compiled(pattern: &str) -> Result<Arc<Regex>, String> {
    static CACHE: Mutex<Option<HashMap<String, Arc<Regex>>>> = Mutex::new(None);
    if pattern.len() > MAX_PATTERN {
        return Err(format!("more than {MAX_PATTERN} bytes"));
    }
    let mut cache = CACHE.lock().expect("regex cache");
    let cache = cache.get_or_insert_with(HashMap::new);
    if let Some(re) = cache.get(pattern) {
        return Ok(re.clone());
    }
    let re = regex::RegexBuilder::new(&format!("^(?:{pattern})$")).size_limit(1 << 20).build().map_err(|e| e.to_string())?;
    if cache.len() >= 4 * MAX_RULES {
        cache.clear();
    }
    let re = Arc::new(re);
    cache.insert(pattern.to_owned(), re.clone());
    Ok(re)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn rule(tool: &str, on: &str, regex: &str, level: Level, reason: &str) -> RiskRule {
        RiskRule { tool: tool.into(), on: on.into(), regex: regex.into(), level, reason: reason.into() }
    }

    #[test]
    fn a_rule_matches_a_parsed_command_or_a_pointer_and_only_adds() {
        let rules = RiskRules {
            rules: vec![
                rule("Bash", "command", r"kubectl (--context \S+ )?apply .*", Level::High, "applies to a cluster"),
                rule("*", "/amount", r"\d{4,}(\.\d+)?", Level::Medium, "a four-digit amount"),
                rule("deploy", "/env", "prod(uction)?", Level::Critical, "deploys to production"),
            ],
        };
        rules.check().unwrap();
        let mut risk = Risk::default();
        rules.apply("Bash", &json!({ "command": "cd k8s && sudo kubectl --context prod-eu apply -f ." }), &mut risk);
        assert_eq!((risk.level, risk.first_reason()), (Level::High, "applies to a cluster"));
        let mut risk = Risk::default();
        rules.apply("Bash", &json!({ "command": "echo kubectl apply -f ." }), &mut risk);
        assert_eq!(risk.level, Level::Low, "an argument of echo is no command");
        let mut risk = Risk::default();
        rules.apply("refund", &json!({ "amount": 2500 }), &mut risk);
        assert_eq!(risk.level, Level::Medium);
        let mut risk = Risk::default();
        rules.apply("deploy", &json!({ "env": "production-eu" }), &mut risk);
        assert_eq!(risk.level, Level::Low, "the whole value must match");
        let mut risk = Risk { level: Level::High, reasons: vec![] };
        rules.apply("refund", &json!({ "amount": 2500 }), &mut risk);
        assert_eq!(risk.level, Level::High, "never lowers");
    }

    #[test]
    fn a_rule_that_cannot_work_is_refused_with_what_is_wrong() {
        let bad = |r: RiskRule| RiskRules { rules: vec![r] }.check().unwrap_err();
        assert!(bad(rule("Bash", "command", "(", Level::High, "x")).contains("does not compile"));
        assert!(bad(rule("Bash", "args", "x", Level::High, "x")).contains("JSON Pointer"));
        assert!(bad(rule("", "command", "x", Level::High, "x")).contains("no tool"));
        assert!(bad(rule("Bash", "command", "x", Level::High, " ")).contains("no reason"));
        assert!(bad(rule("Bash", "command", &"a".repeat(MAX_PATTERN + 1), Level::High, "x")).contains("more than"));
    }
}
