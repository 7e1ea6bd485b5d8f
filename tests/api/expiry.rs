//! Issue 6: a call nobody decides within its tool's time limit is declined as *expired* — recorded
//! and told to the model as such, not as a decline — after a warning; a snooze moves its deadline.
//! The worker's passes (`expire_due`, `warn_expiring`) are called directly: no waiting on timers.

use crate::helpers::*;
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::time::Duration;

async fn set_limits(t: &TestApp, rules: Value, warn_before_secs: u64) {
    let (status, body) = t.put("/api/settings/expiry", json!({ "rules": rules, "warnBeforeSecs": warn_before_secs })).await;
    assert_eq!(status, StatusCode::OK, "{body}");
}

/// Runs expiry passes until one expires something (the limit is counted in whole seconds).
async fn expire_one(t: &TestApp) {
    wait::eventually(Duration::from_secs(5), "an expiry pass expired something", || async {
        t.app.testing().expire_due().await.unwrap() > 0
    })
    .await;
}

#[tokio::test]
async fn a_call_past_its_limit_is_declined_as_expired_told_to_the_model_as_such_and_audited() {
    let t = spawn_app().await;
    set_limits(&t, json!([{ "tool": "delete_record", "afterSecs": 1 }]), 0).await;
    let answer = t.generate("delete rec-late").await;
    let item = t.pending_call(answer["runId"].as_str().unwrap(), "call_1").await;
    let id = item["id"].as_str().unwrap();

    expire_one(&t).await;
    let after = t.item(id).await;
    assert_eq!(after["state"], "delivered", "{after}");
    let d = &after["decision"];
    assert_eq!((d["kind"].as_str(), d["expiredAfterSecs"].as_u64()), (Some("decline"), Some(1)), "{d}");
    assert_eq!(d["operator"], "console (expiry)");
    assert_eq!(d["fingerprint"], item["fingerprint"], "bound to the call as it was queued");
    assert_eq!(d["outcome"]["status"], "expired", "{d}");
    let told = d["outcome"]["result"].as_str().unwrap();
    assert!(told.contains("expired") && told.contains("not a refusal") && !told.contains("declined by the operator"), "{told}");
    assert_eq!(t.counters.deletes(), 0, "an expired call never runs");
    assert_eq!(t.actions_of(id).await, ["call.paused", "decision.expire", "delivery.delivered"]);
    // Once is enough.
    assert_eq!(t.app.testing().expire_due().await.unwrap(), 0);
}

#[tokio::test]
async fn a_tool_rule_wins_over_the_star_rule_and_a_call_without_a_limit_never_expires_nor_snoozes() {
    let t = spawn_app().await;
    // No rules: nothing expires, and there is nothing to snooze.
    let plain = t.generate("delete rec-forever").await;
    let plain = t.pending_call(plain["runId"].as_str().unwrap(), "call_1").await;
    assert_eq!(t.app.testing().expire_due().await.unwrap(), 0);
    let (status, body) = t.post(&format!("/api/queue/{}/snooze", plain["id"].as_str().unwrap()), json!({ "secs": 600 })).await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::BAD_REQUEST, Some("invalid_request")), "{body}");
    assert!(body["message"].as_str().unwrap().contains("no time limit"), "{body}");

    // `*` = 1 s for every tool but delete_record, which has an hour.
    set_limits(&t, json!([{ "tool": "*", "afterSecs": 1 }, { "tool": "delete_record", "afterSecs": 3600 }]), 0).await;
    let asked = t.generate("ask which table?").await;
    let asked = t.pending_call(asked["runId"].as_str().unwrap(), "call_1").await;
    expire_one(&t).await;
    let asked = t.item(asked["id"].as_str().unwrap()).await;
    assert_eq!(asked["decision"]["expiredAfterSecs"], 1, "ask_operator falls under `*`: {asked}");
    assert_eq!(t.item(plain["id"].as_str().unwrap()).await["state"], "pending", "delete_record's own hour wins");
}

