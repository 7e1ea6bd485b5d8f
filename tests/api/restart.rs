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

    let t = TestApp::builder().dir(&dir).counters(counters).spawn().await;
    let after = t.pending().await;
    assert_eq!(after, before, "the queue after a restart is exactly what it was");
    let (_, runs) = t.get("/api/agents/demo/suspended-runs").await;
    assert_eq!(runs["runs"][0]["runId"], answer["runId"]);
    let (status, body) =
        t.post("/api/agents/demo/approve-tool-call-generate", json!({"runId": answer["runId"], "toolCallId": "call_1"})).await;
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
            operator_key: None,
        },
    )
}

#[tokio::test]
async fn c05_a_decision_stored_but_not_delivered_is_delivered_once_after_a_restart() {
    let t = spawn_app().await;
    t.generate("delete rec-1").await;
    let item = t.pending().await.remove(0);
    let (id, request) = approve_request(&item);
    t.app.testing().decide(&id, request).await.unwrap();
    assert_eq!(t.counters.deletes(), 0);
    let (dir, tmp, counters) = t.stop().await;

    let t = TestApp::builder().dir(&dir).counters(counters.clone()).spawn().await;
    let after = t.item(id.as_str()).await;
    assert_eq!(after["state"], "delivered");
    assert_eq!(after["decision"]["delivery"], "delivered");
    assert_eq!(counters.deletes(), 1);
    let (dir, tmp2, counters) = t.stop().await;
    let t = TestApp::builder().dir(&dir).counters(counters.clone()).spawn().await;
    assert_eq!(counters.deletes(), 1, "a second restart delivers nothing again");
    drop((t, tmp, tmp2));
}

#[tokio::test]
async fn c05_a_delivery_cut_by_a_crash_is_marked_interrupted_and_never_rerun() {
    let t = spawn_app().await;
    t.generate("delete rec-1").await;
    let item = t.pending().await.remove(0);
    let (id, request) = approve_request(&item);
    t.app.testing().decide(&id, request).await.unwrap();
    // The process claimed the decision and died while the tool ran.
    t.app.testing().cut_inside_tool(&id).await.unwrap();
    let (dir, tmp, counters) = t.stop().await;

    let t = TestApp::builder().dir(&dir).counters(counters.clone()).spawn().await;
    let after = t.item(id.as_str()).await;
    assert_eq!(after["state"], "interrupted");
    assert_eq!(after["decision"]["outcome"]["status"], "interrupted");
    assert_eq!(counters.deletes(), 0, "an interrupted sensitive call is not run again");
    let (_, audit) = t.get(&format!("/api/audit?item={}", id.as_str())).await;
    assert!(audit["entries"].as_array().unwrap().iter().any(|e| e["action"] == "delivery.interrupted"), "{audit}");
    drop(tmp);
}

#[tokio::test]
async fn c05_a_delivery_cut_before_its_tool_began_is_delivered_at_the_next_start_once() {
    let t = spawn_app().await;
    t.generate("delete rec-1").await;
    let item = t.pending().await.remove(0);
    let (id, request) = approve_request(&item);
    t.app.testing().decide(&id, request).await.unwrap();
    // The process claimed the decision and died before the local engine said its tool would begin
    // (between the decision's commit and the tool: issue 46).
    approval_console::store::testing::crash_while_delivering(t.app.testing().db(), Some(&id)).await.unwrap();
    let (dir, tmp, counters) = t.stop().await;

    let t = TestApp::builder().dir(&dir).counters(counters.clone()).spawn().await;
    let after = t.settled(id.as_str()).await;
    assert_eq!(after["state"], "delivered", "{after}");
    assert_eq!(after["decision"]["outcome"]["result"], serde_json::json!({ "deleted": "rec-1" }), "{after}");
    assert_eq!(counters.deletes(), 1, "its tool never began, so it runs now, once");
    let actions = t.actions_of(id.as_str()).await;
    assert!(!actions.iter().any(|a| a == "delivery.interrupted"), "{actions:?}");
    let (dir, tmp2, counters) = t.stop().await;
    let t = TestApp::builder().dir(&dir).counters(counters.clone()).spawn().await;
    assert_eq!(counters.deletes(), 1, "a second restart delivers nothing again");
    drop((t, tmp, tmp2));
}

