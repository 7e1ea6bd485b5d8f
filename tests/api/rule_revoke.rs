//! Issue 47: rules written back, listed and revocable. `GET /api/grants` lists, per grant, the rules
//! its approvals told coding agents (agent, scope, the rule as the agent's file holds it, where);
//! revoking answers what became of each: removed from the file after a backup, kept in the agent's
//! session, or left to the operator with the file and why. The console edits only its own user's
//! Gemini policy file and Claude Code settings files that are regular files of its user holding the
//! exact rule; the app runs in the test's process, so the test points the console's homes at a
//! temporary directory (`App::testing().agent_home`).

use crate::helpers::*;
use approval_console::domain::session_rule::gemini_policy;
use approval_console::domain::Role;
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::path::Path;

/// A shell command `source` submitted itself through `event` in `cwd`, then a grant of `rule_scope`
/// made from it (an admin), then the same command again, approved by the grant as it is queued.
async fn granted_twice(t: &TestApp, source: &str, event: &str, cwd: &str, command: &str, rule_scope: &str) -> String {
    static HOOKS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = HOOKS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let token = t.token(&format!("{source}-hook-{n}"), Role::Agent).await;
    let submit = async |t: &TestApp| {
        let body = json!({ "tool": "Bash", "args": { "command": command }, "agent": source, "source": source,
            "context": { "event": event, "cwd": cwd } });
        let (status, queued) = t.call_as(&token, reqwest::Method::POST, "/api/calls", Some(body)).await;
        assert_eq!(status, StatusCode::CREATED, "{queued}");
        queued
    };
    let first = submit(t).await;
    let first = t.item(first["id"].as_str().unwrap()).await;
    let grant = json!({ "fromItem": first["id"], "fingerprint": first["fingerprint"], "scope": "agent", "expiresInSecs": 3600,
        "ruleScope": rule_scope, "applyToWaiting": false,
        "conditions": [{ "pointer": "/command", "op": "equals", "value": command }] });
    let (status, made) = t.post("/api/grants", grant).await;
    assert_eq!(status, StatusCode::CREATED, "{made}");
    for _ in 0..2 {
        let again = submit(t).await;
        assert_eq!(again["status"]["outcome"], "approved", "{again}");
    }
    made["grant"]["id"].as_str().unwrap().to_owned()
}

async fn listed(t: &TestApp, grant: &str) -> Value {
    let (_, all) = t.get("/api/grants").await;
    all.as_array().unwrap().iter().find(|g| g["id"] == grant).cloned().unwrap()
}

async fn revoke(t: &TestApp, grant: &str) -> Value {
    let (status, revoked) = t.post(&format!("/api/grants/{grant}/revoke"), json!({})).await;
    assert_eq!(status, StatusCode::OK, "{revoked}");
    revoked
}

fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[tokio::test]
async fn a_grant_lists_each_rule_it_wrote_once_and_revoking_says_a_session_rule_stays_and_a_codex_rule_is_removed_by_hand() {
    let t = spawn_app().await;
    let home = tempfile::tempdir().unwrap();
    t.app.testing().agent_home(home.path());
    let codex = granted_twice(&t, "codex", "PermissionRequest", "/repo", "cargo test", "user").await;
    let claude = granted_twice(&t, "claude-code", "PermissionRequest", "/repo", "npm test", "session").await;

    let rule = "prefix_rule(pattern=[\"cargo\", \"test\"], decision=\"allow\")";
    let expected = json!([{ "agent": "codex", "scope": "user", "rule": rule, "location": "~/.codex/rules/default.rules" }]);
    assert_eq!(listed(&t, &codex).await["written"], expected, "two approvals, one rule listed");
    let session = json!([{ "agent": "claude-code", "scope": "session", "rule": "Bash(npm test)", "location": null }]);
    assert_eq!(listed(&t, &claude).await["written"], session);

    let revoked = revoke(&t, &claude).await;
    assert_eq!(revoked["removals"][0]["outcome"], "session", "{revoked}");
    let revoked = revoke(&t, &codex).await;
    let removal = &revoked["removals"][0];
    assert_eq!((removal["outcome"].as_str(), removal["rule"].as_str()), (Some("by_hand"), Some(rule)), "{revoked}");
    assert_eq!(removal["location"], "~/.codex/rules/default.rules");
    assert!(removal["why"].as_str().unwrap().contains("Codex"), "{removal}");
    assert_eq!(std::fs::read_dir(home.path()).unwrap().count(), 0, "nothing written in the home");
}

