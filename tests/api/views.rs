//! What the operator's views read (issue 45): the audit log filtered by action, agent, source and
//! time, each entry with its call's agent and source and a grant named by what it allows; every
//! source calls came from; a test message on a stored channel, sent to a real receiver.

use super::helpers::*;
use super::reach::{receiver, set_secret, webhook};
use crate::helpers::wait;
use approval_console::domain::Role;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use std::time::Duration;

/// A call submitted over HTTP by an agent token (queued under the token's own name); answers its queue entry.
async fn submitted(t: &TestApp, token: &str, key: &str) -> Value {
    let body = json!({ "tool": "send_email", "args": { "to": "ops@example.com" }, "agent": "billing-bot" });
    let r =
        t.http.post(format!("{}/api/calls", t.base)).bearer_auth(token).header("Idempotency-Key", key).json(&body).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
    let id = r.json::<Value>().await.unwrap()["id"].as_str().unwrap().to_owned();
    t.item(&id).await
}

fn actions(page: &Value) -> Vec<String> {
    page["entries"].as_array().unwrap().iter().map(|e| e["action"].as_str().unwrap().to_owned()).collect()
}

fn items(page: &Value) -> Vec<String> {
    page["entries"].as_array().unwrap().iter().map(|e| e["queueItemId"].as_str().unwrap_or("").to_owned()).collect()
}

/// A local call approved and an HTTP call declined.
async fn two_sources() -> (TestApp, Value, Value) {
    let t = spawn_app().await;
    t.generate("delete rec-1").await;
    let local = t.pending().await.remove(0);
    let bot = t.token("billing-runner", Role::Agent).await;
    let http = submitted(&t, &bot, "k-1").await;
    assert_eq!((http["source"].as_str(), http["agentId"].as_str()), (Some("http"), Some("billing-runner")), "{http}");
    assert_eq!(t.approve(&local).await.0, StatusCode::OK);
    assert_eq!(t.decline(&http, "not now").await.0, StatusCode::OK);
    (t, local, http)
}

#[tokio::test]
async fn the_audit_log_is_filtered_by_action_agent_source_and_time_and_names_each_entrys_agent_and_source() {
    let (t, local, http) = two_sources().await;
    let (local_id, http_id) = (local["id"].as_str().unwrap(), http["id"].as_str().unwrap());

    // A family of actions, and one action.
    let (status, page) = t.get("/api/audit?limit=100&action=decision").await;
    assert_eq!(status, StatusCode::OK, "{page}");
    assert_eq!(actions(&page), ["decision.decline", "decision.approve"]);
    let (_, page) = t.get("/api/audit?limit=100&action=decision.approve").await;
    assert_eq!(items(&page), [local_id]);

    // By source and by agent: the HTTP call's entries only, each naming its agent and source.
    let (_, by_source) = t.get("/api/audit?limit=100&source=http").await;
    assert!(
        actions(&by_source).contains(&"call.paused".to_owned()) && actions(&by_source).contains(&"decision.decline".to_owned()),
        "{by_source}"
    );
    assert!(items(&by_source).iter().all(|i| i == http_id), "{by_source}");
    let (_, by_agent) = t.get("/api/audit?limit=100&agent=billing-runner").await;
    assert_eq!(actions(&by_agent), actions(&by_source));
    assert_eq!(by_source["calls"][http_id], json!({ "agentId": "billing-runner", "agentName": null, "source": "http", "engine": "http" }));
    let (_, all) = t.get("/api/audit?limit=100").await;
    assert_eq!(all["calls"][local_id]["source"], "local");
    assert_eq!(all["calls"][local_id]["agentId"], "demo");
    let (_, none) = t.get("/api/audit?limit=100&agent=nobody").await;
    assert_eq!(actions(&none), Vec::<String>::new());

    // By time: from after everything, until before everything, and a range around it all.
    let later = (chrono::Utc::now() + chrono::Duration::hours(1)).to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    let earlier = (chrono::Utc::now() - chrono::Duration::hours(1)).to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    let (_, after) = t.get(&format!("/api/audit?limit=100&from={later}")).await;
    assert_eq!(actions(&after).len(), 0);
    let (_, before) = t.get(&format!("/api/audit?limit=100&until={earlier}")).await;
    assert_eq!(actions(&before).len(), 0);
    let (_, around) = t.get(&format!("/api/audit?limit=100&from={earlier}&until={later}")).await;
    assert_eq!(actions(&around), actions(&all));

    // The decisions' history takes the same filters.
    let (_, history) = t.get("/api/audit/decisions?source=http").await;
    let decided: Vec<&str> = history["items"].as_array().unwrap().iter().map(|r| r["decision"]["queueItemId"].as_str().unwrap()).collect();
    assert_eq!(decided, [http_id]);
    assert_eq!(history["calls"][http_id]["agentId"], "billing-runner");
    let (_, approved) = t.get("/api/audit/decisions?action=decision.approve&agent=demo").await;
    assert_eq!(approved["items"].as_array().unwrap().len(), 1, "{approved}");

    // What is not a filter is refused, never read as one.
    for bad in ["action=decision%27%20OR%201%3D1", "from=yesterday", &format!("from={later}&until={earlier}"), "source=ftp"] {
        let (status, body) = t.get(&format!("/api/audit?{bad}")).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{bad}: {body}");
    }
}

