//! Decisions sent to the Mastra server: approve, decline with reason, resume with data; C3's re-read.

use super::*;

#[tokio::test]
async fn approve_runs_the_tool_once_and_the_run_finishes() {
    let (_tmp, mastra, console) = setup(None).await;
    mastra.generate("ops", "delete rec-a", Some(("t-a", "u-a"))).await;
    let items = console.wait_pending(1, |i| i["engine"] == "m").await;
    assert!(ran(&mastra, "deleteRecord").is_empty(), "nothing runs before the decision");

    let (status, after) = console.approve(&items[0]).await;
    assert_eq!(status, StatusCode::OK, "{after}");
    assert_eq!(after["state"], "delivered", "{after}");
    assert_eq!(after["decision"]["delivery"], "delivered");
    let outcome = &after["decision"]["outcome"];
    assert_eq!(outcome["route"], "approve-tool-call");
    assert!(outcome["text"].as_str().unwrap().contains("deleteRecord: {\"deleted\":\"rec-a\"}"), "{outcome}");
    assert_eq!(ran(&mastra, "deleteRecord"), vec![json!({ "tool": "deleteRecord", "input": { "id": "rec-a" } })]);
    assert_eq!(mastra.suspended_runs("ops").await["runs"], json!([]));

    // The audit holds the decision and the server's answer.
    let (_, audit) = console.get(&format!("/api/audit?item={}", items[0]["id"].as_str().unwrap())).await;
    let actions: Vec<&str> = audit["entries"].as_array().unwrap().iter().map(|e| e["action"].as_str().unwrap()).collect();
    assert_eq!(actions, vec!["delivery.delivered", "decision.approve", "call.paused"], "newest first");
    // A second approval is refused, and nothing runs again.
    let (status, body) = console.approve(&items[0]).await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::CONFLICT, Some("already_decided")));
    assert_eq!(ran(&mastra, "deleteRecord").len(), 1);
}

#[tokio::test]
async fn decline_with_reason_never_runs_the_tool_and_the_model_hears_the_reason() {
    let (_tmp, mastra, console) = setup(None).await;
    mastra.generate("ops", "delete rec-d", Some(("t-d", "u-d"))).await;
    let items = console.wait_pending(1, |i| i["engine"] == "m").await;
    let (status, after) = console.decline(&items[0], "not on a Friday").await;
    assert_eq!(status, StatusCode::OK, "{after}");
    assert_eq!(after["state"], "delivered", "{after}");
    assert_eq!(after["decision"]["outcome"]["route"], "decline-tool-call");
    assert!(after["decision"]["outcome"]["text"].as_str().unwrap().contains("not on a Friday"), "the reason reached the model: {after}");
    assert!(ran(&mastra, "deleteRecord").is_empty(), "a declined tool never runs");
    assert_eq!(mastra.suspended_runs("ops").await["runs"], json!([]));
}

#[tokio::test]
async fn s08_resume_data_is_checked_against_the_schema_before_it_is_sent() {
    let (_tmp, mastra, console) = setup(None).await;
    mastra.generate("ops", "ask which table?", Some(("t-r", "u-r"))).await;
    let items = console.wait_pending(1, |i| i["engine"] == "m").await;
    let path = format!("/api/queue/{}/resume", items[0]["id"].as_str().unwrap());

    let (status, body) = console.post(&path, json!({ "fingerprint": items[0]["fingerprint"], "data": { "answer": 42 } })).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_eq!(body["code"], "invalid_resume_data");
    assert_eq!(body["details"]["errors"][0]["path"], "/answer");
    let (status, body) = console.post(&path, json!({ "fingerprint": items[0]["fingerprint"], "data": {} })).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_eq!(body["details"]["errors"][0]["path"], "/answer");
    assert!(ran(&mastra, "askOperator").is_empty(), "invalid data is never sent");
    assert_eq!(console.item(items[0]["id"].as_str().unwrap()).await["state"], "pending");

    let (status, after) = console
        .delivered(console.post(&path, json!({ "fingerprint": items[0]["fingerprint"], "data": { "answer": "orders" } })).await)
        .await;
    assert_eq!(status, StatusCode::OK, "{after}");
    assert_eq!(after["state"], "delivered", "{after}");
    assert_eq!(after["decision"]["outcome"]["route"], "resume-stream");
    assert_eq!(
        ran(&mastra, "askOperator"),
        vec![json!({ "tool": "askOperator", "input": { "question": "which table?", "answer": "orders" } })]
    );
    assert!(after["decision"]["outcome"]["text"].as_str().unwrap().contains("orders"), "{after}");
}

