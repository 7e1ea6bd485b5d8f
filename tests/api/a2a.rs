//! A2A engines (issue 48) against a real A2A agent on the official `@a2a-js/sdk`
//! (`tests/a2a-server`: its v1.0 JSON-RPC binding over express, on Node 22 from npm, a scripted
//! model that asks for approval before refunding an order and records what it received and ran):
//! a task in `input-required` is queued; the decision goes back as the next message on the task,
//! once; a request changed after the operator saw it is not sent as approved; a task answered
//! elsewhere leaves the queue as gone; the real binary killed with -9 while a call waits still has
//! it after a restart, answered once. One agent per test: the console lists every waiting task of
//! its agent.

use crate::helpers::serve_process::ServeProcess;
use crate::helpers::*;
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::time::Duration;

#[path = "../support/a2a_server.rs"]
mod a2a_server;
use a2a_server::A2aServer;

const WAIT: Duration = Duration::from_secs(30);

/// Adds `agent` as A2A engine `a`, polling every `poll_ms`.
async fn add(t: &TestApp, agent: &A2aServer, poll_ms: u32) {
    let (status, body) = t.post("/api/engines", json!({ "name": "a", "kind": "a2a", "baseUrl": agent.base, "pollMs": poll_ms })).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
}

/// The pending entry of task `task` (waits for it, up to [`WAIT`]); its request message id `request` if given.
async fn queued(t: &TestApp, task: &str, request: Option<&str>) -> Value {
    wait::until(WAIT, || async {
        let pending = t.pending().await;
        let found = pending.iter().find(|i| i["runId"] == task && request.is_none_or(|r| i["toolCallId"] == r)).cloned();
        found.ok_or_else(|| format!("task {task} is not queued: {pending:#?}"))
    })
    .await
}

/// A console with its background work (the engines' sync) going, and an agent added as engine `a`.
async fn console(agent: &A2aServer, poll_ms: u32) -> (TestApp, approval_console::app::Background) {
    let t = spawn_app().await;
    let background = t.app.start(None);
    add(&t, agent, poll_ms).await;
    (t, background)
}

#[tokio::test]
async fn an_a2a_task_in_input_required_is_queued_and_the_approval_reaches_the_agent_once_and_runs_the_action_once() {
    let agent = A2aServer::start(None);
    let (t, _background) = console(&agent, 100).await;
    let asked_at = chrono::Utc::now();
    let task = agent.ask("refund order ord-7 amount 120").await;
    assert_eq!(task["status"]["state"], "TASK_STATE_INPUT_REQUIRED", "{task}");
    let id = task["id"].as_str().unwrap();
    let call = queued(&t, id, None).await;
    let queued_in = chrono::DateTime::parse_from_rfc3339(call["pausedAt"].as_str().unwrap()).unwrap().signed_duration_since(asked_at);
    eprintln!("a2a figures: input-required → queue row {} ms (polling every 100 ms)", queued_in.num_milliseconds());
    assert_eq!(
        (call["source"].as_str(), call["toolName"].as_str(), call["agentId"].as_str(), call["threadId"].as_str()),
        (Some("a2a"), Some("refund_order"), Some("refund-agent"), task["contextId"].as_str()),
        "{call}"
    );
    assert_eq!(call["args"], json!({ "order": "ord-7", "amount": 120 }));
    assert_eq!(call["toolCallId"], task["status"]["message"]["messageId"], "the request message is the call");
    assert_eq!(call["allowed"], json!(["approve", "decline"]));

    let (status, item) = t.approve(&call).await;
    assert_eq!(status, StatusCode::OK, "{item}");
    assert_eq!(item["state"], "delivered", "{item}");
    wait::eventually(WAIT, "the task completed", || async { agent.task(id).await["status"]["state"] == "TASK_STATE_COMPLETED" }).await;
    let received = agent.received_on(id).await;
    assert_eq!(received.len(), 1, "the decision is one message on the task: {received:#?}");
    assert_eq!(received[0]["contextId"], task["contextId"]);
    assert_eq!(received[0]["data"]["decision"], "approve");
    assert_eq!(received[0]["data"]["receipt"], item["decision"]["receipt"], "the decision's signed receipt goes with it: {item}");
    let ran = agent.ran_for(id).await;
    assert_eq!(ran.len(), 1, "{ran:#?}");
    assert_eq!(ran[0]["args"], json!({ "order": "ord-7", "amount": 120 }));
}

