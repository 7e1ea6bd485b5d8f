//! Run ids chosen by clients (issue 12): a run that exists and has not finished keeps its id.

use crate::helpers::*;
use reqwest::StatusCode;
use serde_json::json;

#[tokio::test]
async fn run_id_reuse_is_refused() {
    let t = spawn_app().await;
    let victim = t.generate_with(json!({ "messages": "delete rec-1", "runId": "v1" })).await;
    assert_eq!(victim["finishReason"], "suspended");
    let item = t.pending_call("v1", "call_1").await;
    let snapshot = t.count("SELECT COUNT(*) FROM snapshots WHERE run_id = 'v1' AND body LIKE '%rec-1%'").await;
    assert_eq!(snapshot, 1);
    for route in ["generate", "stream"] {
        let (status, body) = t.post(&format!("/api/agents/demo/{route}"), json!({ "messages": "lookup x", "runId": "v1" })).await;
        assert_eq!(status, StatusCode::CONFLICT, "{route}: {body}");
        assert_eq!(body["code"], "run_exists", "{route}: {body}");
    }
    // Nothing changed: the victim's snapshot and call are as they were, and it can still be approved.
    assert_eq!(
        t.count("SELECT COUNT(*) FROM snapshots WHERE run_id = 'v1' AND body LIKE '%rec-1%' AND body NOT LIKE '%lookup x%'").await,
        1
    );
    assert_eq!(t.item(item["id"].as_str().unwrap()).await["state"], "pending");
    assert_eq!(t.counters.lookups(), 0);
    let (status, after) = t.approve(&item).await;
    assert_eq!(status, StatusCode::OK, "{after}");
    assert_eq!(after["state"], "delivered");
    // Finished: the id may be used again.
    let again = t.generate_with(json!({ "messages": "lookup x", "runId": "v1" })).await;
    assert_eq!(again["finishReason"], "stop", "{again}");
}

#[tokio::test]
async fn a_run_id_with_a_slash_or_control_characters_is_refused() {
    let t = spawn_app().await;
    for bad in ["v1/call_1", "", "a\u{7}b", &"x".repeat(201)] {
        let (status, body) = t.post("/api/agents/demo/generate", json!({ "messages": "delete rec-1", "runId": bad })).await;
        assert_eq!((status, body["code"].as_str()), (StatusCode::BAD_REQUEST, Some("invalid_request")), "{bad:?}: {body}");
    }
    assert!(t.pending().await.is_empty());
}
