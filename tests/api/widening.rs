//! Widenings ask everywhere (issue 44, point 10): a settings change that lets more through without
//! an operator — over HTTP, in the window, in the CLI — is refused `widening_unconfirmed` (listing
//! what widens, storing nothing) unless confirmed, and audited as a widening when it is; a change
//! that narrows asks nothing.

use crate::helpers::*;
use approval_console::domain::Role;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

/// The `settings.changed` entries of `setting`, oldest first.
async fn changes_of(t: &TestApp, setting: &str) -> Vec<Value> {
    let (_, page) = t.get("/api/audit?limit=500").await;
    let entries = page["entries"].as_array().unwrap().iter().rev();
    entries.filter(|e| e["action"] == "settings.changed" && e["details"]["setting"] == setting).cloned().collect()
}

/// The refusal's lines, after checking its status and code.
fn refused_lines(status: StatusCode, body: &Value) -> Vec<String> {
    assert_eq!((status, body["code"].as_str()), (StatusCode::CONFLICT, Some("widening_unconfirmed")), "{body}");
    body["details"]["widens"].as_array().unwrap().iter().map(|l| l.as_str().unwrap().to_owned()).collect()
}

#[tokio::test]
async fn an_admin_token_turning_the_high_risk_passkey_off_is_refused_unless_confirmed_and_then_audited_as_a_widening() {
    let t = spawn_app().await;
    let admin = t.token("mallory", Role::Admin).await;
    let put = |body: Value| t.call_as(&admin, Method::PUT, "/api/settings/safety", Some(body));
    // Narrowing — a tool marked high-risk, the passkey asked for — needs no confirmation.
    let (status, body) = put(json!({ "highRiskTools": ["delete_record"], "highRiskPasskey": true })).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(changes_of(&t, "safety").await[0]["details"].get("widens").is_none(), "a narrowing is no widening");

    let (status, body) = put(json!({ "highRiskTools": ["delete_record"], "highRiskPasskey": false })).await;
    let lines = refused_lines(status, &body);
    assert!(lines.len() == 1 && lines[0].contains("passkey") && lines[0].contains("(widens"), "{lines:?}");
    let (_, safety) = t.get("/api/settings/safety").await;
    assert_eq!(safety["highRiskPasskey"], true, "nothing changed: {safety}");
    assert_eq!(changes_of(&t, "safety").await.len(), 1, "nothing audited");

    let (status, body) = put(json!({ "highRiskTools": ["delete_record"], "highRiskPasskey": false, "confirmWidening": true })).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body, json!({ "highRiskTools": ["delete_record"] }), "the answer is the settings, without the confirmation");
    assert_eq!(t.get("/api/settings/safety").await.1.get("highRiskPasskey"), None, "stored off");
    let last = changes_of(&t, "safety").await.pop().unwrap();
    assert_eq!(last["details"]["widens"], json!(lines), "audited as a widening: {last}");
    assert_eq!(last["actor"], "mallory (web)");
}

#[tokio::test]
async fn a_high_risk_tool_removed_or_a_receipt_lifetime_raised_asks_and_the_notification_form_asks_too() {
    let t = spawn_app().await;
    let (status, _) = t.put("/api/settings/safety", json!({ "highRiskTools": ["delete_record", "wipe"], "receiptTtlSecs": 600 })).await;
    assert_eq!(status, StatusCode::OK);
    let (status, body) = t.put("/api/settings/safety", json!({ "highRiskTools": ["delete_record"], "receiptTtlSecs": 7200 })).await;
    let lines = refused_lines(status, &body);
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(lines[0].starts_with("- high-risk tool wipe") && lines[1].starts_with("~ receipts valid for 600 s → 7200 s"), "{lines:?}");
    // The notification form carries the high-risk tools: the same rule.
    let (status, body) = t.put("/api/settings/notifications", json!({ "enabled": false, "highRiskTools": ["wipe"] })).await;
    assert!(refused_lines(status, &body)[0].starts_with("- high-risk tool delete_record"), "{body}");
    assert_eq!(t.get("/api/settings/notifications").await.1["enabled"], true, "neither document changed");
    assert_eq!(t.get("/api/settings/safety").await.1["highRiskTools"], json!(["delete_record", "wipe"]));
    let (status, body) =
        t.put("/api/settings/notifications", json!({ "enabled": true, "highRiskTools": ["wipe"], "confirmWidening": true })).await;
    assert_eq!((status, body["highRiskTools"].clone()), (StatusCode::OK, json!(["wipe"])), "{body}");
    let last = changes_of(&t, "safety").await.pop().unwrap();
    assert_eq!(last["details"]["widens"][0].as_str().unwrap().split(" (").next(), Some("- high-risk tool delete_record"), "{last}");
    // Shorter receipts and a tool added: no question.
    let (status, body) = t.put("/api/settings/safety", json!({ "highRiskTools": ["wipe", "drop"], "receiptTtlSecs": 300 })).await;
    assert_eq!(status, StatusCode::OK, "{body}");
}

