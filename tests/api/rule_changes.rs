//! Every change to the rules is in the audit log (issue 23, point 8): settings (quorums, the
//! high-risk tools, time limits, notifications) and remote engines (added, changed, their token
//! replaced or cleared — never the token itself — removed), each with who made it, the value
//! before and after, in the hash chain, and shown by `audit list`.

use crate::helpers::*;
use approval_console::app::widening::Widening;
use approval_console::domain::Role;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

/// The change entries (`settings.changed`, `engine.*`), oldest first.
async fn changes(t: &TestApp) -> Vec<Value> {
    let (status, page) = t.get("/api/audit?limit=500").await;
    assert_eq!(status, StatusCode::OK, "{page}");
    let entries = page["entries"].as_array().unwrap().iter().rev();
    entries.filter(|e| e["action"] == "settings.changed" || e["action"].as_str().unwrap().starts_with("engine.")).cloned().collect()
}

async fn chain_holds(t: &TestApp) {
    let (_, v) = t.get("/api/audit/verify").await;
    assert_eq!((v["ok"].as_bool(), v["firstBad"].clone()), (Some(true), Value::Null), "{v}");
}

async fn put_as(t: &TestApp, token: &str, path: &str, body: Value) {
    let (status, answer) = t.call_as(token, Method::PUT, path, Some(body)).await;
    assert_eq!(status, StatusCode::OK, "{path}: {answer}");
}

