//! "Always allow" written back (issue 47): when an "always allow" grant approves a coding agent's
//! call, the answer the agent gets carries, beside the approval, a rule in the agent's own format
//! that stops it asking again for that in its session — session scope only (a project or user rule
//! would outlive the grant and is written only when an operator picks it, which this console does
//! not offer yet). One function says what that rule is ([`of`]): the connector that sends it reads
//! it, and the audit entry of the grant's use (`grant.used`) records it, so what the agent was told
//! is in the log. Revoking the grant cannot take it back: the agent keeps it until its session ends.
//!
//! - Claude Code's `PermissionRequest`: `updatedPermissions` in session scope. For a command (Bash)
//!   one rule of the command exactly (`Bash` with that `ruleContent`, never a prefix: what Claude
//!   Code suggests for a command may be a prefix, a mode such as `acceptEdits` or a directory, all
//!   broader than the call approved; none for a command holding `*` or a line break). For another
//!   tool, the request's own `permission_suggestions` (kept in the call's context as
//!   `permissionSuggestions`): their `addRules` with `behavior: allow` only, each sent with
//!   `destination: session` whatever it suggested (never a mode change, never a directory).
//! - Codex's `PermissionRequest` hook: `updatedPermissions` with one `prefixRule` of the command's
//!   words — the whole command, nothing shorter; a command written as text is split only when it
//!   holds no quoting, expansion or operator of the shell, else no rule is sent.
//! - Codex's app-server: the decision `acceptForSession` instead of `accept`.

use super::CallSource;
use serde::Serialize;
use serde_json::{json, Value};

/// The one scope written back.
pub const SESSION: &str = "session";

/// A rule sent to an agent with a grant's approval: `agent` (the call's source) and what its answer
/// carries — `updatedPermissions`' array for a hook, the decision's text for Codex's app-server.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionRule {
    pub agent: &'static str,
    pub destination: &'static str,
    pub rule: Value,
}

/// The rule a grant's approval of a call of `source` with `args`, asked through `context` (the
/// submitted call's, whose `event` names the request), writes back; `None` when the agent takes none
/// there (a `PreToolUse` hook, Gemini CLI, an MCP gate) or nothing narrow enough can be said.
pub fn of(source: CallSource, args: &Value, context: Option<&Value>) -> Option<SessionRule> {
    let context = context?;
    let event = context["event"].as_str()?;
    let rule = match (source, event) {
        (CallSource::ClaudeCode, "PermissionRequest") if args["command"].is_string() => {
            // Bash: the command exactly (a rule without `:*` matches only itself).
            let command = args["command"].as_str().filter(|c| !c.trim().is_empty() && !c.contains(['*', '\n', '\r']))?;
            json!([{ "type": "addRules", "behavior": "allow", "destination": SESSION,
                "rules": [{ "toolName": "Bash", "ruleContent": command }] }])
        }
        (CallSource::ClaudeCode, "PermissionRequest") => {
            let rules: Vec<Value> = context["permissionSuggestions"]
                .as_array()?
                .iter()
                .filter(|s| s["type"] == "addRules" && s["behavior"] == "allow" && s["rules"].as_array().is_some_and(|r| !r.is_empty()))
                .map(|s| json!({ "type": "addRules", "behavior": "allow", "destination": SESSION, "rules": s["rules"] }))
                .collect();
            (!rules.is_empty()).then_some(Value::Array(rules))?
        }
        (CallSource::Codex, "PermissionRequest") => {
            let words = command_words(&args["command"])?;
            json!([{ "type": "addRules", "behavior": "allow", "destination": SESSION,
                "rules": [{ "type": "prefixRule", "command": words }] }])
        }
        (CallSource::Codex, "item/commandExecution/requestApproval" | "item/fileChange/requestApproval") => json!("acceptForSession"),
        _ => return None,
    };
    Some(SessionRule { agent: source.as_str(), destination: SESSION, rule })
}

