//! Gemini CLI's hook entry: a `BeforeTool` group in its `settings.json` (`hooks.BeforeTool`), the
//! command run by `bash -c` with a fallback that blocks when the hook does not exit 0.

use super::{json_settings, json_text, shell_word, HookSpec, InstallError, BINARY};
use serde_json::{json, Value};

/// The tools a new group asks about: the shell, the two that write files, and every MCP server's
/// (Gemini names them `mcp_<server>_<tool>`). Gemini tests the matcher as an unanchored regex.
pub const MATCHER: &str = "^(run_shell_command|write_file|replace|mcp_.*)$";
/// The entry's `name`: what `/hooks disable` and `hooksConfig.disabled` name it by.
const NAME: &str = "approval-console";
/// What a hook that did not exit 0 says to the model, and the operator sees.
pub const FAILED: &str = "Approval Console: the hook failed, so this call is blocked";

/// Gemini's hook command: the hook's answer kept by the shell and printed only when it exited 0;
/// otherwise nothing on stdout (Gemini would read a crash's output as an answer) and exit 2 (Gemini's
/// block) with the reason on stderr.
pub fn gemini_command(spec: &HookSpec) -> Result<String, InstallError> {
    let url = spec.url.as_deref().map(|u| format!(" --url {}", shell_word(u))).unwrap_or_default();
    Ok(format!(
        "answer=$({} hook gemini --timeout {}{url}) && printf '%s\\n' \"$answer\" || {{ echo '{FAILED}' >&2; exit 2; }}",
        shell_word(spec.program()?),
        spec.timeout
    ))
}

/// The entry (an item of a group's `hooks`); Gemini's `timeout` is in milliseconds.
fn entry(spec: &HookSpec) -> Result<Value, InstallError> {
    Ok(json!({
        "name": NAME,
        "type": "command",
        "command": gemini_command(spec)?,
        "timeout": spec.agent_timeout().saturating_mul(1000),
    }))
}

/// Whether a Gemini hook entry runs `approval-console hook gemini`.
fn is_ours(entry: &Value) -> bool {
    entry["command"].as_str().is_some_and(|c| c.contains(BINARY) && c.contains("hook gemini"))
}

/// `existing` with the entry of ours rewritten where it is, else a `BeforeTool` group added.
pub fn merge(existing: Option<&str>, spec: &HookSpec) -> Result<String, InstallError> {
    let mut settings = json_settings(existing)?;
    let ours = entry(spec)?;
    let root = settings.as_object_mut().expect("json_settings gives an object");
    let hooks = root.entry("hooks").or_insert_with(|| json!({}));
    let hooks = hooks.as_object_mut().ok_or_else(|| InstallError::Shape("\"hooks\" is not an object".into()))?;
    let groups = hooks.entry("BeforeTool").or_insert_with(|| json!([]));
    let groups = groups.as_array_mut().ok_or_else(|| InstallError::Shape("\"hooks\".\"BeforeTool\" is not an array".into()))?;
    let mut found = false;
    for entry in groups.iter_mut().filter_map(|g| g.get_mut("hooks")).filter_map(Value::as_array_mut).flatten() {
        if is_ours(entry) {
            *entry = ours.clone();
            found = true;
        }
    }
    if !found {
        groups.push(json!({ "matcher": MATCHER, "hooks": [ours] }));
    }
    Ok(json_text(&settings))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn spec() -> HookSpec {
        HookSpec { program: PathBuf::from("/opt/my tools/approval-console"), timeout: 290, url: None, event: None }
    }

    #[test]
    fn gemini_settings_keep_what_is_there_and_merging_twice_changes_nothing() {
        let existing = r#"{
  "model": { "name": "gemini-2.5-pro" },
  "hooks": {
    "BeforeTool": [
      { "matcher": "write_file", "hooks": [{ "type": "command", "command": "prettier --check" }] },
      { "matcher": "run_shell_command", "hooks": [{ "type": "command", "command": "approval-console hook gemini --timeout 50", "timeout": 60000 }] }
    ],
    "AfterAgent": [{ "hooks": [{ "type": "command", "command": "notify-send done" }] }]
  }
}"#;
        let merged = merge(Some(existing), &spec()).unwrap();
        let v: Value = serde_json::from_str(&merged).unwrap();
        assert_eq!(v["model"]["name"], "gemini-2.5-pro");
        assert_eq!(v["hooks"]["AfterAgent"][0]["hooks"][0]["command"], "notify-send done");
        assert_eq!(v["hooks"]["BeforeTool"][0]["hooks"][0]["command"], "prettier --check", "another hook is kept");
        let ours = &v["hooks"]["BeforeTool"][1];
        assert_eq!(ours["matcher"], "run_shell_command", "the old entry of ours is rewritten where it was, with its matcher");
        assert_eq!(
            ours["hooks"][0],
            json!({ "name": "approval-console", "type": "command", "timeout": 300_000,
                "command": "answer=$('/opt/my tools/approval-console' hook gemini --timeout 290) && printf '%s\\n' \"$answer\" || { echo 'Approval Console: the hook failed, so this call is blocked' >&2; exit 2; }" })
        );
        assert_eq!(v["hooks"]["BeforeTool"].as_array().unwrap().len(), 2, "no second entry");
        assert_eq!(merge(Some(&merged), &spec()).unwrap(), merged, "idempotent");
    }

    #[test]
    fn gemini_settings_without_the_hook_get_a_before_tool_group_and_bad_ones_are_refused() {
        for existing in [None, Some(""), Some("{}"), Some(r#"{"hooks":{}}"#)] {
            let v: Value = serde_json::from_str(&merge(existing, &spec()).unwrap()).unwrap();
            let group = &v["hooks"]["BeforeTool"][0];
            assert_eq!(group["matcher"], MATCHER, "{existing:?}");
            assert_eq!(group["hooks"][0]["name"], "approval-console");
        }
        let at = HookSpec { url: Some("http://127.0.0.1:5123".into()), ..spec() };
        assert!(gemini_command(&at).unwrap().contains("hook gemini --timeout 290 --url http://127.0.0.1:5123)"));
        for bad in ["{ \"hooks\": ", "[1, 2]", r#"{"hooks": []}"#, r#"{"hooks": {"BeforeTool": {}}}"#] {
            assert!(merge(Some(bad), &spec()).is_err(), "{bad}");
        }
    }
}
