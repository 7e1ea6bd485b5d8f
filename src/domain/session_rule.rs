//! "Always allow" written back (issue 47): when an "always allow" grant approves a coding agent's
//! call, the answer the agent gets carries, beside the approval, a rule in the agent's own format
//! that stops it asking again. One function says what that rule is ([`of`]): the connector that sends
//! it reads it, the grant dialog's preview shows it before the grant is made, and the audit entry of
//! the grant's use (`grant.used`) records it, so what the agent was told is in the log.
//!
//! Where the agent keeps it — its [`RuleScope`] — is the grant's: its session by default; its
//! project's or its user's settings only when the admin who made the grant picked that scope (a
//! project or user rule outlives the grant). The scope reaches the connector in the approval's signed
//! receipt (its `ruleScope` claim), never in an unsigned field.
//!
//! - Claude Code's `PermissionRequest`: `updatedPermissions` with the scope's destination
//!   (`session`, `projectSettings`, `userSettings`). For a command (Bash) one rule of the command
//!   exactly (`Bash` with that `ruleContent`, never a prefix: what Claude Code suggests for a command
//!   may be a prefix, a mode such as `acceptEdits` or a directory, all broader than the call
//!   approved; none for a command holding `*` or a line break). For another tool, the request's own
//!   `permission_suggestions` (kept in the call's context as `permissionSuggestions`): their
//!   `addRules` with `behavior: allow` only, each sent with the scope's destination whatever it
//!   suggested (never a mode change, never a directory).
//! - Codex's `PermissionRequest` hook: `updatedPermissions` with one `prefixRule` of the command's
//!   words — the whole command, nothing shorter; a command written as text is split only when it
//!   holds no quoting, expansion or operator of the shell, else no rule is sent.
//! - Codex's app-server: the decision `acceptForSession` instead of `accept`; it has no rule scopes.
//! - Gemini CLI's `BeforeTool` hook: in user scope only, a policy rule (`decision = "allow"`,
//!   `commandPrefix` of the command's words, split as for Codex) that the hook adds to
//!   `~/.gemini/policies/approval-console.toml` ([`gemini_policy`]); no rule in session scope.

use super::CallSource;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

pub mod gemini_policy;
pub mod written;

/// Where an agent keeps a rule written back: its session (the default), its project's settings, or
/// its user's. Chosen by the admin who makes the grant; the grant stores it, its receipts carry it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum RuleScope {
    #[default]
    Session,
    Project,
    User,
}

impl RuleScope {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Session => "session",
            Self::Project => "project",
            Self::User => "user",
        }
    }

    /// The scope named `text` exactly as [`RuleScope::as_str`] writes it.
    pub fn parse(text: &str) -> Option<Self> {
        [Self::Session, Self::Project, Self::User].into_iter().find(|s| s.as_str() == text)
    }

    /// Claude Code's and Codex's `destination` for it.
    fn destination(self) -> &'static str {
        match self {
            Self::Session => "session",
            Self::Project => "projectSettings",
            Self::User => "userSettings",
        }
    }
}

/// A rule sent to an agent with a grant's approval: `agent` (the call's source), the scope it is kept
/// in and the agent's word for it (`destination`), what its answer carries — `updatedPermissions`'
/// array for a hook, the decision's text for Codex's app-server, the policy rule for Gemini CLI — and
/// where the agent keeps it outside its session (`location`: a file, `~` for the agent's home; a
/// project's is under the directory its hook reported as `cwd`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AgentRule {
    pub agent: String,
    pub scope: RuleScope,
    pub destination: String,
    pub rule: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location: Option<String>,
}

/// The scopes an agent asked through `context` takes a rule in (the first: the default). Codex's
/// app-server has no rule scopes (`acceptForSession` only); Gemini CLI's hook writes a user-scope
/// policy rule or none; an agent that takes no rule there (a `PreToolUse` hook, an MCP gate) only the
/// default, which writes nothing.
pub fn scopes(source: CallSource, context: Option<&Value>) -> &'static [RuleScope] {
    const ALL: &[RuleScope] = &[RuleScope::Session, RuleScope::Project, RuleScope::User];
    match (source, context.and_then(|c| c["event"].as_str())) {
        (CallSource::ClaudeCode, Some("PermissionRequest")) => ALL,
        (CallSource::Codex, Some("PermissionRequest")) => ALL,
        (CallSource::Gemini, Some("BeforeTool")) => &[RuleScope::Session, RuleScope::User],
        _ => &[RuleScope::Session],
    }
}

