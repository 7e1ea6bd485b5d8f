//! C5 with a remote engine: the server down while deciding, restarts of either side, a delivery cut
//! by a crash. Nothing lost, nothing sent twice, every outcome audited.

use super::*;

async fn actions(console: &Console, id: &str) -> Vec<String> {
    let (_, audit) = console.get(&format!("/api/audit?item={id}")).await;
    audit["entries"].as_array().unwrap().iter().rev().map(|e| e["action"].as_str().unwrap().to_owned()).collect()
}

#[tokio::test]
async fn the_server_killed_and_restarted_keeps_the_run_and_the_queue_entry() {
    let (_tmp, mut mastra, console) = setup(None).await;
    mastra.generate("ops", "delete rec-k", Some(("t-k", "u-k"))).await;
    let items = console.wait_pending(1, |i| i["engine"] == "m").await;

    mastra.kill();
    wait::eventually(WAIT, "health unreachable", || async { console.engine("m").await["health"]["state"] == "unreachable" }).await;
    let engine = console.engine("m").await;
    assert!(engine["health"]["lastError"].as_str().unwrap().contains("cannot connect"), "{engine}");
    assert!(engine["health"]["lastErrorAt"].is_string());
    // An unreachable engine is not an empty one: the entry stays pending.
    let (status, _) = console.post("/api/engines/m/sync", json!({})).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(console.item(items[0]["id"].as_str().unwrap()).await["state"], "pending");

    mastra.restart();
    wait::eventually(WAIT, "health reachable again", || async { console.engine("m").await["health"]["state"] == "reachable" }).await;
    let (status, after) = console.approve(&items[0]).await;
    assert_eq!(status, StatusCode::OK, "{after}");
    assert_eq!(after["state"], "delivered", "{after}");
    assert_eq!(ran(&mastra, "deleteRecord").len(), 1);
}

#[tokio::test]
async fn c5_a_decision_taken_while_the_server_is_down_is_delivered_once_when_it_is_back_across_a_console_restart() {
    let (tmp, mut mastra, console) = setup(None).await;
    mastra.generate("ops", "delete rec-o", Some(("t-o", "u-o"))).await;
    let items = console.wait_pending(1, |i| i["engine"] == "m").await;
    let id = items[0]["id"].as_str().unwrap().to_owned();

    mastra.kill();
    let (status, after) = console.approve(&items[0]).await;
    assert_eq!(status, StatusCode::OK, "the decision is taken: {after}");
    assert_eq!(after["state"], "decided");
    assert_eq!(after["decision"]["delivery"], "pending", "waiting in the outbox: {after}");
    assert!(after["decision"]["lastError"].as_str().unwrap().contains("cannot connect"), "{after}");
    assert!(after["decision"]["nextAttemptAt"].is_string());
    assert_eq!(console.engine("m").await["awaitingDelivery"], 1);
    assert_eq!(actions(&console, &id).await, vec!["call.paused", "decision.approve", "delivery.deferred"]);

    // The console stops (a reboot) before the server is back.
    console.stop().await;
    let console = Console::start(&tmp.path().join("console")).await;
    let item = console.item(&id).await;
    assert_eq!((item["state"].as_str(), item["decision"]["delivery"].as_str()), (Some("decided"), Some("pending")), "{item}");

    mastra.restart();
    wait::eventually(WAIT, "delivered after the server is back", || async { console.item(&id).await["state"] == "delivered" }).await;
    assert_eq!(ran(&mastra, "deleteRecord").len(), 1);
    let item = console.item(&id).await;
    assert!(item["decision"]["attempts"].as_u64().unwrap() >= 2, "{item}");
    assert!(item["decision"]["outcome"]["text"].as_str().unwrap().contains("rec-o"), "the server's answer is kept: {item}");
    assert_eq!(actions(&console, &id).await, vec!["call.paused", "decision.approve", "delivery.deferred", "delivery.delivered"]);
    // Later outbox passes send nothing more.
    for _ in 0..2 {
        assert_eq!(console.app.testing().deliver_due().await.unwrap(), 0);
    }
    assert_eq!(ran(&mastra, "deleteRecord").len(), 1);
    assert_eq!(console.engine("m").await["awaitingDelivery"], 0);
}

/// Marks a decision as if the process had died while sending it.
async fn mark_delivering(dir: &Path, item_id: &str) {
    let db = approval_console::store::Db::open(dir).await.unwrap();
    approval_console::store::testing::crash_while_delivering(&db, Some(&approval_console::domain::ItemId::new(item_id))).await.unwrap();
    db.close().await;
}

