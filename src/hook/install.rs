//! `approval-console hooks install claude-code|codex|gemini`: the hook entry an agent's settings need, merged
//! into the settings file it already has. The entry names the binary by its absolute path (no `PATH`
//! lookup that a shell profile or a move can break), gives the agent's own timeout a margin over the
//! hook's `--timeout`, and makes a hook that cannot answer block the call where the agent allows it:
//!
//! - Claude Code: `"onFailure": "block"` (Claude Code ≥ 2.1.295): a hook that cannot start, crashes,
//!   exits with another code than 0 or 2, prints what is not a hook answer or runs past its `timeout`
//!   blocks the tool. Exec form (`command` + `args`): no shell parses the path.
//! - Codex has no such setting (0.169.0 runs the tool whenever a hook fails). The command runs through
//!   a shell with a fallback that exits 2 (Codex's "block") when the hook exits non-zero: a missing
//!   binary or a crash blocks; a hook that runs past Codex's `timeout` does not (README).
//! - Gemini CLI 0.61 reads a hook's stdout whatever its exit code, and takes a run killed by a signal
//!   for exit 0: a crash that printed something that is not JSON reads as an allow. The command
//!   runs through a shell (Gemini runs every hook with `bash -c`) that keeps the hook's stdout until
//!   it exits 0 and otherwise prints nothing there and exits 2 with the reason on stderr (Gemini's
//!   "block"): a missing binary or a crash blocks; a hook that runs past Gemini's `timeout` does
//!   not (README).
//!
//! Merging keeps everything else in the file: an entry of ours (the binary's name with `hook
//! claude-code|codex|gemini`, under `PreToolUse` or `PermissionRequest`, Gemini's under `BeforeTool`)
//! is rewritten where it is; without one, a `PreToolUse` (Gemini: `BeforeTool`) group is added. Merging what it produced gives the same text (idempotent). A
//! file that does not parse, or whose hooks are not shaped as the agent reads them, is refused.

mod gemini;

pub use gemini::gemini_command;

use super::Agent;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// The hook's own `--timeout` unless told: long enough for an operator to look.
pub const DEFAULT_TIMEOUT_SECS: u64 = 290;
/// Seconds the agent gives the hook beyond its `--timeout` (withdrawing the call, answering).
pub const AGENT_MARGIN_SECS: u64 = 10;
/// The events whose entries of ours are rewritten in place.
const EVENTS: [&str; 2] = ["PreToolUse", "PermissionRequest"];
/// The binary's file name, by which an entry of ours is known.
const BINARY: &str = "approval-console";

/// What the entry runs.
#[derive(Clone, Debug)]
pub struct HookSpec {
    /// The `approval-console` binary, absolute.
    pub program: PathBuf,
    /// The hook's own `--timeout`: it denies and withdraws the call then.
    pub timeout: u64,
    /// The console's address, written as the hook's `--url` (`hooks install` gives one when the
    /// console is not at the default address); `None`: the hook finds the serving console itself.
    pub url: Option<String>,
    /// The event the entry goes under (Claude Code, Codex): `None` keeps an entry of ours where it
    /// is (a new one goes under `PreToolUse`); `Some` moves it there.
    pub event: Option<HookEvent>,
}

/// The events a Claude Code or Codex hook of ours may go under.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HookEvent {
    /// Every call of a matching tool asks the console, whatever the agent's own allow rules say.
    PreToolUse,
    /// Only a call the agent would ask its user about asks the console (its own allow rules and
    /// modes decide first); an "always allow" grant's approval writes a session rule back.
    PermissionRequest,
}

impl HookEvent {
    /// The event's name in the agents' settings.
    pub fn name(self) -> &'static str {
        match self {
            Self::PreToolUse => "PreToolUse",
            Self::PermissionRequest => "PermissionRequest",
        }
    }
}

impl HookSpec {
    fn program(&self) -> Result<&str, InstallError> {
        self.program.to_str().ok_or_else(|| InstallError::Path(self.program.clone()))
    }

