//! A paired device is its own kind of caller (issue 44, points 1 and 2): with only its session cookie,
//! on the remote listener, it reads the queue and decides with its passkey — and does nothing an agent
//! does (no runs, no auto-resumed answers, no submitted calls), nor what stops escalation or takes
//! automation away (claims, snoozes, grants revoked). Each attack below was reproduced against the
//! console before; each refusal is the catalog's (`domain::authority`), asked at the one door.

use super::helpers::*;
use super::remote::{device_with_session, Remote};
use approval_console::domain::Role;
use reqwest::StatusCode;
use serde_json::{json, Value};

fn on_thread(text: &str, thread: &str, resource: &str) -> Value {
    json!({ "messages": [{ "role": "user", "content": text }], "memory": { "thread": thread, "resource": resource } })
}

/// Attack 1: a phone's cookie answered a suspended `ask_operator` call by `generate` with
/// `autoResumeSuspendedTools`, with data of its choosing, and a signed receipt was issued.
#[tokio::test]
async fn a_phones_cookie_answers_no_suspended_call_through_an_agents_auto_resume() {
    let t = spawn_app().await;
    let r = Remote::start(&t).await;
    device_with_session(&t, "alice-phone", "cookie-auto").await;
    let asked = t.generate_with(on_thread("ask which region?", "t-phone", "user-1")).await;
    assert_eq!(asked["finishReason"], "suspended", "{asked}");
    let mut next = on_thread("attacker-region", "t-phone", "user-1");
    next["autoResumeSuspendedTools"] = json!(true);
    let cookie = |rb: reqwest::RequestBuilder| rb.header("Cookie", "__Host-ac_session=cookie-auto").header("Origin", &r.origin);
    for route in ["/api/agents/demo/generate", "/api/agents/demo/stream"] {
        let (status, body, _) = r.send(cookie(r.http.post(r.url(route))).json(&next)).await;
        assert_eq!((status, body["code"].as_str()), (StatusCode::FORBIDDEN, Some("forbidden")), "{route}: {body}");
    }
    let waiting = t.pending().await;
    assert_eq!(waiting.len(), 1, "the question still waits: {waiting:?}");
    assert!(waiting[0]["decision"].is_null(), "no decision, no receipt: {}", waiting[0]);
    assert_eq!(t.count("SELECT COUNT(*) FROM decisions").await, 0);
    // The same answer through an agent's own credential still works (S10 is not what was broken).
    let agent = t.token("asker", Role::Agent).await;
    let (status, _) = t.call_as(&agent, reqwest::Method::POST, "/api/agents/demo/generate", Some(on_thread("x", "t-other", "u"))).await;
    assert_eq!(status, StatusCode::OK);
}

/// Attack 2: the same cookie started local-agent runs whose tools need no approval, submitted calls
/// under any agent name, claimed calls (which stops their escalation), snoozed deadlines again and
/// again, and revoked grants.
#[tokio::test]
async fn a_phones_cookie_starts_no_run_submits_no_call_and_claims_snoozes_or_revokes_nothing() {
    let t = spawn_app().await;
    let r = Remote::start(&t).await;
    device_with_session(&t, "alice-phone", "cookie-2").await;
    t.generate("delete rec-1").await;
    let item = t.pending().await.remove(0);
    let id = item["id"].as_str().unwrap();
    let (status, grant) = t
        .post(
            "/api/grants",
            json!({ "fromItem": id, "fingerprint": item["fingerprint"], "scope": "agent", "expiresInSecs": 3600, "applyToWaiting": false }),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{grant}");
    let grant_id = grant["grant"]["id"].as_str().unwrap();
    let lookups_before = t.counters.lookups();
    let cookie = |rb: reqwest::RequestBuilder| rb.header("Cookie", "__Host-ac_session=cookie-2").header("Origin", &r.origin);
    let attempts = [
        ("/api/agents/demo/generate".to_owned(), json!({ "messages": "lookup rec-1" })),
        ("/api/agents/demo/stream".to_owned(), json!({ "messages": "lookup rec-1" })),
        ("/api/calls".to_owned(), json!({ "tool": "transfer_funds", "args": { "to": "mallory" }, "agent": "billing-bot" })),
        (format!("/api/queue/{id}/claim"), json!({})),
        (format!("/api/queue/{id}/snooze"), json!({ "secs": 3600 })),
        (format!("/api/grants/{grant_id}/revoke"), json!({})),
    ];
    for (path, body) in attempts {
        let (status, answer, _) = r.send(cookie(r.http.post(r.url(&path))).json(&body)).await;
        assert_eq!((status, answer["code"].as_str()), (StatusCode::FORBIDDEN, Some("forbidden")), "{path}: {answer}");
    }
    assert_eq!(t.counters.lookups(), lookups_before, "no run started: lookup_record never ran");
    assert_eq!(t.count("SELECT COUNT(*) FROM queue_items").await, 1, "no call submitted");
    assert_eq!(t.count("SELECT COUNT(*) FROM claims").await, 0, "nothing claimed");
    let (_, grants) = t.get("/api/grants").await;
    assert!(grants.as_array().unwrap().iter().all(|g| g["revokedAt"].is_null()), "no grant revoked: {grants}");
    // What a device may do, it still does: read the queue.
    let (status, page, _) = r.send(cookie(r.http.get(r.url("/api/queue")))).await;
    assert_eq!((status, page["items"].as_array().map(Vec::len)), (StatusCode::OK, Some(1)), "{page}");
}