#[tokio::test]
async fn revoking_a_gemini_user_scope_grant_removes_its_rules_from_the_consoles_own_policy_file_after_an_owner_only_backup() {
    let t = spawn_app().await;
    let home = tempfile::tempdir().unwrap();
    t.app.testing().agent_home(home.path());
    let grant = granted_twice(&t, "gemini", "BeforeTool", "/repo", "npm test", "user").await;
    let other = granted_twice(&t, "gemini", "BeforeTool", "/repo", "make", "user").await;
    let listed_rule = listed(&t, &grant).await["written"][0].clone();
    assert_eq!(listed_rule["rule"], "commandPrefix = \"npm test\"", "{listed_rule}");
    assert_eq!(listed_rule["location"], "~/.gemini/policies/approval-console.toml");

    // The file as the hook wrote it, beside a rule kept by hand.
    let file = home.path().join(gemini_policy::FILE);
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    let mine = "# by hand\n[[rule]]\ntoolName = \"read_file\"\ndecision = \"allow\"\npriority = 5\n";
    let text = gemini_policy::add(mine, &grant, &gemini_policy::rule("npm test")).unwrap();
    let text = gemini_policy::add(&text, &other, &gemini_policy::rule("make")).unwrap();
    std::fs::write(&file, &text).unwrap();

    let revoked = revoke(&t, &grant).await;
    let removal = &revoked["removals"][0];
    let backup = format!("{}.bak", file.display());
    assert_eq!((removal["outcome"].as_str(), removal["backup"].as_str()), (Some("removed"), Some(backup.as_str())), "{revoked}");
    let now = std::fs::read_to_string(&file).unwrap();
    assert!(gemini_policy::prefixes_of(&now, &grant).is_empty(), "{now}");
    assert_eq!(gemini_policy::prefixes_of(&now, &other), ["make"], "another grant's rule stays");
    assert!(now.starts_with(mine), "the rule by hand stays: {now}");
    assert_eq!(std::fs::read_to_string(&backup).unwrap(), text, "the backup is the file as it was");
    assert_eq!(mode(Path::new(&backup)), 0o600, "owner-only");

    let (_, audit) = t.get("/api/audit").await;
    let entry = audit["entries"].as_array().unwrap().iter().find(|e| e["action"] == "grant.rule_removed").expect("audited").clone();
    assert_eq!(entry["details"]["file"], file.display().to_string(), "{entry}");
    assert_eq!(
        (entry["details"]["grantId"].as_str(), entry["details"]["rule"].as_str()),
        (Some(grant.as_str()), Some("commandPrefix = \"npm test\""))
    );
    assert!(!entry.to_string().contains("read_file"), "never the file's contents: {entry}");

    // A grant whose rule is not in the file (its hook ran on another machine) does not touch it.
    std::fs::remove_file(&backup).unwrap();
    let elsewhere = granted_twice(&t, "gemini", "BeforeTool", "/repo", "ls", "user").await;
    let revoked = revoke(&t, &elsewhere).await;
    assert_eq!(revoked["removals"][0]["outcome"], "by_hand", "{revoked}");
    assert!(revoked["removals"][0]["why"].as_str().unwrap().contains("does not hold it"), "{revoked}");
    let session = granted_twice(&t, "claude-code", "PermissionRequest", "/repo", "ls", "session").await;
    revoke(&t, &session).await;
    assert_eq!(std::fs::read_to_string(&file).unwrap(), now);
    assert!(!Path::new(&backup).exists());
}