#[tokio::test]
async fn a_declined_a2a_request_never_runs_and_the_agent_is_told_why() {
    let agent = A2aServer::start(None);
    let (t, _background) = console(&agent, 100).await;
    let task = agent.ask("refund order ord-8 amount 5000").await;
    let id = task["id"].as_str().unwrap();
    let call = queued(&t, id, None).await;
    let (status, item) = t.decline(&call, "over the refund limit").await;
    assert_eq!((status, item["state"].as_str()), (StatusCode::OK, Some("delivered")), "{item}");
    wait::eventually(WAIT, "the task completed", || async { agent.task(id).await["status"]["state"] == "TASK_STATE_COMPLETED" }).await;
    let received = agent.received_on(id).await;
    assert_eq!(received.len(), 1, "{received:#?}");
    assert_eq!(received[0]["data"]["decision"], "decline");
    assert_eq!(received[0]["data"]["reason"], "over the refund limit");
    assert_eq!(received[0]["text"], "Declined by the operator: over the refund limit");
    assert!(agent.ran_for(id).await.is_empty(), "a declined request never runs");
    let said = agent.task(id).await["status"]["message"]["parts"][0]["text"].clone();
    assert_eq!(said, "Not run: over the refund limit.", "the agent went on knowing why");
}

#[tokio::test]
async fn an_a2a_request_changed_after_the_operator_saw_it_is_not_sent_as_approved() {
    let agent = A2aServer::start(None);
    let task = agent.ask("refund order ord-9 amount 120").await;
    let id = task["id"].as_str().unwrap();
    // Polled once when added, then only when this test syncs it.
    let (t, _background) = console(&agent, 3_600_000).await;
    let shown = queued(&t, id, None).await;
    // Another client changes what the task asks: the agent asks again, for 900.
    let changed = agent.say(&task, "make it amount 900", None).await;
    assert_eq!(changed["status"]["message"]["parts"][1]["data"]["args"]["amount"], 900, "{changed}");

    let (status, answer) = t.approve(&shown).await;
    let item = t.item(shown["id"].as_str().unwrap()).await;
    assert!(
        status != StatusCode::OK || item["state"] == "failed",
        "an approval of the request as it was is not delivered: {status} {answer} {item}"
    );
    assert_ne!(item["state"], "delivered", "{item}");
    let received = agent.received_on(id).await;
    assert!(received.iter().all(|m| m["data"].is_null()), "no decision reached the agent: {received:#?}");
    assert!(agent.ran_for(id).await.is_empty(), "nothing ran");

    let (status, synced) = t.post("/api/engines/a/sync", json!({})).await;
    assert_eq!(status, StatusCode::OK, "{synced}");
    let now = queued(&t, id, changed["status"]["message"]["messageId"].as_str()).await;
    assert_eq!(now["args"]["amount"], 900, "the request as it is now waits to be decided anew: {now}");
    assert_ne!(now["fingerprint"], shown["fingerprint"]);
}

#[tokio::test]
async fn an_a2a_task_answered_or_cancelled_elsewhere_leaves_the_queue_as_gone() {
    let agent = A2aServer::start(None);
    let (t, _background) = console(&agent, 100).await;
    let answered = agent.ask("refund order ord-10 amount 30").await;
    let cancelled = agent.ask("refund order ord-11 amount 40").await;
    let first = queued(&t, answered["id"].as_str().unwrap(), None).await;
    let second = queued(&t, cancelled["id"].as_str().unwrap(), None).await;

    agent.say(&answered, "approved here", Some(json!({ "decision": "approve" }))).await;
    agent.rpc("CancelTask", json!({ "id": cancelled["id"] })).await.unwrap_or_else(|e| panic!("CancelTask: {e}"));
    for call in [&first, &second] {
        let id = call["id"].as_str().unwrap();
        wait::eventually(WAIT, "the call left the queue as gone", || async { t.item(id).await["state"] == "gone" }).await;
        assert!(t.actions_of(id).await.contains(&"call.gone".to_owned()), "{:?}", t.actions_of(id).await);
    }
    let (status, answer) = t.approve(&first).await;
    assert_eq!(status, StatusCode::CONFLICT, "a gone call takes no decision: {answer}");
    assert_eq!(agent.received_on(answered["id"].as_str().unwrap()).await.len(), 1, "only the other client's answer");
}

