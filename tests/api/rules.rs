//! The engine rules of SPEC.md, one test (or more) each, through the real HTTP server.

use crate::helpers::*;
use reqwest::StatusCode;
use serde_json::json;

#[tokio::test]
async fn s01_tool_flag_pauses_before_the_tool_runs() {
    let t = spawn_app().await;
    let answer = t.generate("delete rec-1").await;
    assert_eq!(answer["finishReason"], "suspended");
    assert_eq!(t.counters.deletes(), 0, "delete_record ran before approval");
    let pending = t.pending().await;
    assert_eq!(pending.len(), 1);
    assert_eq!(pending[0]["toolName"], "delete_record");
    assert_eq!(pending[0]["kind"], "approval");
    assert_eq!(pending[0]["args"], json!({"id": "rec-1"}));
}

#[tokio::test]
async fn s02_request_flag_pauses_every_call_and_plain_calls_run_without_it() {
    let t = spawn_app().await;
    let plain = t.generate("lookup rec-7").await;
    assert_eq!(plain["finishReason"], "stop");
    assert!(plain["text"].as_str().unwrap().contains("Record rec-7"), "{plain}");
    assert_eq!(t.counters.lookups(), 1);

    let flagged = t.generate_with(json!({"messages": [{"role": "user", "content": "lookup rec-8"}], "requireToolApproval": true})).await;
    assert_eq!(flagged["finishReason"], "suspended");
    assert_eq!(flagged["suspendPayload"]["toolName"], "lookup_record");
    assert_eq!(t.counters.lookups(), 1, "lookup ran despite requireToolApproval");
    assert_eq!(t.pending().await.len(), 1);
}

#[tokio::test]
async fn s05_stream_emits_tool_call_approval_with_ids_and_args_then_ends() {
    let t = spawn_app().await;
    let chunks = t.sse("/api/agents/demo/stream", json!({"messages": "delete rec-1"})).await;
    let approval = chunks.iter().find(|c| c["type"] == "tool-call-approval").expect("a tool-call-approval chunk");
    let run_id = approval["runId"].as_str().unwrap();
    assert!(!run_id.is_empty());
    assert_eq!(approval["from"], "AGENT");
    assert_eq!(approval["payload"]["toolName"], "delete_record");
    assert_eq!(approval["payload"]["args"], json!({"id": "rec-1"}));
    let call_id = approval["payload"]["toolCallId"].as_str().unwrap();
    assert!(approval["payload"]["resumeSchema"].as_str().unwrap().contains("approved"));
    assert!(chunks.iter().all(|c| c["type"] != "finish"), "a suspended stream has no finish chunk");
    assert_eq!(chunks.last().unwrap()["type"], "tool-call-approval");
    // The queue entry exists by the time the chunk is seen.
    let item = t.pending_call(run_id, call_id).await;
    assert_eq!(item["runId"], run_id);
}

#[tokio::test]
async fn s06_decline_does_not_run_the_tool_and_the_model_is_told_the_reason() {
    let t = spawn_app().await;
    let answer = t.generate("delete rec-1").await;
    let run_id = answer["runId"].as_str().unwrap();
    let call_id = answer["suspendPayload"]["toolCallId"].as_str().unwrap();
    let (status, done) =
        t.post("/api/agents/demo/decline-tool-call-generate", json!({"runId": run_id, "toolCallId": call_id, "reason": "not today"})).await;
    assert_eq!(status, StatusCode::OK, "{done}");
    assert_eq!(done["finishReason"], "stop");
    let text = done["text"].as_str().unwrap();
    assert!(text.contains("declined") && text.contains("not today"), "{text}");
    assert_eq!(t.counters.deletes(), 0);
    assert!(t.pending().await.is_empty());
}

#[tokio::test]
async fn s06_console_decline_records_the_reason_and_runs_nothing() {
    let t = spawn_app().await;
    t.generate("delete rec-2").await;
    let item = t.pending().await.remove(0);
    let (status, after) = t.decline(&item, "wrong record").await;
    assert_eq!(status, StatusCode::OK, "{after}");
    assert_eq!(after["state"], "delivered");
    assert_eq!(after["decision"]["kind"], "decline");
    assert_eq!(after["decision"]["reason"], "wrong record");
    assert_eq!(after["decision"]["outcome"]["status"], "declined");
    assert_eq!(t.counters.deletes(), 0);
}

