//! Presence: who else has a call open right now. Each open detail says so (`POST
//! /api/queue/{id}/viewers`) and is answered with the others; a person is listed once, never to
//! themselves; closing says so at once; someone not heard from for the presence window is gone.

use crate::helpers::*;
use approval_console::app::presence::PRESENCE_TTL;
use approval_console::domain::Role;
use reqwest::{Method, StatusCode};
use serde_json::Value;

async fn viewing(t: &TestApp, token: &str, id: &str) -> Vec<String> {
    let (status, body) = t.call_as(token, Method::POST, &format!("/api/queue/{id}/viewers"), None).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["heartbeatSecs"], 10, "{body}");
    body["viewers"].as_array().unwrap().iter().map(|v| v["viewer"].as_str().unwrap().to_owned()).collect()
}

async fn leave(t: &TestApp, token: &str, id: &str) {
    let (status, body) = t.call_as(token, Method::DELETE, &format!("/api/queue/{id}/viewers"), None).await;
    assert_eq!(status, StatusCode::NO_CONTENT, "{body}");
}

#[tokio::test]
async fn c02_each_operator_sees_who_else_has_the_call_open_and_never_themselves() {
    let t = spawn_app().await;
    let (alice, bob, carol) =
        (t.token("alice", Role::Operator).await, t.token("bob", Role::Operator).await, t.token("carol", Role::Admin).await);
    let first = t.generate("delete rec-1").await;
    let item = t.pending_call(first["runId"].as_str().unwrap(), "call_1").await;
    let id = item["id"].as_str().unwrap();
    let other = t.generate("delete rec-2").await;
    let other = t.pending_call(other["runId"].as_str().unwrap(), "call_1").await;
    let other_id = other["id"].as_str().unwrap();

    assert!(viewing(&t, &alice, id).await.is_empty(), "alice is the first");
    assert_eq!(viewing(&t, &bob, id).await, ["alice (web)"]);
    assert_eq!(viewing(&t, &alice, id).await, ["bob (web)"], "alice's next heartbeat names bob, not herself");
    // Alice in a second window is still one person: bob sees her once, she never sees herself.
    assert_eq!(viewing(&t, &alice, id).await, ["bob (web)"]);
    assert_eq!(viewing(&t, &carol, id).await, ["alice (web)", "bob (web)"], "longest there first");
    assert!(viewing(&t, &bob, other_id).await.is_empty(), "presence is per call");
    assert_eq!(viewing(&t, &bob, id).await, ["alice (web)", "carol (web)"], "bob on two calls is on both");

    leave(&t, &alice, id).await;
    assert_eq!(viewing(&t, &bob, id).await, ["carol (web)"], "alice closed it: gone at once");
    leave(&t, &alice, id).await; // Leaving twice is no error.

    // Someone not heard from for the presence window is gone, and their row is pruned by the next heartbeat.
    let long_ago = chrono::Utc::now() - chrono::Duration::from_std(PRESENCE_TTL).unwrap() - chrono::Duration::seconds(1);
    approval_console::store::testing::set_seen(t.app.testing().db(), "carol (web)", long_ago).await.unwrap();
    assert!(viewing(&t, &bob, id).await.is_empty(), "carol's window went quiet");
    assert_eq!(t.count("SELECT COUNT(*) FROM presence WHERE viewer = 'carol (web)'").await, 0, "pruned");
    // Nothing of it is audited: presence is no decision.
    let (_, audit) = t.get("/api/audit?limit=200").await;
    let actions: Vec<&str> = audit["entries"].as_array().unwrap().iter().map(|e| e["action"].as_str().unwrap()).collect();
    assert!(actions.iter().all(|a| !a.contains("view")), "{actions:?}");
}

#[tokio::test]
async fn c02_presence_needs_an_operator_and_a_call_that_exists() {
    let t = spawn_app().await;
    let agent = t.token("bot", Role::Agent).await;
    let operator = t.token("alice", Role::Operator).await;
    let run = t.generate("delete rec-1").await;
    let item = t.pending_call(run["runId"].as_str().unwrap(), "call_1").await;
    let path = format!("/api/queue/{}/viewers", item["id"].as_str().unwrap());
    for method in [Method::POST, Method::DELETE] {
        let (status, body) = t.call_as(&agent, method.clone(), &path, None).await;
        assert_eq!((status, body["code"].as_str()), (StatusCode::FORBIDDEN, Some("forbidden")), "{method} {body}");
    }
    let (status, body) = t.call_as(&operator, Method::POST, "/api/queue/no-such-call/viewers", None).await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::NOT_FOUND, Some("not_found")), "{body}");
    let (status, _): (StatusCode, Value) = t.call_as("wrong-token", Method::POST, &path, None).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
}
