//! LangGraph servers as remote engines (issue 17), against the official JS dev server started per test
//! with the fixture's graphs: each convention queued with S7 fingerprints, answered with exactly what
//! each call allows, sibling requests of one interrupt sent together, several interrupts one by one.

use crate::langgraph_server::LangGraphServer;
use crate::{wait, Console, WAIT};
use approval_console::domain::Fingerprint;
use reqwest::StatusCode;
use serde_json::{json, Value};

/// A LangGraph server and a console with it added as engine `lg` (kind `langgraph`, polling every 200 ms).
pub async fn setup() -> (tempfile::TempDir, LangGraphServer, Console) {
    let tmp = tempfile::tempdir().unwrap();
    let server = LangGraphServer::start(&tmp.path().join("langgraph")).await;
    let console = Console::start(&tmp.path().join("console")).await;
    let (status, body) =
        console.post("/api/engines", json!({ "name": "lg", "kind": "langgraph", "baseUrl": server.base, "pollMs": 200 })).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert_eq!(body["kind"], "langgraph");
    (tmp, server, console)
}

/// The pending calls of thread `thread`, once there are `n`, in tool call id order.
pub async fn calls_of(console: &Console, thread: &str, n: usize) -> Vec<Value> {
    let mut calls = console.wait_pending(n, |i| i["threadId"] == thread).await;
    calls.sort_by(|a, b| a["toolCallId"].as_str().cmp(&b["toolCallId"].as_str()));
    calls
}

/// The answers a `pair`-shaped thread's graph read, as `(order, response type)`, in order.
pub async fn answers_of(server: &LangGraphServer, thread: &str) -> Vec<(String, String)> {
    let answers = server.thread(thread).await["values"]["answers"].clone();
    let mut got: Vec<(String, String)> = answers
        .as_array()
        .unwrap()
        .iter()
        .map(|a| (a["order"].as_str().unwrap().to_owned(), a["response"]["type"].as_str().unwrap().to_owned()))
        .collect();
    got.sort();
    got
}

pub async fn thread_status(server: &LangGraphServer, thread: &str) -> String {
    server.thread(thread).await["status"].as_str().unwrap_or_default().to_owned()
}

#[tokio::test]
async fn s07_an_agent_inbox_interrupt_is_queued_with_its_fingerprint_and_an_approval_resumes_the_thread() {
    let (_tmp, server, console) = setup().await;
    let thread = server.interrupted("inbox", json!({ "to": "bob@example.com" })).await;
    let [call] = &calls_of(&console, &thread, 1).await[..] else { unreachable!() };
    assert_eq!((call["engine"].as_str(), call["source"].as_str()), (Some("lg"), Some("langgraph")));
    assert_eq!(
        (call["toolName"].as_str(), call["agentId"].as_str(), call["runId"].as_str()),
        (Some("send_email"), Some("inbox"), Some(thread.as_str()))
    );
    let args = json!({ "to": "bob@example.com", "subject": "Invoice" });
    assert_eq!(call["args"], args);
    assert_eq!(call["fingerprint"], Fingerprint::of("send_email", &args).unwrap().as_str(), "S7 over the action and its args");
    assert_eq!(call["allowed"], json!(["approve", "decline", "edit"]), "what the interrupt's config allows");
    let (_, filtered) = console.get("/api/queue?source=langgraph").await;
    assert_eq!(filtered["items"].as_array().map(Vec::len), Some(1), "{filtered}");
    let (_, mastra) = console.get("/api/queue?source=mastra").await;
    assert_eq!(mastra["items"].as_array().map(Vec::len), Some(0), "a LangGraph call is not a Mastra one: {mastra}");

    let (status, body) = console.approve(call).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let id = call["id"].as_str().unwrap();
    wait::eventually(WAIT, "the approval delivered", || async { console.item(id).await["state"] == "delivered" }).await;
    // Delivered once the resume run is created; the graph goes on by itself.
    wait::eventually(WAIT, "the thread ran to its end", || async { thread_status(&server, &thread).await != "busy" }).await;
    let done = server.thread(&thread).await;
    assert_eq!(done["status"], "idle", "{done}");
    assert_eq!(done["values"]["result"], json!({ "type": "accept", "args": null }), "the graph read an Agent Inbox accept");
    let (_, audit) = console.get(&format!("/api/audit?item={id}")).await;
    let actions: Vec<&str> = audit["entries"].as_array().into_iter().flatten().filter_map(|e| e["action"].as_str()).collect();
    assert!(actions.contains(&"call.paused") && actions.contains(&"delivery.delivered"), "{audit}");
}