#[tokio::test]
async fn a_warning_goes_out_once_before_the_deadline_and_a_snooze_moves_the_deadline_and_warns_again() {
    let t = spawn_app().await;
    // Deadline 10 min after the pause, warning 15 min before it: due at once.
    set_limits(&t, json!([{ "tool": "delete_record", "afterSecs": 600 }]), 900).await;
    let answer = t.generate("delete rec-soon").await;
    let item = t.pending_call(answer["runId"].as_str().unwrap(), "call_1").await;
    let id = item["id"].as_str().unwrap();

    let soon = t.app.testing().warn_expiring().await.unwrap();
    assert_eq!(soon.len(), 1);
    assert_eq!(soon[0].item.id.as_str(), id);
    let paused: chrono::DateTime<chrono::Utc> = item["pausedAt"].as_str().unwrap().parse().unwrap();
    assert_eq!(soon[0].expires_at, paused + chrono::Duration::seconds(600));
    assert!(t.app.testing().warn_expiring().await.unwrap().is_empty(), "warned once");
    let shown: chrono::DateTime<chrono::Utc> = t.item(id).await["expiresAt"].as_str().unwrap().parse().unwrap();
    assert_eq!(shown, paused + chrono::Duration::seconds(600), "the queue shows the deadline");

    // Snoozed for a day: the deadline moves, nothing expires, and the warning will come again before it.
    let (status, snoozed) = t.post(&format!("/api/queue/{id}/snooze"), json!({ "secs": 86_400 })).await;
    assert_eq!(status, StatusCode::OK, "{snoozed}");
    assert_eq!(snoozed["state"], "pending");
    let until: chrono::DateTime<chrono::Utc> = snoozed["expiresAt"].as_str().unwrap().parse().unwrap();
    assert!(until > chrono::Utc::now() + chrono::Duration::seconds(86_000), "{until}");
    assert_eq!(t.app.testing().expire_due().await.unwrap(), 0);
    assert!(t.app.testing().warn_expiring().await.unwrap().is_empty(), "a day away is not within 15 min");
    set_limits(&t, json!([{ "tool": "delete_record", "afterSecs": 600 }]), 2 * 86_400).await;
    let again = t.app.testing().warn_expiring().await.unwrap();
    assert_eq!(again.len(), 1, "the moved deadline is warned of");
    assert!(again[0].expires_at > paused + chrono::Duration::seconds(86_000), "{:?}", again[0].expires_at);
    assert_eq!(t.actions_of(id).await, ["call.paused", "call.snoozed"]);

    // Without a limit (rules removed), a snoozed deadline no longer applies.
    set_limits(&t, json!([]), 300).await;
    assert!(t.item(id).await["expiresAt"].is_null());

    // Bad input: out of range, and for a decided call.
    let (status, body) = t.post(&format!("/api/queue/{id}/snooze"), json!({ "secs": 5 })).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    t.decline(&item, "no").await;
    let (status, body) = t.post(&format!("/api/queue/{id}/snooze"), json!({ "secs": 600 })).await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::CONFLICT, Some("already_decided")), "{body}");
}

#[tokio::test]
async fn expiry_settings_are_checked_and_stored() {
    let t = spawn_app().await;
    let (status, body) = t.get("/api/settings/expiry").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body, json!({ "rules": [], "warnBeforeSecs": 300 }));
    for bad in [
        json!({ "rules": [{ "tool": "x", "afterSecs": 0 }] }),
        json!({ "rules": [{ "tool": "", "afterSecs": 5 }] }),
        json!({ "rules": [{ "tool": "x", "afterSecs": 5 }, { "tool": "x", "afterSecs": 6 }] }),
        json!({ "rules": [], "surprise": 1 }),
    ] {
        let (status, body) = t.put("/api/settings/expiry", bad.clone()).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{bad} → {body}");
    }
    set_limits(&t, json!([{ "tool": "send_money", "afterSecs": 120 }]), 60).await;
    let (_, body) = t.get("/api/settings/expiry").await;
    assert_eq!(body, json!({ "rules": [{ "tool": "send_money", "afterSecs": 120 }], "warnBeforeSecs": 60 }));
}
