//! Issue 47: rules written back in the scope the admin picks. A grant made from a coding agent's call
//! carries `ruleScope` (`session` by default, `project`, `user`): its preview shows what the agent will
//! be told and where it keeps it, built by the function the agent's connector uses; a scope the call's
//! agent does not take is refused; the scope is stored with the grant, audited, and signed into each
//! approval the grant makes (the receipt's `ruleScope` claim), which is what the connector reads.

use crate::helpers::*;
use approval_console::domain::Role;
use base64::Engine as _;
use reqwest::StatusCode;
use serde_json::{json, Value};

/// A command a coding agent submitted itself, asked through `event` in `/repo`.
async fn submitted(t: &TestApp, token: &str, source: &str, event: &str, command: &str) -> Value {
    let body = json!({ "tool": "Bash", "args": { "command": command }, "agent": source, "source": source,
        "context": { "event": event, "cwd": "/repo" } });
    let (status, queued) = t.call_as(token, reqwest::Method::POST, "/api/calls", Some(body)).await;
    assert_eq!(status, StatusCode::CREATED, "{queued}");
    queued
}

fn grant_of(call: &Value, command: &str, rule_scope: Option<&str>) -> Value {
    let mut g = json!({ "fromItem": call["id"], "fingerprint": call["fingerprint"], "scope": "agent", "expiresInSecs": 3600,
        "conditions": [{ "pointer": "/command", "op": "equals", "value": command }] });
    if let Some(scope) = rule_scope {
        g["ruleScope"] = json!(scope);
    }
    g
}

/// The claims of a receipt, read (not checked).
fn claims(receipt: &Value) -> Value {
    let payload = receipt.as_str().unwrap().split('.').nth(1).unwrap();
    serde_json::from_slice(&base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(payload).unwrap()).unwrap()
}

#[tokio::test]
async fn a_user_scope_grant_is_previewed_stored_audited_and_signed_into_each_approval_it_makes() {
    let t = spawn_app().await;
    let codex = t.token("codex-hook", Role::Agent).await;
    let first = submitted(&t, &codex, "codex", "PermissionRequest", "cargo test").await;
    let first = t.item(first["id"].as_str().unwrap()).await;

    let (status, preview) = t.post("/api/grants/preview", grant_of(&first, "cargo test", Some("user"))).await;
    assert_eq!(status, StatusCode::OK, "{preview}");
    assert_eq!(preview["agentRule"]["agent"], "codex");
    assert_eq!(preview["agentRule"]["scopes"], json!(["session", "project", "user"]));
    let shown = &preview["agentRule"]["rule"];
    assert_eq!((shown["scope"].as_str(), shown["location"].as_str()), (Some("user"), Some("~/.codex/rules/default.rules")), "{preview}");
    assert_eq!(
        shown["rule"],
        json!([{ "type": "addRules", "behavior": "allow", "destination": "userSettings", "rules": [{ "type": "prefixRule", "command": ["cargo", "test"] }] }])
    );
    let (_, session) = t.post("/api/grants/preview", grant_of(&first, "cargo test", None)).await;
    assert_eq!(session["agentRule"]["rule"]["rule"][0]["destination"], "session", "the default: {session}");
    assert!(session["agentRule"]["rule"].get("location").is_none(), "kept in its session only: {session}");

    let (status, made) = t.post("/api/grants", grant_of(&first, "cargo test", Some("user"))).await;
    assert_eq!(status, StatusCode::CREATED, "{made}");
    assert_eq!(made["grant"]["ruleScope"], "user");
    let (_, listed) = t.get("/api/grants").await;
    assert_eq!(listed[0]["ruleScope"], "user", "{listed}");

    // The next identical call is approved as it is queued; its receipt claims the scope, signed.
    let second = submitted(&t, &codex, "codex", "PermissionRequest", "cargo test").await;
    assert_eq!(second["status"]["outcome"], "approved", "{second}");
    assert_eq!(claims(&second["status"]["receipt"])["ruleScope"], "user", "{second}");
    let (_, audit) = t.get("/api/audit").await;
    let entries = audit["entries"].as_array().unwrap();
    let created = entries.iter().find(|e| e["action"] == "grant.created").unwrap();
    assert_eq!(created["details"]["grant"]["ruleScope"], "user", "{created}");
    let used = entries.iter().find(|e| e["action"] == "grant.used" && e["queueItemId"] == second["id"]).expect("grant.used");
    assert_eq!(used["details"]["sessionRule"], *shown, "the rule audited is the one previewed: {used}");

    // A session-scope grant's approvals claim no scope (receipts as before).
    let other = submitted(&t, &codex, "codex", "PermissionRequest", "cargo build").await;
    let other = t.item(other["id"].as_str().unwrap()).await;
    let (status, _) = t.post("/api/grants", grant_of(&other, "cargo build", None)).await;
    assert_eq!(status, StatusCode::CREATED);
    let again = submitted(&t, &codex, "codex", "PermissionRequest", "cargo build").await;
    assert_eq!(again["status"]["outcome"], "approved", "{again}");
    assert!(claims(&again["status"]["receipt"]).get("ruleScope").is_none(), "{again}");
}

#[tokio::test]
async fn a_scope_the_calls_agent_does_not_take_is_refused_and_no_agent_credential_sets_one() {
    let t = spawn_app().await;
    let codex = t.token("codex-hook", Role::Agent).await;
    // Codex's app-server has no rule scopes: its preview says so, a project scope is refused.
    let app = submitted(&t, &codex, "codex", "item/commandExecution/requestApproval", "ls").await;
    let app = t.item(app["id"].as_str().unwrap()).await;
    let (_, preview) = t.post("/api/grants/preview", grant_of(&app, "ls", None)).await;
    assert_eq!(preview["agentRule"]["scopes"], json!(["session"]), "{preview}");
    assert_eq!(preview["agentRule"]["rule"]["rule"], "acceptForSession", "{preview}");
    let (status, refused) = t.post("/api/grants", grant_of(&app, "ls", Some("project"))).await;
    assert_eq!((status, refused["code"].as_str()), (StatusCode::BAD_REQUEST, Some("invalid_request")), "{refused}");
    // A PreToolUse hook takes no rule at all.
    let pre = submitted(&t, &codex, "claude-code", "PreToolUse", "ls").await;
    let pre = t.item(pre["id"].as_str().unwrap()).await;
    let (status, refused) = t.post("/api/grants", grant_of(&pre, "ls", Some("user"))).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{refused}");
    // A call of an engine: no agent rule to preview, none but the default scope.
    let answer = t.generate("delete rec-1").await;
    let local = t.pending_call(answer["runId"].as_str().unwrap(), "call_1").await;
    let body = json!({ "fromItem": local["id"], "fingerprint": local["fingerprint"], "scope": "run", "expiresInSecs": 3600 });
    let (_, preview) = t.post("/api/grants/preview", body.clone()).await;
    assert!(preview.get("agentRule").is_none(), "{preview}");
    let mut user = body;
    user["ruleScope"] = json!("user");
    let (status, _) = t.post("/api/grants", user).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);

    // The agent's own credential cannot make a grant, so cannot pick a scope.
    let claude = submitted(&t, &codex, "claude-code", "PermissionRequest", "make").await;
    let claude = t.item(claude["id"].as_str().unwrap()).await;
    let (status, _) = t.call_as(&codex, reqwest::Method::POST, "/api/grants", Some(grant_of(&claude, "make", Some("user")))).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let (_, listed) = t.get("/api/grants").await;
    assert_eq!(listed.as_array().map(Vec::len), Some(0), "{listed}");
}