#[tokio::test]
async fn an_a2a_question_and_an_auth_required_request_are_queued_and_answered() {
    let agent = A2aServer::start(None);
    let (t, _background) = console(&agent, 100).await;
    let question = agent.ask("make the quarterly report").await;
    let deploy = agent.ask("deploy billing").await;
    assert_eq!(deploy["status"]["state"], "TASK_STATE_AUTH_REQUIRED", "{deploy}");
    let q = queued(&t, question["id"].as_str().unwrap(), None).await;
    assert_eq!((q["toolName"].as_str(), q["kind"].as_str()), (Some("input-required"), Some("suspend")), "{q}");
    assert_eq!(q["args"], json!({ "question": "Which region should the report cover?" }));
    assert_eq!(q["allowed"], json!(["resume", "decline"]));
    let (status, item) = t.resume(&q, json!("eu-west")).await;
    assert_eq!((status, item["state"].as_str()), (StatusCode::OK, Some("delivered")), "{item}");
    let received = agent.received_on(question["id"].as_str().unwrap()).await;
    assert_eq!(received[0]["data"]["answer"], "eu-west", "{received:#?}");
    assert_eq!(received[0]["text"], "eu-west");

    let d = queued(&t, deploy["id"].as_str().unwrap(), None).await;
    assert_eq!((d["toolName"].as_str(), d["args"].clone()), (Some("deploy"), json!({ "service": "billing" })), "{d}");
    let (status, item) = t.approve(&d).await;
    assert_eq!((status, item["state"].as_str()), (StatusCode::OK, Some("delivered")), "{item}");
    let id = deploy["id"].as_str().unwrap();
    wait::eventually(WAIT, "the deploy ran", || async { agent.ran_for(id).await.len() == 1 }).await;
}

/// The real binary, killed with SIGKILL while the call waits, restarted on the same data directory.
#[tokio::test]
async fn an_a2a_call_waiting_when_the_console_is_killed_is_still_there_after_a_restart_and_answered_once() {
    let agent = A2aServer::start(None);
    let tmp = tempfile::tempdir().unwrap();
    test_database(tmp.path()).await;
    let start = || ServeProcess::start(env!("CARGO_BIN_EXE_approval-console"), tmp.path(), TOKEN);
    let mut first = start();
    let added = first.post("/api/engines", json!({ "name": "a", "kind": "a2a", "baseUrl": agent.base, "pollMs": 100 })).await;
    assert_eq!(added["name"], "a", "{added}");
    let task = agent.ask("refund order ord-12 amount 70").await;
    let id = task["id"].as_str().unwrap();
    async fn pending(server: &ServeProcess, id: &str) -> Option<Value> {
        server.get("/api/queue").await["items"].as_array()?.iter().find(|i| i["runId"] == id).cloned()
    }
    let call = wait::within(WAIT, || pending(&first, id)).await.expect("the task is queued");
    first.kill();

    let second = start();
    let again = wait::within(WAIT, || pending(&second, id)).await.expect("the call is still there");
    assert_eq!((again["id"].clone(), again["fingerprint"].clone()), (call["id"].clone(), call["fingerprint"].clone()), "the same entry");
    let item = again["id"].as_str().unwrap();
    let answered = second.post(&format!("/api/queue/{item}/approve"), json!({ "fingerprint": again["fingerprint"] })).await;
    assert_eq!(answered["decision"]["kind"], "approve", "{answered}");
    assert_eq!(second.settled(item).await["state"], "delivered");
    wait::eventually(WAIT, "the refund ran", || async { agent.ran_for(id).await.len() == 1 }).await;
    assert_eq!(agent.received_on(id).await.len(), 1, "answered once");
}