#[tokio::test]
async fn s06_a_tool_call_id_not_pending_is_refused_never_mapped_to_another_call() {
    let t = spawn_app().await;
    let answer = t.generate("delete rec-1").await;
    let run_id = answer["runId"].as_str().unwrap();
    let (status, body) = t.post("/api/agents/demo/approve-tool-call-generate", json!({"runId": run_id, "toolCallId": "call_999"})).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    assert_eq!(body["code"], "not_found");
    let (status, body) = t.post("/api/agents/demo/approve-tool-call-generate", json!({"runId": run_id})).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "toolCallId is required over HTTP: {body}");
    assert_eq!(t.counters.deletes(), 0);
    assert_eq!(t.pending().await.len(), 1, "the real call is still pending");
}

#[tokio::test]
async fn s07_a_decision_for_another_fingerprint_is_refused() {
    let t = spawn_app().await;
    t.generate("delete rec-1").await;
    let item = t.pending().await.remove(0);
    let other = approval_console::domain::Fingerprint::of("delete_record", &json!({"id": "rec-2"})).unwrap();
    let (status, body) = t.post(&format!("/api/queue/{}/approve", item["id"].as_str().unwrap()), json!({"fingerprint": other})).await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert_eq!(body["code"], "fingerprint_mismatch");
    assert_eq!(body["details"]["expected"], json!(other));
    assert_eq!(body["details"]["actual"], item["fingerprint"]);
    assert_eq!(t.item(item["id"].as_str().unwrap()).await["state"], "pending");
    assert_eq!(t.counters.deletes(), 0);
}

/// Rewrites the args of a call inside the stored snapshot, as a tampering or buggy engine would.
async fn change_args_in_snapshot(t: &TestApp, run_id: &str, new_id: &str) {
    let (_, mut body) = approval_console::store::testing::snapshot(t.app.testing().db(), run_id).await.unwrap().expect("a stored snapshot");
    body["calls"][0]["args"]["id"] = json!(new_id);
    approval_console::store::testing::set_snapshot_body(t.app.testing().db(), run_id, &body).await.unwrap();
}

#[tokio::test]
async fn s07_arguments_changed_at_the_engine_since_shown_are_refused_before_deciding() {
    let t = spawn_app().await;
    let answer = t.generate("delete rec-1").await;
    let item = t.pending().await.remove(0);
    change_args_in_snapshot(&t, answer["runId"].as_str().unwrap(), "rec-EVIL").await;
    let (status, body) = t.approve(&item).await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert_eq!(body["code"], "fingerprint_mismatch");
    assert_ne!(body["details"]["actual"], item["fingerprint"]);
    assert_eq!(t.counters.deletes(), 0);
    assert_eq!(t.item(item["id"].as_str().unwrap()).await["state"], "pending");
}

/// `delete rec-1` paused and approved by the console, not delivered yet (`claimed`: stored already
/// claimed, as a caller that delivers at once does): its run, entry, fingerprint and decision.
async fn approved_delete(
    t: &TestApp,
    claimed: bool,
) -> (String, approval_console::domain::ItemId, approval_console::domain::Fingerprint, approval_console::domain::Decision) {
    use approval_console::domain::{DecisionRequest, Fingerprint, ItemId, Verdict};
    let answer = t.generate("delete rec-1").await;
    let item = t.pending().await.remove(0);
    let fingerprint = Fingerprint::parse(item["fingerprint"].as_str().unwrap()).unwrap();
    let id = ItemId::new(item["id"].as_str().unwrap());
    let request =
        DecisionRequest { verdict: Verdict::Approve, fingerprint: fingerprint.clone(), operator: "test".into(), operator_key: None };
    let decided = if claimed { t.app.testing().decide_claimed(&id, request).await } else { t.app.testing().decide(&id, request).await };
    (answer["runId"].as_str().unwrap().to_owned(), id, fingerprint, decided.unwrap())
}