    fn agent_timeout(&self) -> u64 {
        self.timeout + AGENT_MARGIN_SECS
    }
}

/// Why a settings file was not changed.
#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    #[error("it is not valid {format}: {reason}")]
    Unparsable { format: &'static str, reason: String },
    #[error("{0}")]
    Shape(String),
    #[error("the binary's path {0:?} is not UTF-8: the agent's settings cannot name it")]
    Path(PathBuf),
}

/// The settings file the agent reads for every project of the user: `~/.claude/settings.json`;
/// `$CODEX_HOME/config.toml`, else `~/.codex/config.toml`; `$GEMINI_CLI_HOME/.gemini/settings.json`,
/// else `~/.gemini/settings.json`. `None` without a home.
pub fn default_file(agent: Agent) -> Option<PathBuf> {
    let home = || std::env::var_os("HOME").filter(|h| !h.is_empty()).map(PathBuf::from);
    match agent {
        Agent::ClaudeCode => home().map(|h| h.join(".claude/settings.json")),
        Agent::Codex => std::env::var_os("CODEX_HOME")
            .filter(|h| !h.is_empty())
            .map(PathBuf::from)
            .or_else(|| home().map(|h| h.join(".codex")))
            .map(|d| d.join("config.toml")),
        Agent::Gemini => std::env::var_os("GEMINI_CLI_HOME")
            .filter(|h| !h.is_empty())
            .map(PathBuf::from)
            .or_else(home)
            .map(|h| h.join(".gemini/settings.json")),
    }
}

/// `existing` (the file's text; `None` when there is none) with the hook installed.
pub fn merge(agent: Agent, existing: Option<&str>, spec: &HookSpec) -> Result<String, InstallError> {
    match agent {
        Agent::ClaudeCode => merge_claude_code(existing, spec),
        Agent::Codex => merge_codex(existing, spec),
        Agent::Gemini => gemini::merge(existing, spec),
    }
}

/// Claude Code's hook entry (a `hooks` item of a matcher group).
pub fn claude_code_entry(spec: &HookSpec) -> Result<Value, InstallError> {
    let mut args = vec!["hook".to_owned(), "claude-code".to_owned(), "--timeout".to_owned(), spec.timeout.to_string()];
    if let Some(url) = &spec.url {
        args.extend(["--url".to_owned(), url.clone()]);
    }
    Ok(json!({
        "type": "command",
        "command": spec.program()?,
        "args": args,
        "timeout": spec.agent_timeout(),
        "onFailure": "block",
    }))
}

/// Whether a Claude Code hook entry runs `approval-console hook claude-code` (exec or shell form).
fn is_ours_claude_code(entry: &Value) -> bool {
    let command = entry["command"].as_str().unwrap_or_default();
    let exec_form = Path::new(command).file_name().is_some_and(|n| n.to_string_lossy().starts_with(BINARY))
        && entry["args"].as_array().is_some_and(|a| a.len() >= 2 && a[0] == "hook" && a[1] == "claude-code");
    exec_form || (command.contains(BINARY) && command.contains("hook claude-code"))
}