#[tokio::test]
async fn a_declined_inbox_call_answers_with_the_reason_and_an_edited_one_with_its_new_arguments_and_fingerprint() {
    let (_tmp, server, console) = setup().await;
    let declined = server.interrupted("inbox", json!({ "to": "eve@example.com" })).await;
    let edited = server.interrupted("inbox", json!({ "to": "bob@example.com" })).await;
    let [d] = &calls_of(&console, &declined, 1).await[..] else { unreachable!() };
    let [e] = &calls_of(&console, &edited, 1).await[..] else { unreachable!() };

    let (status, body) = console.decline(d, "not this address").await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let new_args = json!({ "to": "carol@example.com", "subject": "Invoice" });
    let (status, body) = console.approve_edited(e, &new_args).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    wait::eventually(WAIT, "both delivered", || async {
        thread_status(&server, &declined).await == "idle" && thread_status(&server, &edited).await == "idle"
    })
    .await;
    assert_eq!(server.thread(&declined).await["values"]["result"], json!({ "type": "response", "args": "not this address" }));
    assert_eq!(
        server.thread(&edited).await["values"]["result"],
        json!({ "type": "edit", "args": { "action": "send_email", "args": new_args } }),
        "the graph ran the edited arguments"
    );
    let item = console.item(e["id"].as_str().unwrap()).await;
    assert_eq!(item["decision"]["editedFingerprint"], Fingerprint::of("send_email", &new_args).unwrap().as_str(), "{item}");
}

#[tokio::test]
async fn s08_a_plain_interrupt_waits_for_data_and_its_answer_is_what_the_graph_reads() {
    let (_tmp, server, console) = setup().await;
    let thread = server.interrupted("ask", json!({})).await;
    let [call] = &calls_of(&console, &thread, 1).await[..] else { unreachable!() };
    assert_eq!((call["kind"].as_str(), call["toolName"].as_str()), (Some("suspend"), Some("interrupt")));
    assert_eq!(call["allowed"], json!(["resume"]));
    assert_eq!(call["suspendPayload"]["question"], "Which region should the backup go to?");
    let (status, body) = console.approve(call).await;
    assert_eq!(status, StatusCode::CONFLICT, "a call that waits for data cannot be approved: {body}");
    let (status, body) = console.resume(call, json!("eu-west")).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    wait::eventually(WAIT, "the thread resumed", || async { thread_status(&server, &thread).await == "idle" }).await;
    assert_eq!(server.thread(&thread).await["values"]["region"], "eu-west");
}