/// The rule a grant's approval of a call of `source` with `args`, asked through `context` (the
/// submitted call's, whose `event` names the request), writes back in `scope` — or in the session
/// when the agent does not take `scope` there ([`scopes`]: never broader than picked); `None` when
/// the agent takes none there (a `PreToolUse` hook, an MCP gate, Gemini CLI outside user scope) or
/// nothing narrow enough can be said.
pub fn of(source: CallSource, args: &Value, context: Option<&Value>, scope: RuleScope) -> Option<AgentRule> {
    let scope = if scopes(source, context).contains(&scope) { scope } else { RuleScope::Session };
    let context = context?;
    let event = context["event"].as_str()?;
    let destination = scope.destination();
    let cwd = context["cwd"].as_str().filter(|c| c.starts_with('/'));
    let project = |file: &str| Some(format!("{}/{file}", cwd.unwrap_or("<project>").trim_end_matches('/')));
    let (rule, location) = match (source, event) {
        (CallSource::ClaudeCode, "PermissionRequest") if args["command"].is_string() => {
            // Bash: the command exactly (a rule without `:*` matches only itself).
            let command = args["command"].as_str().filter(|c| !c.trim().is_empty() && !c.contains(['*', '\n', '\r']))?;
            let rule = json!([{ "type": "addRules", "behavior": "allow", "destination": destination,
                "rules": [{ "toolName": "Bash", "ruleContent": command }] }]);
            (rule, claude_code_file(scope, project))
        }
        (CallSource::ClaudeCode, "PermissionRequest") => {
            let rules: Vec<Value> = context["permissionSuggestions"]
                .as_array()?
                .iter()
                .filter(|s| s["type"] == "addRules" && s["behavior"] == "allow" && s["rules"].as_array().is_some_and(|r| !r.is_empty()))
                .map(|s| json!({ "type": "addRules", "behavior": "allow", "destination": destination, "rules": s["rules"] }))
                .collect();
            ((!rules.is_empty()).then_some(Value::Array(rules))?, claude_code_file(scope, project))
        }
        (CallSource::Codex, "PermissionRequest") => {
            let words = command_words(&args["command"])?;
            let rule = json!([{ "type": "addRules", "behavior": "allow", "destination": destination,
                "rules": [{ "type": "prefixRule", "command": words }] }]);
            let file = match scope {
                RuleScope::Session => None,
                RuleScope::Project => project(".codex/rules/default.rules"),
                RuleScope::User => Some("~/.codex/rules/default.rules".to_owned()),
            };
            (rule, file)
        }
        (CallSource::Codex, "item/commandExecution/requestApproval" | "item/fileChange/requestApproval") => {
            (json!("acceptForSession"), None)
        }
        (CallSource::Gemini, "BeforeTool") if scope == RuleScope::User => {
            let words = command_words(&args["command"])?;
            let file = Some(format!("~/{}", gemini_policy::FILE));
            return Some(AgentRule {
                agent: source.as_str().to_owned(),
                scope,
                destination: "userPolicies".into(),
                rule: gemini_policy::rule(&words.join(" ")),
                location: file,
            });
        }
        _ => return None,
    };
    Some(AgentRule { agent: source.as_str().to_owned(), scope, destination: destination.to_owned(), rule, location })
}

/// Where Claude Code keeps a rule of `scope`: its project's `.claude/settings.json`, its user's
/// `~/.claude/settings.json`; nowhere outside its session for session scope.
fn claude_code_file(scope: RuleScope, project: impl Fn(&str) -> Option<String>) -> Option<String> {
    match scope {
        RuleScope::Session => None,
        RuleScope::Project => project(".claude/settings.json"),
        RuleScope::User => Some("~/.claude/settings.json".to_owned()),
    }
}