fn merge_claude_code(existing: Option<&str>, spec: &HookSpec) -> Result<String, InstallError> {
    let mut settings = json_settings(existing)?;
    let ours = claude_code_entry(spec)?;
    let root = settings.as_object_mut().ok_or_else(|| InstallError::Shape("the settings are not a JSON object".into()))?;
    let hooks = root.entry("hooks").or_insert_with(|| json!({}));
    let hooks = hooks.as_object_mut().ok_or_else(|| InstallError::Shape("\"hooks\" is not an object".into()))?;
    let (mut found, mut emptied) = (false, vec![]);
    for event in EVENTS {
        let Some(groups) = hooks.get_mut(event) else { continue };
        let groups = groups.as_array_mut().ok_or_else(|| InstallError::Shape(format!("\"hooks\".\"{event}\" is not an array")))?;
        if spec.event.is_some_and(|wanted| wanted.name() != event) {
            // Moved to the event asked for: ours leaves this one (and a group it leaves empty goes).
            for group in groups.iter_mut() {
                if let Some(entries) = group.get_mut("hooks").and_then(Value::as_array_mut) {
                    entries.retain(|e| !is_ours_claude_code(e));
                }
            }
            let before = groups.len();
            groups.retain(|g| g.get("hooks").and_then(Value::as_array).is_none_or(|e| !e.is_empty()));
            if groups.is_empty() && before > 0 {
                emptied.push(event);
            }
            continue;
        }
        for entry in groups.iter_mut().filter_map(|g| g.get_mut("hooks")).filter_map(Value::as_array_mut).flatten() {
            if is_ours_claude_code(entry) {
                *entry = ours.clone();
                found = true;
            }
        }
    }
    for event in emptied {
        hooks.remove(event);
    }
    if !found {
        let event = spec.event.unwrap_or(HookEvent::PreToolUse).name();
        let groups = hooks.entry(event).or_insert_with(|| json!([]));
        let groups = groups.as_array_mut().ok_or_else(|| InstallError::Shape(format!("\"hooks\".\"{event}\" is not an array")))?;
        groups.push(json!({ "matcher": "Bash|Write|Edit|mcp__.*", "hooks": [ours] }));
    }
    Ok(json_text(&settings))
}

/// The settings as a JSON object (empty when there is no file or it is blank).
fn json_settings(existing: Option<&str>) -> Result<Value, InstallError> {
    let settings: Value = match existing.map(str::trim) {
        None | Some("") => json!({}),
        Some(text) => serde_json::from_str(text).map_err(|e| InstallError::Unparsable { format: "JSON", reason: e.to_string() })?,
    };
    if !settings.is_object() {
        return Err(InstallError::Shape("the settings are not a JSON object".into()));
    }
    Ok(settings)
}

/// `settings` as written back: pretty, with a final newline.
fn json_text(settings: &Value) -> String {
    let mut text = serde_json::to_string_pretty(settings).expect("a JSON value prints");
    text.push('\n');
    text
}

