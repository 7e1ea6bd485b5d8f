//! C5 and S12: nothing lost across a restart; nothing executed twice.

use crate::helpers::*;
use approval_console::domain::{DecisionRequest, Fingerprint, ItemId, Verdict};
use reqwest::StatusCode;
use serde_json::json;

#[tokio::test]
async fn c05_the_queue_survives_a_restart_and_the_run_completes_after_approval() {
    let t = spawn_app().await;
    let answer = t.generate("delete rec-1").await;
    let before = t.pending().await;
    let (dir, tmp, counters) = t.stop().await;

    let t = spawn_app_in(&dir, counters).await;
    let after = t.pending().await;
    assert_eq!(after, before, "the queue after a restart is exactly what it was");
    let (_, runs) = t.get("/api/agents/demo/suspended-runs").await;
    assert_eq!(runs["runs"][0]["runId"], answer["runId"]);
    let (status, body) = t
        .post("/api/agents/demo/approve-tool-call-generate", json!({"runId": answer["runId"], "toolCallId": "call_1"}))
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(body["text"].as_str().unwrap().contains("rec-1"));
    assert_eq!(t.counters.deletes(), 1);
    assert!(t.pending().await.is_empty());
    drop(tmp);
}

fn approve_request(item: &serde_json::Value) -> (ItemId, DecisionRequest) {
    (
        ItemId::new(item["id"].as_str().unwrap()),
        DecisionRequest {
            verdict: Verdict::Approve,
            fingerprint: Fingerprint::parse(item["fingerprint"].as_str().unwrap()).unwrap(),
            operator: "test".into(),
        },
    )
}

#[tokio::test]
async fn c05_a_decision_stored_but_not_delivered_is_delivered_once_after_a_restart() {
    let t = spawn_app().await;
    t.generate("delete rec-1").await;
    let item = t.pending().await.remove(0);
    let (id, request) = approve_request(&item);
    t.app.console.decide(&id, request).await.unwrap();
    assert_eq!(t.counters.deletes(), 0);
    let (dir, tmp, counters) = t.stop().await;

    let t = spawn_app_in(&dir, counters.clone()).await;
    let after = t.item(id.as_str()).await;
    assert_eq!(after["state"], "delivered");
    assert_eq!(after["decision"]["delivery"], "delivered");
    assert_eq!(counters.deletes(), 1);
    let (dir, tmp2, counters) = t.stop().await;
    let t = spawn_app_in(&dir, counters.clone()).await;
    assert_eq!(counters.deletes(), 1, "a second restart delivers nothing again");
    drop((t, tmp, tmp2));
}

#[tokio::test]
async fn c05_a_delivery_cut_by_a_crash_is_marked_interrupted_and_never_rerun() {
    let t = spawn_app().await;
    t.generate("delete rec-1").await;
    let item = t.pending().await.remove(0);
    let (id, request) = approve_request(&item);
    t.app.console.decide(&id, request).await.unwrap();
    // The process claimed the decision and died while the tool ran.
    sqlx::query("UPDATE decisions SET delivery = 'delivering'").execute(t.app.db.pool()).await.unwrap();
    let (dir, tmp, counters) = t.stop().await;

    let t = spawn_app_in(&dir, counters.clone()).await;
    let after = t.item(id.as_str()).await;
    assert_eq!(after["state"], "interrupted");
    assert_eq!(after["decision"]["outcome"]["status"], "interrupted");
    assert_eq!(counters.deletes(), 0, "an interrupted sensitive call is not run again");
    let (_, audit) = t.get(&format!("/api/audit?item={}", id.as_str())).await;
    assert!(audit["entries"].as_array().unwrap().iter().any(|e| e["action"] == "delivery.interrupted"), "{audit}");
    drop(tmp);
}