#[tokio::test]
async fn s07_arguments_changed_between_approval_and_execution_block_the_tool() {
    use approval_console::engine::send;
    let t = spawn_app().await;
    let (run, id, _, decision) = approved_delete(&t, true).await;
    // The console's check (C3) passes; the arguments change after it and before the tool runs: the
    // engine's own check under the run's lock (S7) still blocks the tool.
    let queued = t.app.testing().entry(&id).await.unwrap().queued;
    let checked = send::confirm(t.app.testing().local_engine().prepare(&decision, &queued).await.unwrap()).unwrap();
    change_args_in_snapshot(&t, &run, "rec-EVIL").await;
    let outcome = t.app.testing().local_engine().send(checked, None).await.unwrap();
    assert_eq!(outcome["status"], "blocked");
    assert_eq!(outcome["result"], "Tool call blocked: approval did not match delete_record arguments.");
    assert_eq!(t.counters.deletes(), 0, "the tool ran with arguments nobody approved");
}

#[tokio::test]
async fn c3_arguments_changed_between_approval_and_delivery_fail_the_decision_and_queue_the_call_again() {
    let t = spawn_app().await;
    let (run, id, fingerprint, decision) = approved_delete(&t, false).await;
    change_args_in_snapshot(&t, &run, "rec-EVIL").await;
    let err = t.app.testing().deliver(&decision).await.unwrap_err();
    assert_eq!(err.code(), "fingerprint_mismatch", "{err}");
    assert_eq!(t.counters.deletes(), 0, "nothing ran");
    let failed = t.item(id.as_str()).await;
    assert_eq!((failed["state"].as_str(), failed["decision"]["outcome"]["code"].as_str()), (Some("failed"), Some("fingerprint_mismatch")));
    let now = approval_console::domain::Fingerprint::of("delete_record", &json!({ "id": "rec-EVIL" })).unwrap();
    assert_eq!(failed["decision"]["outcome"]["details"], json!({ "expected": fingerprint, "actual": now }), "{failed}");
    // The call as it is now waits for the operator as a new entry, with its own fingerprint.
    let again = t.pending().await.remove(0);
    assert_eq!((again["args"].clone(), again["fingerprint"].as_str()), (json!({ "id": "rec-EVIL" }), Some(now.as_str())));
    assert_eq!(again["id"], failed["decision"]["outcome"]["replacedBy"]);
    let (status, body) = t.decline(&again, "not that one").await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(t.counters.deletes(), 0);
}

#[tokio::test]
async fn s07_an_approval_is_consumed_once() {
    let t = spawn_app().await;
    t.generate("delete rec-1").await;
    let item = t.pending().await.remove(0);
    let (first, body) = t.approve(&item).await;
    assert_eq!(first, StatusCode::OK, "{body}");
    assert_eq!(body["decision"]["outcome"]["result"], json!({"deleted": "rec-1"}));
    let (second, body) = t.approve(&item).await;
    assert_eq!(second, StatusCode::CONFLICT);
    assert_eq!(body["code"], "already_decided");
    assert_eq!(t.counters.deletes(), 1);
}