/// The real binary, killed with SIGKILL (no graceful shutdown), restarted on the same data directory.
#[tokio::test]
async fn c05_after_kill_9_the_queue_is_intact_and_the_call_can_still_be_approved() {
    let tmp = tempfile::tempdir().unwrap();
    let start = || ServeProcess::start(env!("CARGO_BIN_EXE_approval-console"), tmp.path(), TOKEN);
    let mut first = start();
    let answer = first.post("/api/agents/demo/generate", json!({"messages": "delete rec-kill"})).await;
    assert_eq!(answer["finishReason"], "suspended");
    first.kill(); // SIGKILL
    assert!(first.child.try_wait().unwrap().is_some());

    let second = start();
    let page = second.get("/api/queue").await;
    let item = &page["items"][0];
    assert_eq!(item["runId"], answer["runId"], "{page}");
    let id = item["id"].as_str().unwrap();
    let answered = second.post(&format!("/api/queue/{id}/approve"), json!({"fingerprint": item["fingerprint"]})).await;
    assert_eq!(answered["decision"]["kind"], "approve", "{answered}");
    let after = second.settled(id).await;
    assert_eq!(after["decision"]["outcome"]["result"], json!({"deleted": "rec-kill"}), "{after}");
    drop(second);
}

#[tokio::test]
async fn serve_keeps_running_when_its_stdout_is_closed() {
    use std::process::Command;
    let tmp = tempfile::tempdir().unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    // Nobody reads what serve prints (as with `serve | true`): its first write gets EPIPE.
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let mut child = Command::new(env!("CARGO_BIN_EXE_approval-console"))
        .args(["--data-dir", tmp.path().to_str().unwrap(), "serve", "--port", &port.to_string(), "--token", TOKEN])
        .env("APPROVAL_CONSOLE_LOG", "warn")
        .stdout(writer)
        .spawn()
        .unwrap();
    let http = reqwest::Client::new();
    let healthy = wait::until(std::time::Duration::from_secs(5), || {
        assert!(child.try_wait().unwrap().is_none(), "serve exited when its stdout was closed");
        let answer = http.get(format!("http://127.0.0.1:{port}/api/health")).send();
        async move { answer.await.map(|r| r.status().is_success()).map_err(|e| format!("serve never answered: {e}")) }
    })
    .await;
    assert!(healthy, "serve never answered");
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    assert!(child.try_wait().unwrap().is_none(), "serve exited when its stdout was closed");
    child.kill().unwrap();
    child.wait().unwrap();
}

#[tokio::test]
async fn c05_a_run_left_running_is_put_back_before_stored_decisions_are_delivered() {
    let t = spawn_app().await;
    let answer = t.generate_with(json!({"messages": "both rec-4", "requireToolApproval": true})).await;
    let run_id = answer["runId"].as_str().unwrap().to_owned();
    let lookup = t.pending_call(&run_id, "call_1").await;
    let delete = t.pending_call(&run_id, "call_2").await;
    assert_eq!(t.approve(&lookup).await.0, StatusCode::OK);
    let (id, request) = approve_request(&delete);
    t.app.testing().decide(&id, request).await.unwrap();
    // The process died while it was advancing the run.
    approval_console::store::testing::crash_while_running(t.app.testing().db()).await.unwrap();
    let (dir, tmp, counters) = t.stop().await;

    let t = TestApp::builder().dir(&dir).counters(counters.clone()).spawn().await;
    let after = t.item(id.as_str()).await;
    assert_eq!(after["state"], "delivered", "{after}");
    assert_eq!((counters.lookups(), counters.deletes()), (1, 1));
    assert_eq!(t.count("SELECT COUNT(*) FROM snapshots").await, 0, "the run finished");
    drop(tmp);
}