#[tokio::test]
async fn revoking_takes_exactly_the_rule_string_out_of_a_claude_code_project_settings_file_and_keeps_every_other_key() {
    let t = spawn_app().await;
    let (project, home) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    t.app.testing().agent_home(home.path());
    let cwd = project.path().display().to_string();
    let grant = granted_twice(&t, "claude-code", "PermissionRequest", &cwd, "npm test", "project").await;
    let file = project.path().join(".claude/settings.json");
    assert_eq!(listed(&t, &grant).await["written"][0]["location"], file.display().to_string());

    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    let settings =
        r#"{"model":"opus","permissions":{"allow":["Read","Bash(npm test)","Bash(npm test:*)"],"deny":["Bash(rm:*)"]},"env":{"A":"1"}}"#;
    std::fs::write(&file, settings).unwrap();
    let revoked = revoke(&t, &grant).await;
    assert_eq!(revoked["removals"][0]["outcome"], "removed", "{revoked}");
    let now: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let mut expected: Value = serde_json::from_str(settings).unwrap();
    expected["permissions"]["allow"] = json!(["Read", "Bash(npm test:*)"]);
    assert_eq!(now, expected);
    assert_eq!(now.as_object().unwrap().keys().collect::<Vec<_>>(), ["model", "permissions", "env"], "order kept");
    assert_eq!(std::fs::read_to_string(format!("{}.bak", file.display())).unwrap(), settings);

    // In user scope: the console user's own `~/.claude/settings.json`.
    let user = granted_twice(&t, "claude-code", "PermissionRequest", &cwd, "make", "user").await;
    let file = home.path().join(".claude/settings.json");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, r#"{"permissions":{"allow":["Bash(make)","Read"]}}"#).unwrap();
    let revoked = revoke(&t, &user).await;
    assert_eq!(revoked["removals"][0]["outcome"], "removed", "{revoked}");
    let now: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(now, json!({ "permissions": { "allow": ["Read"] } }));
}

#[tokio::test]
async fn a_settings_file_that_is_a_link_or_another_users_is_not_touched_and_the_answer_says_by_hand() {
    let t = spawn_app().await;
    let settings = r#"{"permissions":{"allow":["Bash(npm test)"]}}"#;
    // A link to a file the console's user owns.
    let linked = tempfile::tempdir().unwrap();
    let real = linked.path().join("real.json");
    std::fs::write(&real, settings).unwrap();
    std::fs::create_dir_all(linked.path().join(".claude")).unwrap();
    std::os::unix::fs::symlink(&real, linked.path().join(".claude/settings.json")).unwrap();
    let grant = granted_twice(&t, "claude-code", "PermissionRequest", &linked.path().display().to_string(), "npm test", "project").await;
    let revoked = revoke(&t, &grant).await;
    let removal = &revoked["removals"][0];
    assert_eq!(removal["outcome"], "by_hand", "{revoked}");
    assert!(removal["why"].as_str().unwrap().contains("not a regular file"), "{removal}");
    assert_eq!(std::fs::read_to_string(&real).unwrap(), settings);
    assert!(!linked.path().join(".claude/settings.json.bak").exists());

    // A project directory named with `..` (the agent's word for where it is) is never followed.
    let dotted = tempfile::tempdir().unwrap();
    let file = dotted.path().join(".claude/settings.json");
    std::fs::create_dir_all(dotted.path().join("sub")).unwrap();
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, settings).unwrap();
    let cwd = format!("{}/sub/..", dotted.path().display());
    let grant = granted_twice(&t, "claude-code", "PermissionRequest", &cwd, "npm test", "project").await;
    let revoked = revoke(&t, &grant).await;
    assert_eq!(revoked["removals"][0]["outcome"], "by_hand", "{revoked}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), settings);

    // A file of another user (the tests run as root here, which can make one; else this part is moot).
    if unsafe { libc::geteuid() } != 0 {
        return;
    }
    let theirs = tempfile::tempdir().unwrap();
    let file = theirs.path().join(".claude/settings.json");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, settings).unwrap();
    std::os::unix::fs::chown(&file, Some(65534), Some(65534)).unwrap();
    let grant = granted_twice(&t, "claude-code", "PermissionRequest", &theirs.path().display().to_string(), "npm test", "project").await;
    let revoked = revoke(&t, &grant).await;
    let removal = &revoked["removals"][0];
    assert_eq!(removal["outcome"], "by_hand", "{revoked}");
    assert!(removal["why"].as_str().unwrap().contains("another user"), "{removal}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), settings);
    assert!(!theirs.path().join(".claude/settings.json.bak").exists());
}