#[tokio::test]
async fn s08_suspend_then_resume_with_data_that_fits_the_schema() {
    let t = spawn_app().await;
    let answer = t.generate("ask what colour?").await;
    assert_eq!(answer["finishReason"], "suspended");
    assert_eq!(answer["suspendPayload"]["suspendPayload"], json!({"question": "what colour?"}));
    let item = t.pending().await.remove(0);
    assert_eq!(item["kind"], "suspend");
    assert_eq!(item["suspendPayload"], json!({"question": "what colour?"}));
    assert_eq!(item["resumeSchema"]["required"], json!(["answer"]));

    let (status, body) = t.resume(&item, json!({"answer": 5})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(body["code"], "invalid_resume_data");
    assert_eq!(body["details"]["errors"][0]["path"], "/answer");
    let (status, body) = t.resume(&item, json!({})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(body["details"]["errors"][0]["path"], "/answer", "a missing property is named: {body}");
    assert_eq!(t.item(item["id"].as_str().unwrap()).await["state"], "pending", "the run stays suspended");

    let chunks = t
        .sse(
            "/api/agents/demo/resume-stream",
            json!({"runId": item["runId"], "toolCallId": item["toolCallId"], "resumeData": {"answer": "blue"}}),
        )
        .await;
    let result = chunks.iter().find(|c| c["type"] == "tool-result").expect("tool-result");
    assert_eq!(result["payload"]["result"], json!({"answer": "blue"}));
    assert!(finish_text(&chunks).unwrap().contains("blue"));
    assert_eq!(t.item(item["id"].as_str().unwrap()).await["decision"]["data"], json!({"answer": "blue"}));
}

#[tokio::test]
async fn s09_generate_returns_suspended_at_once_and_approve_generate_returns_the_result() {
    let t = spawn_app().await;
    let answer = t.generate("delete rec-9").await;
    assert_eq!(answer["finishReason"], "suspended");
    let payload = &answer["suspendPayload"];
    assert_eq!(payload["toolName"], "delete_record");
    assert_eq!(payload["args"], json!({"id": "rec-9"}));
    let (status, done) =
        t.post("/api/agents/demo/approve-tool-call-generate", json!({"runId": answer["runId"], "toolCallId": payload["toolCallId"]})).await;
    assert_eq!(status, StatusCode::OK, "{done}");
    assert_eq!(done["finishReason"], "stop");
    assert!(done["text"].as_str().unwrap().contains(r#"delete_record: {"deleted":"rec-9"}"#), "{done}");
    assert_eq!(t.counters.deletes(), 1);
    // The Mastra-shaped route took the console's path: decision audited, consumed once.
    let (_, audit) = t.get("/api/audit?limit=10").await;
    let decision = audit["entries"].as_array().unwrap().iter().find(|e| e["action"] == "decision.approve").expect("audited");
    assert!(decision["actor"].as_str().unwrap().ends_with("(mastra-api)"), "{decision}");
    assert_eq!(
        decision["fingerprint"],
        approval_console::domain::Fingerprint::of("delete_record", &json!({"id": "rec-9"})).unwrap().as_str()
    );
    let (status, again) =
        t.post("/api/agents/demo/approve-tool-call-generate", json!({"runId": answer["runId"], "toolCallId": payload["toolCallId"]})).await;
    assert_eq!((status, again["code"].as_str()), (StatusCode::CONFLICT, Some("already_decided")));
}

#[tokio::test]
async fn s09_approve_stream_starts_at_the_tool_result_and_finishes() {
    let t = spawn_app().await;
    let answer = t.generate("delete rec-3").await;
    let chunks = t
        .sse("/api/agents/demo/approve-tool-call", json!({"runId": answer["runId"], "toolCallId": answer["suspendPayload"]["toolCallId"]}))
        .await;
    assert_eq!(chunks[0]["type"], "tool-result", "{chunks:?}");
    assert_eq!(chunks.last().unwrap()["type"], "finish");
    assert!(finish_text(&chunks).unwrap().contains("rec-3"));
}

#[tokio::test]
async fn s11_a_snapshot_exists_while_suspended_and_is_deleted_when_the_run_finishes() {
    let t = spawn_app().await;
    let answer = t.generate("delete rec-1").await;
    assert_eq!(t.count("SELECT COUNT(*) FROM snapshots").await, 1);
    let item = t.pending().await.remove(0);
    t.approve(&item).await;
    assert_eq!(t.count("SELECT COUNT(*) FROM snapshots").await, 0);
    let (status, body) =
        t.post("/api/agents/demo/approve-tool-call-generate", json!({"runId": answer["runId"], "toolCallId": item["toolCallId"]})).await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert_eq!(body["code"], "already_decided");
}

#[tokio::test]
async fn s11_deciding_a_call_whose_snapshot_is_missing_fails_with_snapshot_not_found() {
    let t = spawn_app().await;
    t.generate("delete rec-1").await;
    approval_console::store::testing::delete_snapshots(t.app.testing().db()).await.unwrap();
    let item = t.pending().await.remove(0);
    let (status, body) = t.approve(&item).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    assert_eq!(body["code"], "snapshot_not_found");
    assert_eq!(t.counters.deletes(), 0);
}

#[tokio::test]
async fn s12_suspended_runs_are_listed_from_storage_and_filtered_by_thread_and_resource() {
    let t = spawn_app().await;
    let a = t.generate_with(json!({"messages": "delete a", "memory": {"thread": "t-1", "resource": "user-1"}})).await;
    t.generate_with(json!({"messages": "ask why?", "memory": {"thread": {"id": "t-2"}, "resource": "user-1"}})).await;
    let (_, all) = t.get("/api/agents/demo/suspended-runs").await;
    assert_eq!(all["total"], 2);
    let (_, one) = t.get("/api/agents/demo/suspended-runs?threadId=t-1&resourceId=user-1").await;
    assert_eq!(one["total"], 1, "{one}");
    let run = &one["runs"][0];
    assert_eq!(run["runId"], a["runId"]);
    assert_eq!(run["status"], "suspended");
    assert_eq!(
        run["toolCalls"][0],
        json!({"toolCallId": "call_1", "toolName": "delete_record", "args": {"id": "a"}, "requiresApproval": true})
    );
    let (_, two) = t.get("/api/agents/demo/suspended-runs?threadId=t-2").await;
    let call = &two["runs"][0]["toolCalls"][0];
    assert_eq!(call["requiresApproval"], false);
    assert_eq!(call["suspendPayload"], json!({"question": "why?"}));
}

#[tokio::test]
async fn s14_several_calls_of_one_step_are_decided_in_any_order_and_the_run_continues_after_the_last() {
    let t = spawn_app().await;
    let answer = t.generate_with(json!({"messages": "both rec-5", "requireToolApproval": true})).await;
    let run_id = answer["runId"].as_str().unwrap();
    let lookup = t.pending_call(run_id, "call_1").await;
    let delete = t.pending_call(run_id, "call_2").await;
    assert_eq!(t.pending().await.len(), 2);

    let (status, _) = t.decline(&delete, "keep it").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(t.count("SELECT COUNT(*) FROM snapshots").await, 1, "the run waits for the other call");
    let (_, listed) = t.get("/api/agents/demo/suspended-runs").await;
    assert_eq!(listed["runs"][0]["toolCalls"].as_array().unwrap().len(), 1);

    let chunks = t.sse("/api/agents/demo/approve-tool-call", json!({"runId": run_id, "toolCallId": "call_1"})).await;
    let text = finish_text(&chunks).expect("the run finished");
    assert!(text.contains("Record rec-5") && text.contains("keep it"), "{text}");
    assert_eq!((t.counters.lookups(), t.counters.deletes()), (1, 0));
    assert_eq!(t.count("SELECT COUNT(*) FROM snapshots").await, 0);
    assert_eq!(t.item(lookup["id"].as_str().unwrap()).await["state"], "delivered");
}

#[tokio::test]
async fn s14_without_the_request_flag_the_plain_call_runs_and_only_the_flagged_one_waits() {
    let t = spawn_app().await;
    let answer = t.generate("both rec-6").await;
    assert_eq!(answer["toolResults"][0]["toolName"], "lookup_record");
    assert_eq!(t.counters.lookups(), 1);
    let pending = t.pending().await;
    assert_eq!(pending.len(), 1);
    assert_eq!(pending[0]["toolName"], "delete_record");
    let (_, after) = t.approve(&pending[0]).await;
    assert_eq!(after["state"], "delivered");
    assert_eq!(t.counters.deletes(), 1);
}

#[tokio::test]
async fn s12_send_tool_approval_finds_the_threads_suspended_call_in_storage() {
    let t = spawn_app().await;
    let body = |thread: &str| json!({"messages": "delete rec-7", "memory": {"thread": thread, "resource": "user-1"}});
    let paused = t.generate_with(body("t-send")).await;
    t.generate_with(body("t-other")).await;
    let (dir, tmp, counters) = t.stop().await;
    let t = TestApp::builder().dir(&dir).counters(counters).spawn().await; // only in storage now

    let (status, wrong) =
        t.post("/api/agents/demo/send-tool-approval", json!({"threadId": "t-send", "resourceId": "user-2", "approved": true})).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "another resource's thread: {wrong}");
    let (status, accepted) =
        t.post("/api/agents/demo/send-tool-approval", json!({"threadId": "t-send", "resourceId": "user-1", "approved": true})).await;
    assert_eq!(status, StatusCode::OK, "{accepted}");
    assert_eq!(accepted["accepted"], true);
    assert_eq!(accepted["runId"], paused["runId"]);
    wait::eventually(std::time::Duration::from_secs(10), "the run finished in the background", || async {
        t.count("SELECT COUNT(*) FROM snapshots").await == 1
    })
    .await;
    assert_eq!(t.counters.deletes(), 1);
    let (_, other) = t.get("/api/queue?thread=t-other").await;
    assert_eq!(other["items"].as_array().unwrap().len(), 1, "the other thread's call still waits");
    drop(tmp);
}
