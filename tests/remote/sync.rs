//! Discovery and sync: what waits at the Mastra server shows in the queue, once, and leaves it when it
//! no longer waits there.

use super::*;
use approval_console::domain::Fingerprint;

#[tokio::test]
async fn c1_a_remote_pause_is_queued_with_its_fingerprint_and_an_event() {
    let (_tmp, mastra, console) = setup(None).await;
    // Listen to the console's events before the pause happens.
    let mut events = console.http.get(format!("{}/api/events", console.base)).bearer_auth(TOKEN).send().await.unwrap();
    let answer = mastra.generate("ops", "delete rec-1", Some(("t-1", "user-1"))).await;
    assert_eq!(answer["finishReason"], "suspended", "{answer}");

    let items = console.wait_pending(1, |i| i["engine"] == "m").await;
    let item = &items[0];
    assert_eq!(item["toolName"], "deleteRecord");
    assert_eq!(item["args"], json!({ "id": "rec-1" }));
    assert_eq!(item["kind"], "approval");
    assert_eq!(item["agentId"], "ops");
    assert_eq!(item["threadId"], "t-1");
    assert_eq!(item["resourceId"], "user-1");
    assert_eq!(item["runId"], answer["runId"]);
    assert_eq!(item["toolCallId"], answer["suspendPayload"]["toolCallId"]);
    assert_eq!(item["allowed"], json!(["approve", "decline"]));
    let expected = Fingerprint::of("deleteRecord", &json!({ "id": "rec-1" })).unwrap();
    assert_eq!(item["fingerprint"], expected.as_str());

    // The event for it arrived on /api/events.
    let mut seen = String::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while !seen.contains(item["id"].as_str().unwrap()) {
        let chunk = tokio::time::timeout_at(deadline, events.chunk()).await.expect("event in time").unwrap().expect("stream open");
        seen.push_str(&String::from_utf8_lossy(&chunk));
    }
    assert!(seen.contains("\"added\""), "{seen}");

    // Later polls do not queue it again: two complete syncs add nothing.
    for _ in 0..2 {
        assert_eq!(console.app.sync_engine("m", &console.app.local_admin("test")).await.unwrap().report.added, 0);
    }
    assert_eq!(console.queue("engine=m").await.len(), 1);
    let engine = console.engine("m").await;
    assert_eq!(engine["health"]["state"], "reachable", "{engine}");
    assert_eq!(engine["pending"], 1);
}

#[tokio::test]
async fn a_run_suspended_before_the_console_started_is_queued() {
    let tmp = tempfile::tempdir().unwrap();
    let mastra = MastraServer::start(&tmp.path().join("mastra"), None);
    let answer = mastra.generate("ops", "delete rec-early", Some(("t-e", "u-e"))).await;
    assert_eq!(answer["finishReason"], "suspended");

    let console = Console::start(&tmp.path().join("console")).await;
    console.add_engine("m", &mastra, 1000).await;
    let items = console.wait_pending(1, |i| i["engine"] == "m").await;
    assert_eq!(items[0]["runId"], answer["runId"]);
    assert_eq!(items[0]["args"], json!({ "id": "rec-early" }));
}

#[tokio::test]
async fn s08_a_suspended_call_is_queued_with_its_payload_and_the_resume_schema_from_the_agent_listing() {
    let (_tmp, mastra, console) = setup(None).await;
    mastra.generate("ops", "ask which table?", Some(("t-q", "u-q"))).await;
    let items = console.wait_pending(1, |i| i["engine"] == "m").await;
    let item = &items[0];
    assert_eq!(item["kind"], "suspend");
    assert_eq!(item["toolName"], "askOperator");
    assert_eq!(item["suspendPayload"], json!({ "question": "which table?" }));
    // Mastra lists no arguments for a suspended call; the console says so rather than invent them.
    assert_eq!(item["args"], Value::Null);
    // The agent listing sends the schema as Zod internals; the queue holds JSON Schema.
    assert_eq!(item["resumeSchema"]["type"], "object");
    assert_eq!(item["resumeSchema"]["required"], json!(["answer"]));
    assert_eq!(item["allowed"], json!(["resume"]));
}