#[tokio::test]
async fn two_interrupts_on_one_thread_are_decided_one_by_one_and_the_other_stays_queued_meanwhile() {
    let (_tmp, server, console) = setup().await;
    let thread = server.interrupted("pair", json!({})).await;
    let calls = calls_of(&console, &thread, 2).await;
    let order = |c: &Value| c["args"]["order"].as_str().unwrap_or_default().to_owned();
    let first = calls.iter().find(|c| order(c) == "ord-1").unwrap();
    let second = calls.iter().find(|c| order(c) == "ord-2").unwrap();
    assert_ne!(first["toolCallId"], second["toolCallId"], "each interrupt is a call of its own");
    assert_eq!(first["allowed"], json!(["approve", "decline"]), "no edit, no respond: decline ignores");

    let (status, body) = console.approve(first).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    wait::eventually(WAIT, "the first delivered", || async { console.item(first["id"].as_str().unwrap()).await["state"] == "delivered" })
        .await;
    // Delivered once the resume run is created; the graph goes on by itself to the second.
    wait::eventually(WAIT, "the resume run stopped", || async { thread_status(&server, &thread).await != "busy" }).await;
    let mid = server.thread(&thread).await;
    assert_eq!(mid["status"], "interrupted", "still waiting on the second: {mid}");
    // A few polls later the second is still the same pending entry (not gone and queued again).
    tokio::time::sleep(std::time::Duration::from_millis(800)).await;
    assert_eq!(console.item(second["id"].as_str().unwrap()).await["state"], "pending");

    let (status, body) = console.decline(second, "no").await;
    assert_eq!(status, StatusCode::OK, "{body}");
    wait::eventually(WAIT, "the thread ended", || async { thread_status(&server, &thread).await == "idle" }).await;
    assert_eq!(answers_of(&server, &thread).await, [("ord-1".to_owned(), "accept".to_owned()), ("ord-2".to_owned(), "ignore".to_owned())]);
    let declined = console.item(second["id"].as_str().unwrap()).await;
    assert!(
        declined["decision"]["outcome"]["note"].as_str().is_some_and(|n| n.contains("answered `ignore`")),
        "a reason the interrupt cannot take is said to be kept here only: {declined}"
    );
}

#[tokio::test]
async fn the_requests_of_one_middleware_interrupt_are_held_until_all_are_decided_then_sent_together_in_order() {
    let (_tmp, server, console) = setup().await;
    let thread = server.interrupted("hitl", json!({})).await;
    let calls = calls_of(&console, &thread, 2).await;
    let (delete, write) = (&calls[0], &calls[1]);
    assert_eq!((delete["toolName"].as_str(), write["toolName"].as_str()), (Some("delete_file"), Some("write_file")));
    assert_eq!(delete["allowed"], json!(["approve", "decline"]), "its review config allows no edit");
    assert_eq!(write["allowed"], json!(["approve", "decline", "edit"]));
    // A graph whose state holds no messages has no conversation to show, and says so.
    let (status, reason) = console.get(&format!("/api/queue/{}/reason", delete["id"].as_str().unwrap())).await;
    assert_eq!((status, reason["source"].as_str(), reason["messages"].clone()), (StatusCode::OK, Some("none"), json!([])), "{reason}");

    // The second request decided first: held, nothing sent yet.
    let (status, body) = console.approve(write).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(console.item(write["id"].as_str().unwrap()).await["state"], "decided", "held until the other request is decided");
    assert_eq!(thread_status(&server, &thread).await, "interrupted", "nothing sent while one request is undecided");

    let (status, body) = console.decline(delete, "keep it").await;
    assert_eq!(status, StatusCode::OK, "{body}");
    wait::eventually(WAIT, "the thread resumed", || async { thread_status(&server, &thread).await == "idle" }).await;
    assert_eq!(
        server.thread(&thread).await["values"]["result"],
        json!({ "decisions": [{ "type": "reject", "message": "keep it" }, { "type": "approve" }] }),
        "one decision per request, in the requests' order"
    );
    for c in [delete, write] {
        assert_eq!(console.item(c["id"].as_str().unwrap()).await["state"], "delivered");
    }
}