#[tokio::test]
async fn a_quorum_lowered_or_removed_asks_over_http_and_in_the_window_and_a_quorum_raised_does_not() {
    let t = spawn_app().await;
    let admin = t.token("ops", Role::Admin).await;
    let put = |body: Value| t.call_as(&admin, Method::PUT, "/api/settings/quorum", Some(body));
    let three = json!({ "rules": [{ "tool": "delete_record", "approvals": 3 }], "critical": 3 });
    assert_eq!(put(three.clone()).await.0, StatusCode::OK, "raising asks nothing");
    for (lower, widens) in [
        (
            json!({ "rules": [{ "tool": "delete_record", "approvals": 2 }], "critical": 3 }),
            "~ quorum delete_record: 3 → 2 approvals (widens)",
        ),
        (json!({ "rules": [], "critical": 3 }), "~ quorum delete_record: 3 → 1 approvals (widens)"),
        (json!({ "rules": [{ "tool": "delete_record", "approvals": 3 }], "critical": 2 }), "~ critical calls: 3 → 2 approvals (widens)"),
    ] {
        let (status, body) = put(lower.clone()).await;
        assert_eq!(refused_lines(status, &body), [widens], "{lower}");
    }
    assert_eq!(t.get("/api/settings/quorum").await.1, three, "nothing changed");
    assert_eq!(changes_of(&t, "quorum").await.len(), 1);

    // The window's command is the same operation: the same refusal, then the confirmed change.
    let window = approval_console::app::operation::window("save_quorum_settings").expect("a window command");
    let local = || approval_console::domain::Actor::new(approval_console::domain::Principal::local(t.app.operator()), "desktop");
    let refused = window(t.app.clone(), json!({ "settings": { "rules": [] } }), local()).await.unwrap_err();
    assert_eq!(refused.code(), "widening_unconfirmed", "{refused}");
    let saved = window(t.app.clone(), json!({ "settings": { "rules": [], "confirmWidening": true } }), local()).await.unwrap();
    assert_eq!(saved, json!({ "rules": [] }));
    let last = changes_of(&t, "quorum").await.pop().unwrap();
    assert_eq!(
        last["details"]["widens"],
        json!(["~ quorum delete_record: 3 → 1 approvals (widens)", "~ critical calls: 3 → 1 approvals (widens)"])
    );
}

#[tokio::test]
async fn a_time_limit_removed_is_no_widening_since_an_expiry_is_a_decline() {
    let t = spawn_app().await;
    let hour = json!({ "rules": [{ "tool": "*", "afterSecs": 3600 }], "warnBeforeSecs": 300 });
    assert_eq!(t.put("/api/settings/expiry", hour).await.0, StatusCode::OK);
    let (status, body) = t.put("/api/settings/expiry", json!({ "rules": [], "warnBeforeSecs": 300 })).await;
    assert_eq!(status, StatusCode::OK, "without a limit a call waits for an operator: {body}");
}

#[tokio::test]
async fn the_cli_asks_yes_to_lower_a_quorum_and_says_what_it_lowers() {
    let t = spawn_app().await;
    let dir = t.dir.clone();
    let run = move |args: &'static [&'static str]| {
        let dir = dir.clone();
        tokio::task::spawn_blocking(move || cli(&dir, args))
    };
    assert!(run(&["policy", "quorum", "delete_record", "3"]).await.unwrap().status.success());
    let refused = run(&["policy", "quorum", "delete_record", "--off"]).await.unwrap();
    assert_eq!(refused.status.code(), Some(2), "{}", text_of(&refused));
    assert!(text_of(&refused).contains("~ quorum delete_record: 3 → 1 approvals (widens)"), "{}", text_of(&refused));
    assert_eq!(t.get("/api/settings/quorum").await.1["rules"][0]["approvals"], 3, "nothing changed");
    let critical = run(&["policy", "quorum", "--critical", "4"]).await.unwrap();
    assert!(critical.status.success(), "{}", text_of(&critical));
    assert_eq!(run(&["policy", "quorum", "--critical", "2"]).await.unwrap().status.code(), Some(2));
    let forced = run(&["policy", "quorum", "delete_record", "--off", "--yes"]).await.unwrap();
    assert!(forced.status.success(), "{}", text_of(&forced));
    assert_eq!(t.get("/api/settings/quorum").await.1, json!({ "rules": [], "critical": 4 }));
    assert_eq!(
        changes_of(&t, "quorum").await.pop().unwrap()["details"]["widens"],
        json!(["~ quorum delete_record: 3 → 1 approvals (widens)"])
    );
}