/// A command's words: a list of strings as given, or text split at spaces when it holds nothing the
/// shell would read otherwise (quotes, escapes, expansions, operators, globs, comments).
pub fn command_words(command: &Value) -> Option<Vec<String>> {
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
        let rule = of(CallSource::ClaudeCode, &json!({ "file_path": "/repo/a.rs" }), Some(&context), RuleScope::Session).unwrap();
        assert_eq!((rule.agent.as_str(), rule.destination.as_str(), rule.location), ("claude-code", "session", None));
        assert_eq!(
            rule.rule,
            json!([{ "type": "addRules", "behavior": "allow", "destination": "session", "rules": [{ "toolName": "Bash", "ruleContent": "npm test" }] }])
        );
        // A command: the command exactly, whatever was suggested (here a prefix, broader).
        let prefix = json!({ "event": "PermissionRequest", "permissionSuggestions": [{ "type": "addRules", "behavior": "allow",
            "destination": "localSettings", "rules": [{ "toolName": "Bash", "ruleContent": "npm:*" }] }] });
        assert_eq!(
            of(CallSource::ClaudeCode, &json!({ "command": "npm test" }), Some(&prefix), RuleScope::Session).unwrap().rule,
            json!([{ "type": "addRules", "behavior": "allow", "destination": "session", "rules": [{ "toolName": "Bash", "ruleContent": "npm test" }] }])
        );
        for command in ["rm *", "ls\nrm -rf /", " "] {
            assert_eq!(of(CallSource::ClaudeCode, &json!({ "command": command }), Some(&prefix), RuleScope::Session), None, "{command:?}");
        }
        let none = json!({ "event": "PermissionRequest", "permissionSuggestions": [{ "type": "setMode", "mode": "bypassPermissions" }] });
        assert_eq!(of(CallSource::ClaudeCode, &json!({}), Some(&none), RuleScope::Session), None, "no allow rule suggested: none written");
        let pre = json!({ "event": "PreToolUse", "permissionSuggestions": context["permissionSuggestions"] });
        assert_eq!(of(CallSource::ClaudeCode, &json!({}), Some(&pre), RuleScope::Session), None, "PreToolUse takes no updatedPermissions");
    }

    #[test]
    fn codex_gets_a_prefix_rule_of_the_whole_command_or_none_and_its_app_server_accept_for_session() {
        let context = json!({ "event": "PermissionRequest" });
        let rule = |args: Value| of(CallSource::Codex, &args, Some(&context), RuleScope::Session).map(|r| r.rule);
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
        assert_eq!(
            of(CallSource::Codex, &json!({ "command": "ls; rm" }), Some(&app), RuleScope::Session).unwrap().rule,
            json!("acceptForSession")
        );
        assert_eq!(of(CallSource::Gemini, &json!({ "command": "ls" }), Some(&json!({ "event": "BeforeTool" })), RuleScope::Session), None);
        assert_eq!(of(CallSource::Codex, &json!({ "command": "ls" }), None, RuleScope::Session), None);
    }

    #[test]
    fn a_project_or_user_scope_names_the_agents_own_destination_and_file_and_only_where_the_agent_takes_it() {
        let asked = json!({ "event": "PermissionRequest", "cwd": "/work/repo" });
        let claude = |scope| of(CallSource::ClaudeCode, &json!({ "command": "npm test" }), Some(&asked), scope).unwrap();
        let project = claude(RuleScope::Project);
        assert_eq!(project.rule[0]["destination"], "projectSettings");
        assert_eq!(project.location.as_deref(), Some("/work/repo/.claude/settings.json"));
        let user = claude(RuleScope::User);
        assert_eq!(
            (user.rule[0]["destination"].as_str(), user.location.as_deref()),
            (Some("userSettings"), Some("~/.claude/settings.json"))
        );
        let codex = of(CallSource::Codex, &json!({ "command": "cargo test" }), Some(&asked), RuleScope::User).unwrap();
        assert_eq!((codex.rule[0]["destination"].as_str(), codex.scope), (Some("userSettings"), RuleScope::User));
        // A cwd that is not an absolute path is never a location.
        let odd = json!({ "event": "PermissionRequest", "cwd": "../../etc" });
        let rule = of(CallSource::ClaudeCode, &json!({ "command": "ls" }), Some(&odd), RuleScope::Project).unwrap();
        assert_eq!(rule.location.as_deref(), Some("<project>/.claude/settings.json"));

        // Codex's app-server has no scopes; Gemini CLI a user policy rule only; a PreToolUse hook none.
        let app = json!({ "event": "item/commandExecution/requestApproval" });
        assert_eq!(scopes(CallSource::Codex, Some(&app)), &[RuleScope::Session]);
        let app_rule = of(CallSource::Codex, &json!({ "command": "ls" }), Some(&app), RuleScope::Project).unwrap();
        assert_eq!((app_rule.rule, app_rule.scope), (json!("acceptForSession"), RuleScope::Session), "never broader than picked");
        let gemini = json!({ "event": "BeforeTool", "cwd": "/work/repo" });
        assert_eq!(of(CallSource::Gemini, &json!({ "command": "npm test" }), Some(&gemini), RuleScope::Project), None);
        let policy = of(CallSource::Gemini, &json!({ "command": "npm  test" }), Some(&gemini), RuleScope::User).unwrap();
        assert_eq!(policy.rule, gemini_policy::rule("npm test"));
        assert_eq!(policy.location.as_deref(), Some("~/.gemini/policies/approval-console.toml"));
        assert_eq!(of(CallSource::Gemini, &json!({ "command": "npm test; rm -rf /" }), Some(&gemini), RuleScope::User), None);
        let pre = json!({ "event": "PreToolUse" });
        assert_eq!(of(CallSource::ClaudeCode, &json!({ "command": "ls" }), Some(&pre), RuleScope::User), None);
        assert_eq!(RuleScope::parse("user"), Some(RuleScope::User));
    }
}