#[tokio::test]
async fn c5_the_requests_of_one_interrupt_delivered_at_the_same_moment_are_sent_once() {
    use approval_console::domain::{DecisionRequest, ItemId, Verdict};
    let (_tmp, server, console) = setup().await;
    let thread = server.interrupted("hitl", json!({})).await;
    let calls = calls_of(&console, &thread, 2).await;
    // Both decided, each claimed by a deliverer of its own (an operator's request and the outbox,
    // say), and both delivered at once: each may find the other held.
    let mut decisions = vec![];
    for c in &calls {
        let request = DecisionRequest {
            verdict: Verdict::Approve,
            fingerprint: Fingerprint::parse(c["fingerprint"].as_str().unwrap()).unwrap(),
            operator: "test".into(),
            operator_key: None,
        };
        decisions.push(console.app.testing().decide_claimed(&ItemId::new(c["id"].as_str().unwrap()), request).await.unwrap());
    }
    let testing = console.app.testing();
    let (first, second) = tokio::join!(testing.deliver_claimed(&decisions[0]), testing.deliver_claimed(&decisions[1]));
    let outcomes = [first.expect("delivered"), second.expect("delivered")];
    wait::eventually(WAIT, "the thread resumed", || async { thread_status(&server, &thread).await == "idle" }).await;
    assert_eq!(server.runs(&thread).await.len(), 2, "the first run and ONE resume: {outcomes:?}");
    for c in &calls {
        let item = console.item(c["id"].as_str().unwrap()).await;
        assert_eq!(item["state"], "delivered", "{item}");
        assert_eq!(item["decision"]["outcome"]["requests"], 2, "sent together: {item}");
    }
}

#[tokio::test]
async fn a_langgraph_engine_is_listed_with_its_kind_tested_before_adding_and_its_threads_leave_when_answered_elsewhere() {
    let (_tmp, server, console) = setup().await;
    let (status, tested) = console.post("/api/engines/test", json!({ "kind": "langgraph", "baseUrl": server.base })).await;
    assert_eq!(status, StatusCode::OK, "{tested}");
    assert_eq!((tested["result"].as_str(), tested["interrupted"].as_u64()), (Some("reachable"), Some(0)), "{tested}");
    let (_, tested) = console.post("/api/engines/test", json!({ "baseUrl": server.base })).await;
    assert_ne!(tested["result"], "reachable", "a LangGraph server is not a Mastra server: {tested}");
    let (status, bad) = console.post("/api/engines", json!({ "name": "x", "kind": "crewai", "baseUrl": server.base })).await;
    assert_eq!((status, bad["code"].as_str()), (StatusCode::BAD_REQUEST, Some("invalid_request")), "{bad}");
    assert!(bad["message"].as_str().unwrap().contains("expected one of `mastra`, `langgraph`, `ag-ui`"), "{bad}");

    let thread = server.interrupted("ask", json!({})).await;
    let [call] = &calls_of(&console, &thread, 1).await[..] else { unreachable!() };
    let engine = console.engine("lg").await;
    assert_eq!(
        (engine["kind"].as_str(), engine["health"]["state"].as_str(), engine["pending"].as_i64()),
        (Some("langgraph"), Some("reachable"), Some(1))
    );
    // Answered by someone else, straight at the server: the call leaves the queue.
    let http = reqwest::Client::new();
    let r = http
        .post(format!("{}/threads/{thread}/runs/wait", server.base))
        .json(&json!({ "assistant_id": "ask", "command": { "resume": "us-east" } }))
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success());
    let id = call["id"].as_str().unwrap().to_owned();
    wait::eventually(WAIT, "the call gone", || async { console.item(&id).await["state"] == "gone" }).await;
}

/// The tool messages of a finished agent thread, in order.
async fn tool_messages(server: &LangGraphServer, thread: &str) -> Vec<String> {
    let messages = server.thread(thread).await["values"]["messages"].clone();
    messages
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["type"] == "tool")
        .map(|m| m["content"].as_str().unwrap_or_default().to_owned())
        .collect()
}