#[tokio::test]
async fn s13_a_supervisors_nested_approval_is_queued_once_with_its_chain() {
    let (_tmp, mastra, console) = setup(None).await;
    // Through /stream the supervisor lists the inner tool under its own ids; through /generate it lists
    // `agent-ops` with the inner call in suspendPayload. The sub-agent lists its child run too.
    mastra.stream("boss", "delete rec-s", Some(("t-s", "u-s"))).await;
    let generated = mastra.generate("boss", "delete rec-g", Some(("t-g", "u-g"))).await;
    assert_eq!(generated["finishReason"], "suspended");
    let ops_runs = mastra.suspended_runs("ops").await;
    assert_eq!(ops_runs["runs"].as_array().unwrap().len(), 2, "the sub-agent lists both child runs: {ops_runs}");

    let items = console.wait_pending(2, |i| i["engine"] == "m").await;
    // Several syncs later, still two: the child runs are never queued on their own.
    for _ in 0..2 {
        assert_eq!(console.app.sync_engine("m", &console.app.local_admin("test")).await.unwrap().report.added, 0);
    }
    let items_later = console.queue("engine=m").await;
    assert_eq!(items_later.len(), 2, "{items_later:#?}");
    for item in &items {
        assert_eq!(item["agentId"], "boss", "queued on the supervisor's run: {item}");
        assert_eq!(item["toolName"], "deleteRecord");
        assert_eq!(item["kind"], "approval");
        let chain = item["chain"].as_array().unwrap();
        assert_eq!(chain.len(), 2, "{item}");
        assert_eq!((chain[0]["agentId"].as_str(), chain[0]["toolName"].as_str()), (Some("boss"), Some("agent-ops")));
        assert_eq!((chain[1]["agentId"].as_str(), chain[1]["toolName"].as_str()), (Some("ops"), Some("deleteRecord")));
        assert_eq!(chain[0]["toolCallId"], item["toolCallId"]);
    }
    let g = items.iter().find(|i| i["args"]["id"] == "rec-g").expect("the /generate pause");
    assert_eq!(g["runId"], generated["runId"]);

    // Approving through the supervisor resolves both listings; the tool runs once.
    for item in &items {
        let (status, after) = console.approve(item).await;
        assert_eq!(status, StatusCode::OK, "{after}");
        assert_eq!(after["state"], "delivered", "{after}");
    }
    assert_eq!(ran(&mastra, "deleteRecord").len(), 2);
    assert_eq!(mastra.suspended_runs("ops").await["runs"], json!([]));
    assert_eq!(mastra.suspended_runs("boss").await["runs"], json!([]));
}

#[tokio::test]
async fn a_run_finished_elsewhere_leaves_the_queue() {
    let (_tmp, mastra, console) = setup(None).await;
    let answer = mastra.generate("ops", "delete rec-x", Some(("t-x", "u-x"))).await;
    let items = console.wait_pending(1, |i| i["engine"] == "m").await;

    // Someone approves it directly at the server.
    let (status, body) = mastra
        .post(
            "/api/agents/ops/approve-tool-call-generate",
            &json!({ "runId": answer["runId"], "toolCallId": answer["suspendPayload"]["toolCallId"] }),
        )
        .await;
    assert_eq!(status, 200, "{body}");

    let (status, report) = console.post("/api/engines/m/sync", json!({})).await;
    assert_eq!(status, StatusCode::OK, "{report}");
    console.wait_pending(0, |i| i["engine"] == "m").await;
    let item = console.item(items[0]["id"].as_str().unwrap()).await;
    assert_eq!(item["state"], "gone");
    let (_, audit) = console.get(&format!("/api/audit?item={}", items[0]["id"].as_str().unwrap())).await;
    assert!(audit["entries"].as_array().unwrap().iter().any(|e| e["action"] == "call.gone"), "{audit}");
    // Deciding it now is refused: it no longer waits.
    let (status, body) = console.approve(&items[0]).await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert_eq!(body["code"], "already_decided");
}

#[tokio::test]
async fn c1_a_console_restarted_syncs_the_engines_it_already_had() {
    let tmp = tempfile::tempdir().unwrap();
    let mastra = MastraServer::start(&tmp.path().join("mastra"), None);
    let dir = tmp.path().join("console");
    let console = Console::start(&dir).await;
    console.add_engine("m", &mastra, 200).await;
    console.stop().await;

    // Started again over the same directory: the engine comes from the table at open, and its sync
    // loop must start with the background work (it once did not, until the engine was edited).
    let console = Console::start(&dir).await;
    let answer = mastra.generate("ops", "delete rec-after", Some(("t-r", "u-r"))).await;
    assert_eq!(answer["finishReason"], "suspended", "{answer}");
    let items = console.wait_pending(1, |i| i["engine"] == "m").await;
    assert_eq!(items[0]["args"], json!({ "id": "rec-after" }));
}