/// `s` as one word for a POSIX shell: as it is when it needs no quoting, else in single quotes.
pub(super) fn shell_word(s: &str) -> String {
    if !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "/._-+:@%".contains(c)) {
        s.to_owned()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// Codex's hook command: the hook, and a shell fallback that blocks (exit 2, the reason on stderr)
/// when it exits non-zero — it could not start, or crashed.
pub fn codex_command(spec: &HookSpec) -> Result<String, InstallError> {
    let url = spec.url.as_deref().map(|u| format!(" --url {}", shell_word(u))).unwrap_or_default();
    Ok(format!(
        "{} hook codex --timeout {}{url} || {{ echo 'Approval Console: the hook failed, so this call is blocked' >&2; exit 2; }}",
        shell_word(spec.program()?),
        spec.timeout
    ))
}

fn is_ours_codex(entry: &toml_edit::Table) -> bool {
    entry.get("command").and_then(|c| c.as_str()).is_some_and(|c| c.contains(BINARY) && c.contains("hook codex"))
}

fn merge_codex(existing: Option<&str>, spec: &HookSpec) -> Result<String, InstallError> {
    use toml_edit::{value, ArrayOfTables, DocumentMut, Item, Table};
    let mut doc: DocumentMut = existing
        .unwrap_or_default()
        .parse()
        .map_err(|e: toml_edit::TomlError| InstallError::Unparsable { format: "TOML", reason: e.to_string() })?;
    let command = codex_command(spec)?;
    let timeout = i64::try_from(spec.agent_timeout()).unwrap_or(i64::MAX);
    let hooks = doc.entry("hooks").or_insert_with(|| {
        let mut t = Table::new();
        t.set_implicit(true);
        Item::Table(t)
    });
    let hooks = hooks.as_table_mut().ok_or_else(|| InstallError::Shape("`hooks` is not a table".into()))?;
    let (mut found, mut emptied) = (false, vec![]);
    for event in EVENTS {
        let Some(groups) = hooks.get_mut(event) else { continue };
        let groups = groups
            .as_array_of_tables_mut()
            .ok_or_else(|| InstallError::Shape(format!("`hooks.{event}` is not an array of tables ([[hooks.{event}]])")))?;
        if spec.event.is_some_and(|wanted| wanted.name() != event) {
            // Moved to the event asked for: ours leaves this one (and a group it leaves empty goes).
            for group in groups.iter_mut() {
                if let Some(entries) = group.get_mut("hooks").and_then(Item::as_array_of_tables_mut) {
                    entries.retain(|e| !is_ours_codex(e));
                }
            }
            let before = groups.len();
            groups.retain(|g| g.get("hooks").and_then(Item::as_array_of_tables).is_none_or(|e| !e.is_empty()));
            if groups.is_empty() && before > 0 {
                emptied.push(event);
            }
            continue;
        }
        for group in groups.iter_mut() {
            let Some(entries) = group.get_mut("hooks").and_then(Item::as_array_of_tables_mut) else { continue };
            for entry in entries.iter_mut().filter(|e| is_ours_codex(e)) {
                entry["type"] = value("command");
                entry["command"] = value(command.clone());
                entry["timeout"] = value(timeout);
                found = true;
            }
        }
    }
    for event in emptied {
        hooks.remove(event);
    }
    if !found {
        let event = spec.event.unwrap_or(HookEvent::PreToolUse).name();
        let groups = hooks.entry(event).or_insert_with(|| Item::ArrayOfTables(ArrayOfTables::new()));
        let groups = groups
            .as_array_of_tables_mut()
            .ok_or_else(|| InstallError::Shape(format!("`hooks.{event}` is not an array of tables ([[hooks.{event}]])")))?;
        let mut entry = Table::new();
        entry["type"] = value("command");
        entry["command"] = value(command);
        entry["timeout"] = value(timeout);
        let mut entries = ArrayOfTables::new();
        entries.push(entry);
        let mut group = Table::new();
        group["matcher"] = value("Bash|apply_patch");
        group.insert("hooks", Item::ArrayOfTables(entries));
        groups.push(group);
    }
    Ok(doc.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> HookSpec {
        HookSpec { program: PathBuf::from("/opt/my tools/approval-console"), timeout: 290, url: None, event: None }
    }

    #[test]
    fn a_console_at_another_address_is_named_in_the_hooks_command() {
        let at = HookSpec { url: Some("http://127.0.0.1:5123".into()), ..spec() };
        let v: Value = serde_json::from_str(&merge(Agent::ClaudeCode, None, &at).unwrap()).unwrap();
        assert_eq!(
            v["hooks"]["PreToolUse"][0]["hooks"][0]["args"],
            json!(["hook", "claude-code", "--timeout", "290", "--url", "http://127.0.0.1:5123"])
        );
        let codex = codex_command(&at).unwrap();
        assert!(codex.starts_with("'/opt/my tools/approval-console' hook codex --timeout 290 --url http://127.0.0.1:5123 || {"), "{codex}");
        // Installed again at the default address: the entry of ours loses its --url.
        let back: Value = serde_json::from_str(&merge(Agent::ClaudeCode, Some(&v.to_string()), &spec()).unwrap()).unwrap();
        assert_eq!(back["hooks"]["PreToolUse"][0]["hooks"][0]["args"], json!(["hook", "claude-code", "--timeout", "290"]));
    }

    #[test]
    fn claude_code_settings_keep_what_is_there_and_merging_twice_changes_nothing() {
        let existing = r#"{
  "model": "opus",
  "permissions": { "allow": ["Bash(ls:*)"] },
  "hooks": {
    "PreToolUse": [
      { "matcher": "Write", "hooks": [{ "type": "command", "command": "prettier --check" }] },
      { "matcher": "Bash", "hooks": [{ "type": "command", "command": "approval-console hook claude-code --timeout 50", "timeout": 60 }] }
    ],
    "Stop": [{ "hooks": [{ "type": "command", "command": "notify-send done" }] }]
  }
}"#;
        let merged = merge(Agent::ClaudeCode, Some(existing), &spec()).unwrap();
        let v: Value = serde_json::from_str(&merged).unwrap();
        assert_eq!(v["model"], "opus");
        assert_eq!(v["permissions"]["allow"][0], "Bash(ls:*)");
        assert_eq!(v["hooks"]["Stop"][0]["hooks"][0]["command"], "notify-send done");
        assert_eq!(v["hooks"]["PreToolUse"][0]["hooks"][0]["command"], "prettier --check", "another hook is kept");
        let ours = &v["hooks"]["PreToolUse"][1];
        assert_eq!(ours["matcher"], "Bash", "the old entry of ours is rewritten where it was, with its matcher");
        assert_eq!(
            ours["hooks"][0],
            json!({ "type": "command", "command": "/opt/my tools/approval-console", "args": ["hook", "claude-code", "--timeout", "290"],
                "timeout": 300, "onFailure": "block" })
        );
        assert_eq!(v["hooks"]["PreToolUse"].as_array().unwrap().len(), 2, "no second entry");
        assert_eq!(merge(Agent::ClaudeCode, Some(&merged), &spec()).unwrap(), merged, "idempotent");
        let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["model", "permissions", "hooks"], "the file's order is kept");
    }

    #[test]
    fn claude_code_settings_without_the_hook_get_a_pre_tool_use_group() {
        for existing in [None, Some(""), Some("{}"), Some(r#"{"hooks":{}}"#)] {
            let v: Value = serde_json::from_str(&merge(Agent::ClaudeCode, existing, &spec()).unwrap()).unwrap();
            let group = &v["hooks"]["PreToolUse"][0];
            assert_eq!(group["matcher"], "Bash|Write|Edit|mcp__.*", "{existing:?}");
            assert_eq!(group["hooks"][0]["onFailure"], "block");
        }
    }

    #[test]
    fn a_file_that_does_not_parse_or_has_another_shape_is_refused() {
        for bad in ["{ \"hooks\": ", "[1, 2]", r#"{"hooks": []}"#, r#"{"hooks": {"PreToolUse": {}}}"#] {
            assert!(merge(Agent::ClaudeCode, Some(bad), &spec()).is_err(), "{bad}");
        }
        for bad in ["hooks = [", "hooks = 3", "[hooks]\nPreToolUse = 1"] {
            assert!(merge(Agent::Codex, Some(bad), &spec()).is_err(), "{bad}");
        }
    }

    #[test]
    fn codex_config_keeps_its_comments_and_merging_twice_changes_nothing() {
        let existing = "# my settings\nmodel = \"o4\"  # the model\n\n[[hooks.PreToolUse]]\nmatcher = \"Bash\"\n\n[[hooks.PreToolUse.hooks]]\ntype = \"command\"\ncommand = \"approval-console hook codex --timeout 50\"\ntimeout = 60\n\n[mcp_servers.docs]\ncommand = \"docs-server\"\n";
        let merged = merge(Agent::Codex, Some(existing), &spec()).unwrap();
        assert!(merged.starts_with("# my settings\nmodel = \"o4\"  # the model\n"), "{merged}");
        assert!(merged.contains("[mcp_servers.docs]\ncommand = \"docs-server\""), "{merged}");
        let v: toml::Table = merged.parse().unwrap();
        let group = &v["hooks"]["PreToolUse"][0];
        assert_eq!(group["matcher"].as_str(), Some("Bash"));
        assert_eq!(v["hooks"]["PreToolUse"].as_array().unwrap().len(), 1);
        let entry = &group["hooks"][0];
        assert_eq!(
            entry["command"].as_str(),
            Some("'/opt/my tools/approval-console' hook codex --timeout 290 || { echo 'Approval Console: the hook failed, so this call is blocked' >&2; exit 2; }")
        );
        assert_eq!(entry["timeout"].as_integer(), Some(300));
        assert_eq!(merge(Agent::Codex, Some(&merged), &spec()).unwrap(), merged, "idempotent");

        let fresh: toml::Table = merge(Agent::Codex, None, &spec()).unwrap().parse().unwrap();
        assert_eq!(fresh["hooks"]["PreToolUse"][0]["matcher"].as_str(), Some("Bash|apply_patch"));
    }

    #[test]
    fn a_path_is_one_shell_word() {
        assert_eq!(shell_word("/usr/local/bin/approval-console"), "/usr/local/bin/approval-console");
        assert_eq!(shell_word("/home/o'neil/$x/a c"), r"'/home/o'\''neil/$x/a c'");
    }

    #[test]
    fn an_entry_of_ours_moves_to_the_event_asked_for_and_every_other_hook_stays() {
        let existing = r#"{
  "hooks": {
    "PreToolUse": [
      { "matcher": "Write", "hooks": [{ "type": "command", "command": "prettier --check" }, { "type": "command", "command": "approval-console hook claude-code" }] },
      { "matcher": "Bash", "hooks": [{ "type": "command", "command": "approval-console hook claude-code --timeout 50" }] }
    ]
  }
}"#;
        let asking = HookSpec { event: Some(HookEvent::PermissionRequest), ..spec() };
        let moved = merge(Agent::ClaudeCode, Some(existing), &asking).unwrap();
        let v: Value = serde_json::from_str(&moved).unwrap();
        assert_eq!(
            v["hooks"]["PreToolUse"],
            json!([{ "matcher": "Write", "hooks": [{ "type": "command", "command": "prettier --check" }] }])
        );
        assert_eq!(v["hooks"]["PermissionRequest"].as_array().unwrap().len(), 1, "one entry of ours, under the event asked for: {v}");
        assert_eq!(v["hooks"]["PermissionRequest"][0]["hooks"][0]["args"], json!(["hook", "claude-code", "--timeout", "290"]));
        assert_eq!(merge(Agent::ClaudeCode, Some(&moved), &asking).unwrap(), moved, "idempotent");
        assert_eq!(merge(Agent::ClaudeCode, Some(&moved), &spec()).unwrap(), moved, "no --event: it stays where it is");
        // And back: the group it leaves empty goes, with its event.
        let back: Value = serde_json::from_str(
            &merge(Agent::ClaudeCode, Some(&moved), &HookSpec { event: Some(HookEvent::PreToolUse), ..spec() }).unwrap(),
        )
        .unwrap();
        assert!(back["hooks"].get("PermissionRequest").is_none(), "{back}");
        assert_eq!(back["hooks"]["PreToolUse"].as_array().unwrap().len(), 2, "prettier's group and ours: {back}");

        let codex = "[[hooks.PreToolUse]]\nmatcher = \"Bash\"\n\n[[hooks.PreToolUse.hooks]]\ntype = \"command\"\ncommand = \"approval-console hook codex --timeout 50\"\n";
        let moved = merge(Agent::Codex, Some(codex), &asking).unwrap();
        let v: toml_edit::DocumentMut = moved.parse().unwrap();
        assert!(v["hooks"].get("PreToolUse").is_none(), "the group it left empty went: {moved}");
        let command = v["hooks"]["PermissionRequest"][0]["hooks"][0]["command"].as_str().unwrap().to_owned();
        assert!(command.contains("hook codex --timeout 290"), "{moved}");
        assert_eq!(merge(Agent::Codex, Some(&moved), &asking).unwrap(), moved, "idempotent");
    }
}