#[tokio::test]
async fn a_real_human_in_the_loop_middleware_agent_runs_an_approved_and_an_edited_call_and_a_rejection_stops_its_step() {
    let (_tmp, server, console) = setup().await;
    let input = json!({ "messages": [{ "role": "user", "content": "clean up the data folder" }] });
    let ran = server.interrupted("agent", input.clone()).await;
    let stopped = server.interrupted("agent", input).await;
    let calls = calls_of(&console, &ran, 2).await;
    let (delete, write) = (&calls[0], &calls[1]);
    assert_eq!((delete["toolName"].as_str(), write["toolName"].as_str()), (Some("delete_file"), Some("write_file")));
    assert_eq!((delete["agentId"].as_str(), delete["args"].clone()), (Some("agent"), json!({ "path": "/srv/data/old.csv" })));
    assert_eq!(delete["allowed"], json!(["approve", "decline"]), "interruptOn allows delete_file approve and reject only");
    assert_eq!(write["allowed"], json!(["approve", "decline", "edit"]));
    // What led to it (issue 27): the thread's messages as the server holds them — the person's words.
    let (status, reason) = console.get(&format!("/api/queue/{}/reason", delete["id"].as_str().unwrap())).await;
    assert_eq!(status, StatusCode::OK, "{reason}");
    assert_eq!(reason["source"], "engine", "{reason}");
    assert_eq!(reason["messages"], json!([{ "role": "user", "text": "clean up the data folder" }]), "{reason}");

    // Approved and edited: both run, the edited one with the operator's arguments.
    let (status, body) = console.approve(delete).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let edited = json!({ "path": "/srv/data/new.csv", "content": "x,y,z" });
    let (status, body) = console.approve_edited(write, &edited).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    wait::eventually(WAIT, "the agent finished", || async { thread_status(&server, &ran).await == "idle" }).await;
    assert_eq!(tool_messages(&server, &ran).await, ["deleted /srv/data/old.csv", "wrote 5 bytes to /srv/data/new.csv"]);

    // One rejected: the middleware runs none of that step's calls and tells the model why.
    let calls = calls_of(&console, &stopped, 2).await;
    let (status, body) = console.decline(&calls[0], "keep the old file").await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, body) = console.approve(&calls[1]).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    wait::eventually(WAIT, "the agent finished", || async { thread_status(&server, &stopped).await == "idle" }).await;
    assert_eq!(tool_messages(&server, &stopped).await, ["keep the old file"], "nothing ran; the model heard the reason");
    let approved = console.item(calls[1]["id"].as_str().unwrap()).await;
    assert!(
        approved["decision"]["outcome"]["note"].as_str().is_some_and(|n| n.contains("none of")),
        "the approval's outcome says it did not run: {approved}"
    );
}

#[tokio::test]
async fn c5_a_held_request_survives_a_console_restart_and_is_sent_with_the_other_once_it_is_decided() {
    let (tmp, server, console) = setup().await;
    let thread = server.interrupted("hitl", json!({})).await;
    let calls = calls_of(&console, &thread, 2).await;
    let (status, body) = console.approve(&calls[0]).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(console.item(calls[0]["id"].as_str().unwrap()).await["state"], "decided");
    console.stop().await;

    let console = Console::start(&tmp.path().join("console")).await;
    // Still held after the restart: nothing was sent, the other request still waits for a decision.
    tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
    assert_eq!(thread_status(&server, &thread).await, "interrupted");
    assert_eq!(console.item(calls[0]["id"].as_str().unwrap()).await["state"], "decided");
    let [other] = &calls_of(&console, &thread, 1).await[..] else { unreachable!() };
    assert_eq!(other["id"], calls[1]["id"], "the same entry, not queued again");
    let (status, body) = console.approve(other).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    wait::eventually(WAIT, "the thread resumed", || async { thread_status(&server, &thread).await == "idle" }).await;
    assert_eq!(server.thread(&thread).await["values"]["result"], json!({ "decisions": [{ "type": "approve" }, { "type": "approve" }] }));
    for c in &calls {
        assert_eq!(console.item(c["id"].as_str().unwrap()).await["state"], "delivered");
    }
}