/// A command's words: a list of strings as given, or text split at spaces when it holds nothing the
/// shell would read otherwise (quotes, escapes, expansions, operators, globs, comments).
fn command_words(command: &Value) -> Option<Vec<String>> {
    let words: Vec<String> = match command {
        Value::Array(words) => words.iter().map(|w| w.as_str().map(str::to_owned)).collect::<Option<_>>()?,
        Value::String(text) => {
            if text.chars().any(|c| "'\"\\$`;&|<>()*?[]{}~#!\n\r".contains(c)) {
                return None;
            }
            text.split_whitespace().map(str::to_owned).collect()
        }
        _ => return None,
    };
    (!words.is_empty() && words.iter().all(|w| !w.is_empty())).then_some(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claude_codes_suggested_allow_rules_go_back_in_session_scope_and_nothing_else_of_them() {
        let context = json!({ "event": "PermissionRequest", "permissionSuggestions": [
            { "type": "addRules", "behavior": "allow", "destination": "localSettings", "rules": [{ "toolName": "Bash", "ruleContent": "npm test" }] },
            { "type": "setMode", "mode": "acceptEdits", "destination": "session" },
            { "type": "addDirectories", "directories": ["/"], "destination": "session" },
            { "type": "addRules", "behavior": "deny", "destination": "session", "rules": [{ "toolName": "Bash" }] },
        ] });
        let rule = of(CallSource::ClaudeCode, &json!({ "file_path": "/repo/a.rs" }), Some(&context)).unwrap();
        assert_eq!((rule.agent, rule.destination), ("claude-code", "session"));
        assert_eq!(
            rule.rule,
            json!([{ "type": "addRules", "behavior": "allow", "destination": "session", "rules": [{ "toolName": "Bash", "ruleContent": "npm test" }] }])
        );
        // A command: the command exactly, whatever was suggested (here a prefix, broader).
        let prefix = json!({ "event": "PermissionRequest", "permissionSuggestions": [{ "type": "addRules", "behavior": "allow",
            "destination": "localSettings", "rules": [{ "toolName": "Bash", "ruleContent": "npm:*" }] }] });
        assert_eq!(
            of(CallSource::ClaudeCode, &json!({ "command": "npm test" }), Some(&prefix)).unwrap().rule,
            json!([{ "type": "addRules", "behavior": "allow", "destination": "session", "rules": [{ "toolName": "Bash", "ruleContent": "npm test" }] }])
        );
        for command in ["rm *", "ls\nrm -rf /", " "] {
            assert_eq!(of(CallSource::ClaudeCode, &json!({ "command": command }), Some(&prefix)), None, "{command:?}");
        }
        let none = json!({ "event": "PermissionRequest", "permissionSuggestions": [{ "type": "setMode", "mode": "bypassPermissions" }] });
        assert_eq!(of(CallSource::ClaudeCode, &json!({}), Some(&none)), None, "no allow rule suggested: none written");
        let pre = json!({ "event": "PreToolUse", "permissionSuggestions": context["permissionSuggestions"] });
        assert_eq!(of(CallSource::ClaudeCode, &json!({}), Some(&pre)), None, "PreToolUse takes no updatedPermissions");
    }

    #[test]
    fn codex_gets_a_prefix_rule_of_the_whole_command_or_none_and_its_app_server_accept_for_session() {
        let context = json!({ "event": "PermissionRequest" });
        let rule = |args: Value| of(CallSource::Codex, &args, Some(&context)).map(|r| r.rule);
        assert_eq!(
            rule(json!({ "command": "cargo  test --lib" })),
            Some(json!([{ "type": "addRules", "behavior": "allow", "destination": "session",
                "rules": [{ "type": "prefixRule", "command": ["cargo", "test", "--lib"] }] }]))
        );
        assert_eq!(rule(json!({ "command": ["git", "status"] })).unwrap()[0]["rules"][0]["command"], json!(["git", "status"]));
        for shell in ["ls; rm -rf /", "echo $HOME", "a && b", "cat 'x y'", "rm *", ""] {
            assert_eq!(rule(json!({ "command": shell })), None, "{shell:?}");
        }
        let app = json!({ "event": "item/commandExecution/requestApproval" });
        assert_eq!(of(CallSource::Codex, &json!({ "command": "ls; rm" }), Some(&app)).unwrap().rule, json!("acceptForSession"));
        assert_eq!(of(CallSource::Gemini, &json!({ "command": "ls" }), Some(&json!({ "event": "BeforeTool" }))), None);
        assert_eq!(of(CallSource::Codex, &json!({ "command": "ls" }), None), None);
    }
}