#[tokio::test]
async fn a_decision_by_a_grant_names_the_grant_by_what_it_allows_in_the_audit_log() {
    let t = spawn_app().await;
    let _background = t.app.start(None);
    t.generate("delete rec-9").await;
    let item = t.pending().await.remove(0);
    let (status, made) = t
        .post("/api/grants", json!({ "fromItem": item["id"], "fingerprint": item["fingerprint"], "scope": "agent", "conditions": [], "expiresInSecs": 3600 }))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{made}");
    let grant_id = made["grant"]["id"].as_str().unwrap().to_owned();
    let history = wait::until(Duration::from_secs(10), || async {
        let (_, h) = t.get("/api/audit/decisions").await;
        if h["items"].as_array().is_some_and(|i| !i.is_empty()) {
            Ok(h)
        } else {
            Err(format!("no decision yet: {h}"))
        }
    })
    .await;
    let actor = history["items"][0]["decision"]["actor"].as_str().unwrap();
    assert!(actor.starts_with(&format!("grant {grant_id} ")), "{actor}");
    let named = &history["grants"][&grant_id];
    assert_eq!(named["toolName"], "delete_record");
    assert_eq!(named["scope"], "agent");
    assert_eq!(named["agentId"], "demo");
    // The local engine: `local`, or `local@<instance>` in team mode (PostgreSQL).
    assert!(named["engine"].as_str().is_some_and(|e| e.starts_with("local")), "{named}");
    assert_eq!(named["conditions"], 0);
    assert!(named["createdBy"].as_str().is_some_and(|by| !by.is_empty()), "{named}");

    // The grant's own entries (made, used) name it too.
    let (_, grants) = t.get("/api/audit?action=grant").await;
    assert!(actions(&grants).contains(&"grant.created".to_owned()), "{grants}");
    assert_eq!(grants["grants"][&grant_id]["toolName"], "delete_record");
}

#[tokio::test]
async fn every_source_calls_came_from_is_listed_with_its_engine_and_agents() {
    let t = spawn_app().await;
    let (status, none) = t.get("/api/sources").await;
    assert_eq!((status, none), (StatusCode::OK, json!([])));
    t.generate("delete rec-1").await;
    let bot = t.token("billing-runner", Role::Agent).await;
    submitted(&t, &bot, "k-1").await;
    submitted(&t, &bot, "k-2").await;

    let (_, seen) = t.get("/api/sources").await;
    let seen = seen.as_array().unwrap();
    assert_eq!(seen.len(), 2, "{seen:?}");
    // The most recent first.
    assert_eq!((seen[0]["source"].as_str(), seen[0]["engine"].as_str()), (Some("http"), Some("http")));
    assert_eq!((seen[0]["calls"].as_i64(), seen[0]["pending"].as_i64()), (Some(2), Some(2)));
    assert_eq!(seen[0]["agents"][0]["agentId"], "billing-runner");
    assert_eq!(seen[1]["source"], "local");
    assert!(seen[1]["engine"].as_str().is_some_and(|e| e.starts_with("local")), "local, or local@<instance> in team mode: {seen:?}");
    assert_eq!(seen[1]["agents"][0]["agentId"], "demo");
    assert!(seen[1]["lastSeen"].as_str().unwrap() <= seen[0]["lastSeen"].as_str().unwrap());
    // An agent token reads no such list.
    let (status, _) = t.call_as(&bot, Method::GET, "/api/sources", None).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
}

#[tokio::test]
async fn a_test_message_goes_to_a_stored_channel_signed_naming_no_call_and_a_dead_one_says_why() {
    let t = spawn_app().await;
    let (base, inbox) = receiver().await;
    set_secret(&t, "ops-hook", "s3cret-key").await;
    set_secret(&t, "dead-hook", "other-key").await;
    // Turned off: a test goes all the same (it checks the channel, not whether it is used).
    let mut off = webhook("ops-hook", "alice", &format!("{base}/hook"));
    off["enabled"] = json!(false);
    let settings = json!({ "channels": [off, webhook("dead-hook", "bob", "http://127.0.0.1:9/hook")] });
    let (status, body) = t.put("/api/settings/reach", settings).await;
    assert_eq!(status, StatusCode::OK, "{body}");

    let (status, answer) = t.post("/api/settings/reach/channels/ops-hook/test", json!({})).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert_eq!(answer, json!({ "channel": "ops-hook", "sent": true, "error": null }));
    let got = inbox.bodies("/hook");
    assert_eq!(got.len(), 1);
    let (headers, hook) = &got[0];
    assert_eq!(hook["type"], "test");
    assert!(hook.get("id").is_none() && hook.get("tool").is_none() && hook.get("fingerprint").is_none(), "{hook}");
    let ts = headers["x-approval-console-timestamp"].to_str().unwrap().parse::<i64>().unwrap();
    let raw = inbox.got.lock().unwrap()[0].2.clone();
    use hmac::Mac;
    let mut mac = hmac::Hmac::<sha2::Sha256>::new_from_slice(b"s3cret-key").unwrap();
    mac.update(format!("{ts}.").as_bytes());
    mac.update(&raw);
    assert_eq!(headers["x-approval-console-signature"].to_str().unwrap(), format!("sha256={}", hex::encode(mac.finalize().into_bytes())));

    let (status, dead) = t.post("/api/settings/reach/channels/dead-hook/test", json!({})).await;
    assert_eq!(status, StatusCode::OK, "{dead}");
    assert_eq!(dead["sent"], false);
    let why = dead["error"].as_str().unwrap();
    assert!(why.starts_with("not reached") && !why.contains("127.0.0.1:9"), "the channel's address is never in the answer: {why}");

    let (status, missing) = t.post("/api/settings/reach/channels/nobody/test", json!({})).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{missing}");
    // An operator token may read the channels, not send on them.
    let operator = t.token("op", Role::Operator).await;
    let (status, _) = t.call_as(&operator, Method::POST, "/api/settings/reach/channels/ops-hook/test", Some(json!({}))).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert_eq!(inbox.bodies("/hook").len(), 1, "nothing more was sent");
}
