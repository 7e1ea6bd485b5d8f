//! Issue 6: "always allow" grants. A grant made from a call approves later calls it covers (tool,
//! scope, conditions) as they are queued, each bound to its own fingerprint and audited; revoked,
//! expired and high-risk grants approve nothing.

use crate::helpers::*;
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::time::Duration;

async fn paused(t: &TestApp, text: &str) -> Value {
    let answer = t.generate(text).await;
    t.pending_call(answer["runId"].as_str().unwrap(), "call_1").await
}

async fn grant(t: &TestApp, from: &Value, scope: &str, conditions: Value) -> (StatusCode, Value) {
    t.post("/api/grants", json!({ "fromItem": from["id"], "fingerprint": from["fingerprint"], "scope": scope, "conditions": conditions, "expiresInSecs": 3600 })).await
}

async fn state_of(t: &TestApp, item: &Value) -> String {
    t.item(item["id"].as_str().unwrap()).await["state"].as_str().unwrap().to_owned()
}

async fn until_state(t: &TestApp, item: &Value, want: &str) {
    for _ in 0..100 {
        if state_of(t, item).await == want {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("{} never became {want}: {}", item["id"], t.item(item["id"].as_str().unwrap()).await);
}

#[tokio::test]
async fn a_grant_approves_the_calls_it_covers_as_they_are_queued_and_every_use_is_audited() {
    let t = spawn_app().await;
    let _background = t.app.start(None);
    let first = paused(&t, "delete rec-1").await;
    let (status, g) = grant(&t, &first, "agent", json!([{ "pointer": "/id", "op": "prefix", "value": "rec-" }])).await;
    assert_eq!(status, StatusCode::CREATED, "{g}");
    assert_eq!((g["scope"].as_str(), g["agentId"].as_str(), g["runId"].as_str()), (Some("agent"), Some("demo"), None), "{g}");

    // The call it was made from is covered too, and approved right away.
    until_state(&t, &first, "delivered").await;
    let later = paused(&t, "delete rec-2").await;
    until_state(&t, &later, "delivered").await;
    let item = t.item(later["id"].as_str().unwrap()).await;
    assert_eq!(item["decision"]["operator"], format!("grant {} (made by {})", g["id"].as_str().unwrap(), g["createdBy"].as_str().unwrap()));
    assert_eq!(item["decision"]["fingerprint"], later["fingerprint"], "bound to the call's own fingerprint");
    assert_eq!(t.actions_of(later["id"].as_str().unwrap()).await, ["call.paused", "decision.approve", "grant.used", "delivery.delivered"]);
    assert_eq!(t.counters.deletes(), 2);

    // Outside the condition: it waits for an operator.
    let other = paused(&t, "delete acct-3").await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(state_of(&t, &other).await, "pending");

    let (_, list) = t.get("/api/grants").await;
    assert_eq!(list[0]["uses"], 2, "{list}");
    let (_, audit) = t.get("/api/audit").await;
    let created = audit["entries"].as_array().unwrap().iter().find(|e| e["action"] == "grant.created").expect("grant.created audited");
    assert_eq!(created["details"]["grant"]["id"], g["id"]);
}

#[tokio::test]
async fn a_run_grant_does_not_reach_other_runs_and_revoked_or_expired_grants_approve_nothing() {
    let t = spawn_app().await;
    let first = paused(&t, "delete rec-1").await;
    let (status, g) = grant(&t, &first, "run", json!([])).await;
    assert_eq!(status, StatusCode::CREATED, "{g}");
    let other_run = paused(&t, "delete rec-2").await;
    assert_eq!(t.app.console.apply_grants(&approval_console::domain::ItemId::new(other_run["id"].as_str().unwrap())).await.unwrap(), None);

    let (_, wide) = grant(&t, &other_run, "engine", json!([])).await;
    let id = wide["id"].as_str().unwrap();
    let (status, revoked) = t.post(&format!("/api/grants/{id}/revoke"), json!({})).await;
    assert_eq!(status, StatusCode::OK, "{revoked}");
    assert!(revoked["revokedAt"].is_string() && revoked["revokedBy"].as_str().unwrap().ends_with("(web)"), "{revoked}");
    let (status, _) = t.post(&format!("/api/grants/{id}/revoke"), json!({})).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "revoking twice says so");
    // The sweep uses the run grant on its own call only; the revoked engine grant approves nothing.
    assert_eq!(t.app.console.sweep_grants().await.unwrap(), 1);
    assert_eq!(state_of(&t, &first).await, "delivered");
    assert_eq!(state_of(&t, &other_run).await, "pending", "revoked: not approved");

    let (_, wide) = grant(&t, &other_run, "engine", json!([])).await;
    sqlx::query("UPDATE grants SET expires_at = '2000-01-01T00:00:00.000000Z' WHERE id = ?").bind(wide["id"].as_str().unwrap()).execute(t.app.db.pool()).await.unwrap();
    assert_eq!(t.app.console.sweep_grants().await.unwrap(), 0, "expired: nothing approved");
    assert_eq!(state_of(&t, &other_run).await, "pending");
    assert_eq!(t.counters.deletes(), 1);
    let (_, audit) = t.get("/api/audit").await;
    assert_eq!(audit["entries"].as_array().unwrap().iter().filter(|e| e["action"] == "grant.revoked").count(), 1, "{audit}");
}

#[tokio::test]
async fn high_risk_tools_get_no_grant_and_a_grant_stops_when_its_tool_becomes_high_risk() {
    let t = spawn_app().await;
    let first = paused(&t, "delete rec-1").await;
    let (status, g) = grant(&t, &first, "engine", json!([])).await;
    assert_eq!(status, StatusCode::CREATED, "{g}");
    let (status, _) = t.put("/api/settings/notifications", json!({ "enabled": true, "highRiskTools": ["delete_record"] })).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(t.app.console.sweep_grants().await.unwrap(), 0, "the existing grant no longer applies");
    assert_eq!(state_of(&t, &first).await, "pending");
    let (status, body) = grant(&t, &first, "engine", json!([])).await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::CONFLICT, Some("high_risk_tool")), "{body}");
}

#[tokio::test]
async fn a_grant_is_refused_for_a_changed_call_a_suspend_call_or_conditions_its_own_call_fails() {
    let t = spawn_app().await;
    let first = paused(&t, "delete rec-1").await;
    let mut changed = first.clone();
    changed["fingerprint"] = json!(format!("sha256:{}", "0".repeat(64)));
    let (status, body) = grant(&t, &changed, "agent", json!([])).await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::CONFLICT, Some("fingerprint_mismatch")), "{body}");
    let (status, body) = grant(&t, &first, "agent", json!([{ "pointer": "/id", "op": "equals", "value": "rec-2" }])).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert!(body["message"].as_str().unwrap().contains("does not hold"), "{body}");
    let (status, body) = grant(&t, &first, "agent", json!([{ "pointer": "id", "op": "equals", "value": "rec-1" }])).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    let asked = paused(&t, "ask which table?").await;
    let (status, body) = grant(&t, &asked, "agent", json!([])).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    let (status, body) = t.post("/api/grants", json!({ "fromItem": first["id"], "fingerprint": first["fingerprint"], "scope": "agent", "expiresInSecs": 5 })).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    let (_, list) = t.get("/api/grants").await;
    assert_eq!(list, json!([]), "nothing was made");
}
