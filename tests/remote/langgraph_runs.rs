//! A LangGraph decision is sent as a resume run created on the thread, not waited for (issue 46):
//! the console answers while the graph goes on, follows the thread by its listings, and keeps a
//! decision for a thread that is busy with a run in the outbox until the run stops. The `gated`
//! fixture graph holds its resume run open until the test creates a file.

use crate::langgraph::{answers_of, calls_of, setup, thread_status};
use crate::{wait, WAIT};
use reqwest::StatusCode;
use serde_json::json;

#[tokio::test]
async fn a_decision_is_delivered_once_its_resume_run_is_created_while_the_graph_still_runs() {
    let (tmp, server, console) = setup().await;
    let gate = tmp.path().join("gate");
    let thread = server.interrupted("gated", json!({ "gate": gate })).await;
    let calls = calls_of(&console, &thread, 2).await;
    let order = |c: &serde_json::Value| c["args"]["order"].as_str().unwrap_or_default().to_owned();
    let first = calls.iter().find(|c| order(c) == "ord-1").unwrap();
    let second = calls.iter().find(|c| order(c) == "ord-2").unwrap();

    // The graph cannot go on past the answer until the gate exists: the approval answers anyway.
    let (status, body) = console.approve(first).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let id = first["id"].as_str().unwrap();
    wait::eventually(WAIT, "the approval delivered", || async { console.item(id).await["state"] == "delivered" }).await;
    let outcome = console.item(id).await["decision"]["outcome"].clone();
    assert_eq!(outcome["route"], "runs", "a run created, not waited for: {outcome}");
    let run = outcome["run"].as_str().expect("the run created is named").to_owned();
    assert_eq!(thread_status(&server, &thread).await, "busy", "the resume run still goes on");
    assert!(server.runs(&thread).await.iter().any(|r| r["run_id"] == run.as_str()), "the server has the run {run}");
    assert_eq!(console.item(second["id"].as_str().unwrap()).await["state"], "pending", "the other request stays queued meanwhile");

    // Decided while the thread is busy: nothing is compared or sent; the decision waits in the outbox.
    let (status, body) = console.decline(second, "no").await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let second_id = second["id"].as_str().unwrap();
    wait::eventually(WAIT, "the send tried and put off", || async {
        let item = console.item(second_id).await;
        item["decision"]["lastError"].as_str().is_some_and(|e| e.contains("busy"))
    })
    .await;
    assert_eq!(console.item(second_id).await["state"], "decided", "not delivered while the thread is busy");
    assert_eq!(server.runs(&thread).await.len(), 2, "the first run and the first resume only");

    // The run goes on and stops at the second interrupt: the decision is sent from the outbox.
    std::fs::write(&gate, "open").unwrap();
    wait::eventually(WAIT, "the second delivered", || async { console.item(second_id).await["state"] == "delivered" }).await;
    wait::eventually(WAIT, "the thread ended", || async { thread_status(&server, &thread).await == "idle" }).await;
    assert_eq!(answers_of(&server, &thread).await, [("ord-1".to_owned(), "accept".to_owned()), ("ord-2".to_owned(), "ignore".to_owned())]);
}