/// What the `review` graph ran, in order: `{name, args}` per approved request.
fn ran(requests: &std::path::Path) -> Vec<Value> {
    let text = std::fs::read_to_string(format!("{}.ran", requests.display())).unwrap_or_default();
    text.lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

#[tokio::test]
async fn c3_a_held_request_whose_sibling_changed_under_the_same_interrupt_is_not_sent_and_the_changed_one_is_queued_anew() {
    let (tmp, server, console) = setup().await;
    let requests = tmp.path().join("requests.json");
    let write = json!({ "name": "write_file", "args": { "path": "/srv/data/new.csv", "content": "a,b" } });
    std::fs::write(&requests, json!([{ "name": "delete_file", "args": { "path": "/srv/data/old.csv" } }, write]).to_string()).unwrap();
    let thread = server.interrupted("review", json!({ "requests": requests })).await;
    let calls = calls_of(&console, &thread, 2).await;
    let (delete, write_call) = (&calls[0], &calls[1]);
    assert_eq!(delete["args"], json!({ "path": "/srv/data/old.csv" }));
    let interrupt_id =
        |t: &Value| t["interrupts"].as_object().unwrap().values().flat_map(|v| v.as_array().unwrap().clone()).next().unwrap()["id"].clone();
    let interrupt = interrupt_id(&server.thread(&thread).await);

    // The delete approved: held for the other request of its interrupt.
    let (status, body) = console.approve(delete).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["state"], "decided", "held: {body}");

    // Behind the operator's back the graph asks again, under the same interrupt id, with a wider delete.
    let wider = json!({ "path": "/srv/data", "recursive": true });
    std::fs::write(&requests, json!([{ "name": "delete_file", "args": wider }, write]).to_string()).unwrap();
    server.run_again(&thread, "review").await;
    let changed = server.thread(&thread).await;
    assert_eq!(interrupt_id(&changed), interrupt, "the same interrupt: {changed}");
    assert!(changed["interrupts"].to_string().contains("recursive"), "with the changed request: {changed}");

    // The write approved: its send would carry the held delete, which is no longer what was approved.
    let (status, body) = console.approve(write_call).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let old = console.item(delete["id"].as_str().unwrap()).await;
    assert_eq!((old["state"].as_str(), old["decision"]["delivery"].as_str()), (Some("failed"), Some("failed")), "{old}");
    let outcome = &old["decision"]["outcome"];
    let now = Fingerprint::of("delete_file", &wider).unwrap();
    assert_eq!(outcome["code"], "fingerprint_mismatch", "{old}");
    assert_eq!(outcome["details"], json!({ "expected": delete["fingerprint"], "actual": now.as_str() }), "{old}");
    assert_eq!(thread_status(&server, &thread).await, "interrupted", "nothing was sent");
    assert!(ran(&requests).is_empty(), "nothing ran: {:?}", ran(&requests));
    let (_, audit) = console.get(&format!("/api/audit?item={}", delete["id"].as_str().unwrap())).await;
    let actions: Vec<&str> = audit["entries"].as_array().into_iter().flatten().filter_map(|e| e["action"].as_str()).collect();
    assert!(
        actions.contains(&"call.changed") && actions.contains(&"delivery.failed") && !actions.contains(&"delivery.delivered"),
        "{audit}"
    );

    // The changed request waits for the operator as a new call with its new fingerprint; the write
    // stays held until it is decided.
    let [again] = &console.wait_pending(1, |i| i["threadId"] == thread.as_str()).await[..] else { unreachable!() };
    assert_eq!((again["args"].clone(), again["fingerprint"].as_str()), (wider.clone(), Some(now.as_str())), "{again}");
    assert_eq!(again["toolCallId"], delete["toolCallId"]);
    assert_eq!(again["id"], outcome["replacedBy"]);
    assert_eq!(console.item(write_call["id"].as_str().unwrap()).await["state"], "decided", "still held");

    // Declined: the interrupt's answers go together, and the wider delete never runs.
    let (status, body) = console.decline(again, "not the whole folder").await;
    assert_eq!(status, StatusCode::OK, "{body}");
    wait::eventually(WAIT, "the thread resumed", || async { thread_status(&server, &thread).await == "idle" }).await;
    assert_eq!(
        server.thread(&thread).await["values"]["result"],
        json!({ "decisions": [{ "type": "reject", "message": "not the whole folder" }, { "type": "approve" }] })
    );
    assert_eq!(ran(&requests), [write], "only what the operator saw ran");
    for id in [&again["id"], &write_call["id"]] {
        assert_eq!(console.item(id.as_str().unwrap()).await["state"], "delivered");
    }
}