#[tokio::test]
async fn lifting_a_quorum_approving_alone_and_restoring_it_is_in_the_audit_log_with_who_and_before_and_after() {
    let t = spawn_app().await;
    let admin = t.token("mallory", Role::Admin).await;
    let bot = t.token("bot", Role::Agent).await;
    let two = json!({ "rules": [{ "tool": "delete_record", "approvals": 2 }] });
    put_as(&t, &admin, "/api/settings/quorum", two.clone()).await;
    let item = t.paused_by(&bot, "delete rec-1").await;

    // Lift the quorum, approve alone, put it back.
    put_as(&t, &admin, "/api/settings/quorum", json!({ "rules": [], "confirmWidening": true })).await;
    let path = format!("/api/queue/{}/approve", item["id"].as_str().unwrap());
    let (status, approved) = t.call_as(&admin, Method::POST, &path, Some(json!({ "fingerprint": item["fingerprint"] }))).await;
    assert_eq!(status, StatusCode::OK, "one approval was enough once the quorum was lifted: {approved}");
    put_as(&t, &admin, "/api/settings/quorum", two.clone()).await;

    let (_, page) = t.get("/api/audit?limit=500").await;
    let story: Vec<(String, String)> = page["entries"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .filter(|e| e["action"] == "settings.changed" || e["action"] == "decision.approve")
        .map(|e| (e["action"].as_str().unwrap().to_owned(), e["actor"].as_str().unwrap().to_owned()))
        .collect();
    let entry = |a: &str| (a.to_owned(), "mallory (web)".to_owned());
    assert_eq!(story, [entry("settings.changed"), entry("settings.changed"), entry("decision.approve"), entry("settings.changed")]);
    let changed = changes(&t).await;
    let none = json!({ "rules": [] });
    let seen: Vec<(Value, Value, Value)> =
        changed.iter().map(|e| (e["details"]["setting"].clone(), e["details"]["before"].clone(), e["details"]["after"].clone())).collect();
    assert_eq!(
        seen,
        [
            (json!("quorum"), none.clone(), two.clone()),
            (json!("quorum"), two.clone(), none.clone()),
            (json!("quorum"), none.clone(), two.clone())
        ]
    );
    // The CLI's one-tool change is audited the same way, as the local admin.
    t.app.set_quorum("delete_record", 1, Widening::Confirmed, &t.app.local_admin("cli")).await.unwrap();
    let last = changes(&t).await.pop().unwrap();
    assert_eq!((last["details"]["before"].clone(), last["details"]["after"].clone()), (two, none));
    assert!(last["actor"].as_str().unwrap().ends_with("(cli)"), "{last}");
    chain_holds(&t).await;

    // `audit list` shows what changed, readably.
    let dir = t.dir.clone();
    let out = tokio::task::spawn_blocking(move || cli(&dir, &["audit", "list", "--limit", "50"])).await.unwrap();
    let text = text_of(&out);
    assert!(out.status.success(), "{text}");
    assert!(text.contains(r#"quorum: rules: [] → [{"tool":"delete_record","approvals":2}]"#), "{text}");
    assert!(text.contains(r#"quorum: rules: [{"tool":"delete_record","approvals":2}] → []"#), "{text}");
    assert!(!text.contains("no change"), "a decision is not shown as a change: {text}");
    assert!(text.contains("mallory (web)"), "{text}");
}

#[tokio::test]
async fn emptying_the_high_risk_list_and_changing_notifications_are_audited_and_a_save_that_changes_nothing_is_not() {
    let t = spawn_app().await;
    let (status, _) = t.put("/api/settings/notifications", json!({ "enabled": true, "highRiskTools": ["delete_record", "wipe"] })).await;
    assert_eq!(status, StatusCode::OK);
    let (status, _) = t.put("/api/settings/safety", json!({ "highRiskTools": [], "confirmWidening": true })).await;
    assert_eq!(status, StatusCode::OK);
    let quiet = json!({ "start": "22:00", "end": "07:00" });
    let (status, _) = t.put("/api/settings/notifications", json!({ "enabled": false, "quietHours": quiet, "highRiskTools": [] })).await;
    assert_eq!(status, StatusCode::OK);
    // The same again: nothing changed, nothing to audit.
    let (status, _) = t.put("/api/settings/notifications", json!({ "enabled": false, "quietHours": quiet, "highRiskTools": [] })).await;
    assert_eq!(status, StatusCode::OK);

    let changed = changes(&t).await;
    let seen: Vec<(&str, &Value, &Value)> =
        changed.iter().map(|e| (e["details"]["setting"].as_str().unwrap(), &e["details"]["before"], &e["details"]["after"])).collect();
    let listed = json!({ "highRiskTools": ["delete_record", "wipe"] });
    let empty = json!({ "highRiskTools": [] });
    assert_eq!(seen.len(), 3, "{changed:?}");
    assert_eq!(seen[0], ("safety", &empty, &listed), "the list set from the notifications form");
    assert_eq!(seen[1], ("safety", &listed, &empty), "the list emptied");
    assert_eq!(seen[2].0, "notifications");
    assert_eq!((seen[2].1["enabled"].clone(), seen[2].2["enabled"].clone()), (json!(true), json!(false)));
    assert_eq!((seen[2].1["quietHours"].clone(), seen[2].2["quietHours"].clone()), (Value::Null, quiet));
    assert!(changed.iter().all(|e| e["actor"].as_str().unwrap().ends_with("(web)")), "{changed:?}");
    chain_holds(&t).await;
}

#[tokio::test]
async fn changing_time_limits_is_audited_with_before_and_after() {
    let t = spawn_app().await;
    let admin = t.token("ops-lead", Role::Admin).await;
    let hour = json!({ "rules": [{ "tool": "delete_record", "afterSecs": 3600 }], "warnBeforeSecs": 300 });
    let minute =
        json!({ "rules": [{ "tool": "delete_record", "afterSecs": 60 }, { "tool": "*", "afterSecs": 600 }], "warnBeforeSecs": 30 });
    put_as(&t, &admin, "/api/settings/expiry", hour.clone()).await;
    put_as(&t, &admin, "/api/settings/expiry", minute.clone()).await;
    let changed = changes(&t).await;
    assert_eq!(changed.len(), 2, "{changed:?}");
    assert_eq!(changed[0]["details"], json!({ "setting": "expiry", "before": { "rules": [], "warnBeforeSecs": 300 }, "after": hour }));
    assert_eq!(changed[1]["details"], json!({ "setting": "expiry", "before": hour, "after": minute }));
    assert_eq!(changed[1]["actor"], "ops-lead (web)");
    // A refused change is no change.
    let (status, _) = t.put("/api/settings/expiry", json!({ "rules": [{ "tool": "x", "afterSecs": 0 }] })).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(changes(&t).await.len(), 2);
    chain_holds(&t).await;
}

#[tokio::test]
async fn an_engine_added_changed_given_a_new_token_and_removed_is_audited_and_its_token_never_is() {
    let t = spawn_app().await;
    let (a, _) = recording_server().await;
    let (b, _) = recording_server().await;
    let (first, second) = ("tok-first-7f3a9c", "tok-second-0b2e4d");
    let send = |method: Method, path: &str, body: Value| {
        let r = t.http.request(method, format!("{}{path}", t.base)).bearer_auth(TOKEN).json(&body).send();
        async move {
            let r = r.await.unwrap();
            let status = r.status();
            (status, r.json::<Value>().await.unwrap_or(Value::Null))
        }
    };
    let (status, body) =
        send(Method::POST, "/api/engines", json!({ "name": "prod", "baseUrl": a, "token": first, "sessionOnly": true, "pollMs": 1000 }))
            .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let (status, body) = send(Method::PATCH, "/api/engines/prod", json!({ "pollMs": 5000 })).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, body) = send(Method::PATCH, "/api/engines/prod", json!({ "token": second, "sessionOnly": true })).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, body) = send(Method::PATCH, "/api/engines/prod", json!({ "baseUrl": b, "keepToken": true })).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, body) = send(Method::PATCH, "/api/engines/prod", json!({ "clearToken": true })).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let r = t.http.delete(format!("{}/api/engines/prod", t.base)).bearer_auth(TOKEN).send().await.unwrap();
    assert!(r.status().is_success(), "{}", r.status());

    let changed = changes(&t).await;
    let actions: Vec<&str> = changed.iter().map(|e| e["action"].as_str().unwrap()).collect();
    assert_eq!(actions, ["engine.added", "engine.changed", "engine.changed", "engine.changed", "engine.changed", "engine.removed"]);
    assert!(changed.iter().all(|e| e["details"]["engine"] == "prod" && e["actor"].as_str().unwrap().ends_with("(web)")));
    let d = |i: usize| &changed[i]["details"];
    let url = |v: &Value| v["baseUrl"].as_str().unwrap().trim_end_matches('/').to_owned();
    assert_eq!(d(0)["after"]["kind"], "mastra");
    assert_eq!((url(&d(0)["after"]), &d(0)["after"]["token"], &d(0)["tokenChange"]), (a.clone(), &json!("session"), &json!("set")));
    assert_eq!((&d(1)["before"]["pollMs"], &d(1)["after"]["pollMs"], &d(1)["tokenChange"]), (&json!(1000), &json!(5000), &json!("kept")));
    assert_eq!(d(2)["tokenChange"], "replaced", "a new token is a change even where the row looks the same: {}", d(2));
    assert_eq!((url(&d(3)["before"]), url(&d(3)["after"]), &d(3)["tokenChange"]), (a.clone(), b.clone(), &json!("kept for the new URL")));
    assert_eq!(
        (&d(4)["before"]["token"], &d(4)["after"]["token"], &d(4)["tokenChange"]),
        (&json!("session"), &json!("none"), &json!("cleared"))
    );
    assert_eq!((url(&d(5)["before"]), d(5)["before"]["pollMs"].clone(), d(5).get("after")), (b, json!(5000), None));

    // Neither token anywhere in the log, its export or the CLI's listing.
    for token in [first, second] {
        assert_eq!(t.count(&format!("SELECT COUNT(*) FROM audit_log WHERE details LIKE '%{token}%'")).await, 0);
    }
    let export =
        t.http.get(format!("{}/api/audit/export?format=jsonl", t.base)).bearer_auth(TOKEN).send().await.unwrap().text().await.unwrap();
    assert!(export.contains("engine.removed") && !export.contains(first) && !export.contains(second), "{export}");
    let dir = t.dir.clone();
    let out = tokio::task::spawn_blocking(move || cli(&dir, &["audit", "list"])).await.unwrap();
    let text = text_of(&out);
    assert!(text.contains("engine prod: pollMs: 1000 → 5000; token kept") && text.contains("token replaced"), "{text}");
    assert!(!text.contains(first) && !text.contains(second), "{text}");
    chain_holds(&t).await;
}

#[tokio::test]
async fn a_refused_engine_change_writes_no_audit_entry() {
    let t = spawn_app().await;
    let (a, _) = recording_server().await;
    let (status, _) = t.post("/api/engines", json!({ "name": "prod", "baseUrl": a, "token": "tok-x-1", "sessionOnly": true })).await;
    assert_eq!(status, StatusCode::CREATED);
    let operator = t.token("olga", Role::Operator).await;
    let (status, _) = t.call_as(&operator, Method::PATCH, "/api/engines/prod", Some(json!({ "pollMs": 2000 }))).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let (status, body) = t.call_as(TOKEN, Method::PATCH, "/api/engines/prod", Some(json!({ "baseUrl": "http://127.0.0.1:9" }))).await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::BAD_REQUEST, Some("token_required")), "{body}");
    assert_eq!(changes(&t).await.len(), 1, "only the add");
}