#[tokio::test]
async fn a_delivery_cut_by_a_crash_is_sent_again_and_the_server_refuses_a_second_run() {
    let (tmp, mut mastra, console) = setup(None).await;
    let dir = tmp.path().join("console");
    let answer = mastra.generate("ops", "delete rec-1", Some(("t-1", "u-1"))).await;
    let second = mastra.generate("ops", "delete rec-2", Some(("t-2", "u-2"))).await;
    let items = console.wait_pending(2, |i| i["engine"] == "m").await;
    let one = items.iter().find(|i| i["args"]["id"] == "rec-1").unwrap()["id"].as_str().unwrap().to_owned();
    let two = items.iter().find(|i| i["args"]["id"] == "rec-2").unwrap()["id"].as_str().unwrap().to_owned();

    // Both decided while the server is down; then the console "dies while sending" both.
    mastra.kill();
    for item in &items {
        let (status, _) = console.approve(item).await;
        assert_eq!(status, StatusCode::OK);
    }
    console.stop().await;
    mark_delivering(&dir, &one).await;
    mark_delivering(&dir, &two).await;
    mastra.restart();
    // rec-2's send had reached the server before the crash: it ran there.
    let (status, body) = mastra
        .post(
            "/api/agents/ops/approve-tool-call-generate",
            &json!({ "runId": second["runId"], "toolCallId": second["suspendPayload"]["toolCallId"] }),
        )
        .await;
    assert_eq!(status, 200, "{body}");

    let console = Console::start(&dir).await;
    wait::eventually(WAIT, "both settled", || async {
        console.item(&one).await["decision"]["delivery"] == "delivered" && console.item(&two).await["decision"]["delivery"] == "failed"
    })
    .await;
    // rec-1 was sent again and ran once; rec-2 was not run a second time: the re-read found it gone.
    let ids: Vec<String> = ran(&mastra, "deleteRecord").iter().map(|r| r["input"]["id"].as_str().unwrap().to_owned()).collect();
    assert_eq!(ids.iter().filter(|i| *i == "rec-1").count(), 1, "{ids:?}");
    assert_eq!(ids.iter().filter(|i| *i == "rec-2").count(), 1, "{ids:?}");
    let two_item = console.item(&two).await;
    assert_eq!(two_item["decision"]["outcome"]["code"], "not_found", "{two_item}");
    assert!(actions(&console, &one).await.contains(&"delivery.retry".to_owned()));
    let _ = answer;
}

#[tokio::test]
async fn c3_a_decision_that_waited_in_the_outbox_is_not_sent_when_its_call_changed_at_the_server_meanwhile() {
    let (_tmp, mut mastra, console) = setup(None).await;
    let answer = mastra.generate("ops", "delete rec-w", Some(("t-w", "u-w"))).await;
    let items = console.wait_pending(1, |i| i["engine"] == "m").await;
    let id = items[0]["id"].as_str().unwrap().to_owned();

    mastra.kill();
    let (status, after) = console.approve(&items[0]).await;
    assert_eq!(status, StatusCode::OK, "the decision is taken: {after}");
    assert_eq!(after["decision"]["delivery"], "pending", "waiting in the outbox: {after}");
    // Meanwhile, at the server, the stored run now deletes another record.
    assert!(mastra.tamper_args(answer["runId"].as_str().unwrap(), "rec-w", "rec-666").await > 0);
    mastra.restart();

    wait::eventually(WAIT, "the decision settled", || async { console.item(&id).await["decision"]["delivery"] == "failed" }).await;
    let item = console.item(&id).await;
    let now = approval_console::domain::Fingerprint::of("deleteRecord", &json!({ "id": "rec-666" })).unwrap();
    assert_eq!(item["decision"]["outcome"]["code"], "fingerprint_mismatch", "{item}");
    assert_eq!(item["decision"]["outcome"]["details"], json!({ "expected": items[0]["fingerprint"], "actual": now.as_str() }));
    assert!(ran(&mastra, "deleteRecord").is_empty(), "nothing ran");
    // The call as it is now waits for the operator, as a new entry with its own fingerprint.
    let again = console.wait_pending(1, |i| i["engine"] == "m").await;
    assert_eq!((again[0]["args"].clone(), again[0]["fingerprint"].as_str()), (json!({ "id": "rec-666" }), Some(now.as_str())));
    assert_eq!(again[0]["id"], item["decision"]["outcome"]["replacedBy"]);
    assert!(
        actions(&console, &id).await.ends_with(&["call.changed".to_owned(), "delivery.failed".to_owned()]),
        "{:?}",
        actions(&console, &id).await
    );
}
