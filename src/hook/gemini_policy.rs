//! Gemini CLI's "always allow" written back (issue 47): when a grant in user scope approved a
//! `gemini` call — as the approval's checked receipt says ([`crate::connector::always_allowed_in`]) —
//! the hook adds the grant's policy rule ([`crate::domain::session_rule::of`]: `decision = "allow"`,
//! `commandPrefix` of a command with no shell syntax) to `approval-console.toml` in the user's
//! Gemini policies, under a comment naming the grant. Nothing else: no rule without such a receipt,
//! none in another scope, none for another tool, never a rule taken from the agent's input as it is.
//!
//! Gemini CLI 0.61.0 checks its policies after the `BeforeTool` hook (its scheduler's
//! `_processToolCall`), so the rule never skips the hook: what it buys is that Gemini does not ask
//! its own user to confirm that command again once the console approved it (and that a headless run
//! outside YOLO mode runs it instead of refusing an `ask_user`).

use crate::app::calls::{CallStatus, NewCall};
use crate::domain::session_rule::{self, gemini_policy};
use crate::domain::CallSource;
use std::path::{Path, PathBuf};

/// The home Gemini CLI reads its user policies under: `$GEMINI_CLI_HOME`, else `$HOME`.
pub fn home() -> Option<PathBuf> {
    ["GEMINI_CLI_HOME", "HOME"].into_iter().find_map(|v| std::env::var_os(v).filter(|h| !h.is_empty()).map(PathBuf::from))
}

/// Adds the policy rule `status` (the checked outcome of `call`) writes back to the file under `home`;
/// answers the file when it was written, `None` when there is nothing to write (or it is there).
pub fn write(call: &NewCall, status: &CallStatus, home: &Path) -> Result<Option<PathBuf>, String> {
    let Some(scope) = crate::connector::always_allowed_in(status) else { return Ok(None) };
    if call.source != Some(CallSource::Gemini) {
        return Ok(None);
    }
    let Some(rule) = session_rule::of(CallSource::Gemini, &call.args, call.context.as_ref(), scope) else { return Ok(None) };
    let Some(grant) = status.receipt.as_deref().and_then(crate::domain::receipt::grant_of) else { return Ok(None) };
    let file = home.join(gemini_policy::FILE);
    let text = match std::fs::read_to_string(&file) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(format!("cannot read {}: {e}", file.display())),
    };
    let Some(new) = gemini_policy::add(&text, grant.as_str(), &rule.rule) else { return Ok(None) };
    let dir = file.parent().expect("the file is under a directory");
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot make {}: {e}", dir.display()))?;
    // Whole or not at all: Gemini never reads half a file.
    let part = dir.join(".approval-console.toml.part");
    std::fs::write(&part, new).and_then(|()| std::fs::rename(&part, &file)).map_err(|e| format!("cannot write {}: {e}", file.display()))?;
    Ok(Some(file))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::connector::tests::{approved_by, approved_by_grant_in};
    use crate::domain::session_rule::RuleScope;
    use serde_json::json;

    fn call(command: &str) -> NewCall {
        serde_json::from_value(json!({ "tool": "run_shell_command", "args": { "command": command }, "agent": "gemini", "source": "gemini",
            "context": { "event": "BeforeTool", "cwd": "/repo" } }))
        .unwrap()
    }

    #[test]
    fn only_a_user_scope_grants_approval_of_a_plain_command_writes_a_rule_tagged_with_the_grant() {
        let home = tempfile::tempdir().unwrap();
        let file = home.path().join(gemini_policy::FILE);
        let by_grant = approved_by_grant_in("g_7", RuleScope::User);
        for (call, status, why) in [
            (call("npm test"), approved_by(vec!["local:alice".into()]), "an operator's approval is once"),
            (call("npm test"), approved_by_grant_in("g_7", RuleScope::Session), "a session-scope grant: Gemini has no session rule"),
            (call("npm test; rm -rf ~"), by_grant.clone(), "shell syntax"),
        ] {
            assert_eq!(write(&call, &status, home.path()), Ok(None), "{why}");
            assert!(!file.exists(), "{why}");
        }
        let mut edited = by_grant.clone();
        edited.edited = true;
        assert_eq!(write(&call("npm test"), &edited, home.path()), Ok(None), "an edit is no grant's approval");
        assert_eq!(write(&call("npm test"), &by_grant, home.path()), Ok(Some(file.clone())));
        assert_eq!(write(&call("npm test"), &by_grant, home.path()), Ok(None), "there already");
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(text.starts_with("# approval-console grant g_7\n[[rule]]\n"), "{text}");
        assert_eq!(gemini_policy::prefixes_of(&text, "g_7"), vec!["npm test".to_owned()]);
    }
}
