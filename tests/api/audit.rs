//! C6: every decision is audited; the chain shows the first entry edited, removed or reordered.

use crate::helpers::*;
use reqwest::StatusCode;
use serde_json::Value;

/// A log with a few entries: two calls paused, one approved, one declined.
async fn app_with_history() -> TestApp {
    let t = spawn_app().await;
    t.generate("delete a").await;
    t.generate("delete b").await;
    let pending = t.pending().await;
    t.approve(&pending[0]).await;
    t.decline(&pending[1], "no").await;
    t
}

async fn verify(t: &TestApp) -> Value {
    let (status, v) = t.get("/api/audit/verify").await;
    assert_eq!(status, StatusCode::OK);
    v
}

/// Tampering needs the append-only triggers out of the way, as an attacker with the file would.
async fn tamper(t: &TestApp, sql: &str) {
    approval_console::store::testing::tamper_with_audit(t.app.testing().db(), sql).await.unwrap();
}

#[tokio::test]
async fn c06_every_decision_is_recorded_with_who_what_and_the_outcome() {
    let t = app_with_history().await;
    let (_, page) = t.get("/api/audit?limit=100").await;
    let entries = page["entries"].as_array().unwrap();
    let actions: Vec<&str> = entries.iter().rev().map(|e| e["action"].as_str().unwrap()).collect();
    // The console's first start made its receipts' signing key (issue 29), audited before anything else.
    assert_eq!(
        actions,
        [
            "receipt_key.created",
            "call.paused",
            "call.paused",
            "decision.approve",
            "delivery.delivered",
            "decision.decline",
            "delivery.delivered"
        ]
    );
    let approve = entries.iter().find(|e| e["action"] == "decision.approve").unwrap();
    assert!(approve["actor"].as_str().unwrap().ends_with("(web)"));
    assert_eq!(approve["toolName"], "delete_record");
    assert!(approve["fingerprint"].as_str().unwrap().starts_with("sha256:"));
    assert!(approve["details"]["args"]["id"].is_string());
    let decline = entries.iter().find(|e| e["action"] == "decision.decline").unwrap();
    assert_eq!(decline["details"]["verdict"]["reason"], "no");
    let delivered = entries.iter().find(|e| e["action"] == "delivery.delivered").unwrap();
    assert!(delivered["details"]["outcome"]["status"].is_string());
    assert_eq!(verify(&t).await, serde_json::json!({"ok": true, "checked": 7, "firstBad": null}));
}

#[tokio::test]
async fn c06_the_log_refuses_updates_and_deletes() {
    let t = app_with_history().await;
    let db = t.app.testing().db();
    assert!(approval_console::store::testing::edit_audit(db, "UPDATE audit_log SET actor = 'x' WHERE seq = 1").await.is_err());
    assert!(approval_console::store::testing::edit_audit(db, "DELETE FROM audit_log WHERE seq = 1").await.is_err());
    assert_eq!(verify(&t).await["ok"], true);
}

#[tokio::test]
async fn c06_verify_names_an_edited_entry() {
    let t = app_with_history().await;
    tamper(&t, r#"UPDATE audit_log SET details = REPLACE(details, '}', ',"edited":true}') WHERE seq = 5"#).await;
    let v = verify(&t).await;
    assert_eq!(v["ok"], false);
    assert_eq!(v["firstBad"]["seq"], 5);
    assert!(v["firstBad"]["problem"].as_str().unwrap().contains("edited"), "{v}");
}

#[tokio::test]
async fn c06_verify_names_a_removed_entry() {
    let t = app_with_history().await;
    tamper(&t, "DELETE FROM audit_log WHERE seq = 3").await;
    let v = verify(&t).await;
    assert_eq!(v["firstBad"]["seq"], 3, "{v}");
    assert_eq!(v["checked"], 2);
}

#[tokio::test]
async fn c06_verify_names_reordered_entries() {
    let t = app_with_history().await;
    tamper(&t, "UPDATE audit_log SET seq = -1 WHERE seq = 3; UPDATE audit_log SET seq = 3 WHERE seq = 4; UPDATE audit_log SET seq = 4 WHERE seq = -1;").await;
    let v = verify(&t).await;
    assert_eq!(v["firstBad"]["seq"], 3, "{v}");
}

#[tokio::test]
async fn c06_verify_notices_a_removed_tail() {
    let t = app_with_history().await;
    tamper(&t, "DELETE FROM audit_log WHERE seq = 6").await;
    let v = verify(&t).await;
    assert_eq!(v["ok"], false, "{v}");
    assert_eq!(v["firstBad"]["seq"], 6);
}

#[tokio::test]
async fn c06_cli_audit_verify_exits_non_zero_and_names_the_entry() {
    let t = app_with_history().await;
    let dir = t.dir.clone();
    let run = || {
        std::process::Command::new(env!("CARGO_BIN_EXE_approval-console"))
            .args(["--data-dir", dir.to_str().unwrap(), "audit", "verify"])
            .envs(serve_process::database_env(&dir))
            .output()
            .unwrap()
    };
    let ok = run();
    assert!(ok.status.success(), "{ok:?}");
    assert!(String::from_utf8_lossy(&ok.stdout).contains("intact: 7 entries"));
    tamper(&t, "UPDATE audit_log SET actor = 'mallory' WHERE seq = 2").await;
    let broken = run();
    assert_eq!(broken.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&broken.stdout).contains("BROKEN at entry 2"), "{broken:?}");
}