#[tokio::test]
async fn c3_arguments_changed_at_the_engine_are_refused_with_both_fingerprints() {
    let (_tmp, mastra, console) = setup(None).await;
    let answer = mastra.generate("ops", "delete rec-1", Some(("t-c", "u-c"))).await;
    let items = console.wait_pending(1, |i| i["engine"] == "m").await;
    let shown = items[0].clone();

    // Behind the operator's back, the stored run now deletes another record.
    let changed = mastra.tamper_args(answer["runId"].as_str().unwrap(), "rec-1", "rec-666").await;
    assert!(changed > 0);

    let (status, body) = console.approve(&shown).await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert_eq!(body["code"], "fingerprint_mismatch");
    assert_eq!(body["details"]["expected"], shown["fingerprint"]);
    let new_fp = approval_console::domain::Fingerprint::of("deleteRecord", &json!({ "id": "rec-666" })).unwrap();
    assert_eq!(body["details"]["actual"], new_fp.as_str());
    assert!(ran(&mastra, "deleteRecord").is_empty(), "nothing ran");

    // The sync replaces the entry with the call as it is now, recording both.
    let now = console.wait_pending(1, |i| i["engine"] == "m" && i["args"]["id"] == "rec-666").await;
    assert_eq!(now[0]["fingerprint"], new_fp.as_str());
    assert_eq!(console.item(shown["id"].as_str().unwrap()).await["state"], "gone");
    let (_, audit) = console.get(&format!("/api/audit?item={}", shown["id"].as_str().unwrap())).await;
    let change = audit["entries"].as_array().unwrap().iter().find(|e| e["action"] == "call.changed").expect("call.changed audited").clone();
    assert_eq!(change["details"]["before"]["args"], json!({ "id": "rec-1" }));
    assert_eq!(change["details"]["after"]["args"], json!({ "id": "rec-666" }));
    // The old entry stays refused for what it showed.
    let (status, body) = console.approve(&shown).await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::CONFLICT, Some("fingerprint_mismatch")), "{body}");
}

#[tokio::test]
async fn two_approvals_in_one_step_surface_one_after_another() {
    let (_tmp, mastra, console) = setup(None).await;
    mastra.generate("ops", "both rec-2", Some(("t-2", "u-2"))).await;
    let first = console.wait_pending(1, |i| i["engine"] == "m").await;
    assert_eq!(first[0]["args"], json!({ "id": "rec-2" }));

    let (status, after) = console.approve(&first[0]).await;
    assert_eq!(status, StatusCode::OK, "{after}");
    assert_eq!(after["decision"]["outcome"]["nextPause"]["toolName"], "deleteRecord", "{after}");
    // The approve stream ended on the second approval: it is queued at once, on the same run.
    let second = console.queue("engine=m").await;
    assert_eq!(second.len(), 1, "{second:#?}");
    assert_eq!(second[0]["args"], json!({ "id": "rec-2-b" }));
    assert_eq!(second[0]["runId"], first[0]["runId"]);
    assert_ne!(second[0]["toolCallId"], first[0]["toolCallId"]);

    let (status, after) = console.approve(&second[0]).await;
    assert_eq!(status, StatusCode::OK, "{after}");
    assert_eq!(after["state"], "delivered");
    let ran = ran(&mastra, "deleteRecord");
    assert_eq!(ran.iter().map(|r| r["input"]["id"].as_str().unwrap()).collect::<Vec<_>>(), vec!["rec-2", "rec-2-b"]);
    assert_eq!(
        console.app.sync_engine("m", &console.app.local_admin("test")).await.unwrap().report.added,
        0,
        "a complete sync queues nothing twice"
    );
    assert!(console.queue("engine=m").await.is_empty(), "nothing queued twice");
}

#[tokio::test]
async fn a_call_decided_elsewhere_meanwhile_is_refused_as_not_found() {
    let tmp = tempfile::tempdir().unwrap();
    let mastra = MastraServer::start(&tmp.path().join("mastra"), None);
    let console = Console::start(&tmp.path().join("console")).await;
    // Slow polling: the console will not notice on its own before the decision.
    console.add_engine("m", &mastra, 3_600_000).await;
    let answer = mastra.generate("ops", "delete rec-e", Some(("t-e", "u-e"))).await;
    let (status, _) = console.post("/api/engines/m/sync", json!({})).await;
    assert_eq!(status, StatusCode::OK);
    let items = console.wait_pending(1, |i| i["engine"] == "m").await;
    mastra
        .post(
            "/api/agents/ops/approve-tool-call-generate",
            &json!({ "runId": answer["runId"], "toolCallId": answer["suspendPayload"]["toolCallId"] }),
        )
        .await;
    let (status, body) = console.approve(&items[0]).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    assert_eq!(body["code"], "not_found");
    assert_eq!(ran(&mastra, "deleteRecord").len(), 1, "only the direct approval ran it");
    assert_eq!(console.item(items[0]["id"].as_str().unwrap()).await["state"], "pending", "nothing recorded for a refused decision");
}

#[tokio::test]
async fn a_call_that_suspends_again_after_its_answer_is_queued_again() {
    let (_tmp, mastra, console) = setup(None).await;
    mastra.generate("ops", "ask colour?", Some(("t-again", "u-again"))).await;
    let first = console.wait_pending(1, |i| i["engine"] == "m").await;
    let (status, after) = console.resume(&first[0], json!({ "answer": "again" })).await;
    assert_eq!(status, StatusCode::OK, "{after}");
    assert_eq!(after["state"], "delivered");
    // The resume stream ended on the same call suspending again: a new entry, same ids, new question.
    let again = console.queue("engine=m").await;
    assert_eq!(again.len(), 1, "{again:#?}");
    assert_eq!(again[0]["toolCallId"], first[0]["toolCallId"]);
    assert_ne!(again[0]["id"], first[0]["id"]);
    assert_eq!(again[0]["suspendPayload"], json!({ "question": "colour? (asked again)" }));
    // The stream told its arguments; the listing does not. Syncs must not take that for a change.
    let report = console.app.sync_engine("m", &console.app.local_admin("test")).await.unwrap().report;
    assert_eq!((report.added, report.changed, report.gone), (0, 0, 0), "{report:?}");
    let (status, _) = console.post("/api/engines/m/sync", json!({})).await;
    assert_eq!(status, StatusCode::OK);
    let still = console.queue("engine=m").await;
    assert_eq!((still.len(), &still[0]["id"]), (1, &again[0]["id"]), "{still:#?}");

    let (status, after) = console.resume(&again[0], json!({ "answer": "blue" })).await;
    assert_eq!(status, StatusCode::OK, "{after}");
    assert_eq!(after["state"], "delivered", "{after}");
    assert_eq!(ran(&mastra, "askOperator").len(), 1, "answered once for real");
    assert!(console.queue("engine=m").await.is_empty());
}

#[tokio::test]
async fn an_expired_remote_call_is_declined_at_the_server_with_the_expiry_told_to_the_model() {
    let (_tmp, mastra, console) = setup(None).await;
    let (status, body) =
        console.send(reqwest::Method::PUT, "/api/settings/expiry", json!({ "rules": [{ "tool": "deleteRecord", "afterSecs": 1 }] })).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    mastra.generate("ops", "delete rec-slow", Some(("t-x", "u-x"))).await;
    let items = console.wait_pending(1, |i| i["engine"] == "m").await;
    let id = items[0]["id"].as_str().unwrap();
    // The console's own expiry worker (started like `serve` does) acts: nobody decides here.
    wait::eventually(WAIT, "expired and delivered", || async { console.item(id).await["state"] == "delivered" }).await;
    let after = console.item(id).await;
    assert_eq!(after["decision"]["expiredAfterSecs"], 1, "{after}");
    assert_eq!(after["decision"]["outcome"]["route"], "decline-tool-call", "Mastra has no expiry: a decline carries it");
    assert!(after["decision"]["outcome"]["text"].as_str().unwrap().contains("expired"), "the model heard it expired: {after}");
    assert!(ran(&mastra, "deleteRecord").is_empty(), "never ran");
}

#[tokio::test]
async fn a_remote_suspend_call_that_its_server_cannot_decline_never_expires_and_shows_no_deadline() {
    let (_tmp, mastra, console) = setup(None).await;
    let (status, body) =
        console.send(reqwest::Method::PUT, "/api/settings/expiry", json!({ "rules": [{ "tool": "*", "afterSecs": 1 }] })).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    mastra.generate("ops", "ask which table?", Some(("t-n", "u-n"))).await;
    let items = console.wait_pending(1, |i| i["engine"] == "m").await;
    let id = items[0]["id"].as_str().unwrap();
    assert_eq!(items[0]["allowed"], json!(["resume"]), "Mastra answers a suspend() only with resume data");
    // Past its limit, a pass looks at it, finds it cannot be declined, and leaves it alone for good.
    tokio::time::sleep(Duration::from_millis(1200)).await;
    assert_eq!(console.app.testing().expire_due().await.unwrap(), 0);
    let item = console.item(id).await;
    assert_eq!(item["state"], "pending", "{item}");
    assert!(item["expiresAt"].is_null(), "no deadline is shown for it: {item}");
    let (status, body) = console.post(&format!("/api/queue/{id}/snooze"), json!({ "secs": 600 })).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "nothing to snooze: {body}");
}
