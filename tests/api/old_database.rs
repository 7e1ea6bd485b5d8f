//! A database made by the first landed version (commit 457160f, its own `serve` and demo agent:
//! `tests/data/first-schema.db`) opens, migrates to today's schema and keeps everything: the
//! waiting calls can still be decided (their runs resume from the old snapshots), the decided ones
//! keep their decisions, and the audit chain still verifies. Made once with that binary:
//! "delete rec-1" and "ask which table?" left waiting, "delete rec-2" approved, "delete rec-4"
//! declined ("wrong record"), "lookup rec-3" ran; all on thread t-1 of resource u-1.

use crate::helpers::*;
use reqwest::StatusCode;
use serde_json::json;

#[tokio::test]
async fn a_database_of_the_first_schema_migrates_and_keeps_its_queue_decisions_runs_and_audit_chain() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::copy(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/first-schema.db"), tmp.path().join("approval-console.db")).unwrap();
    let t = TestApp::builder().dir(tmp.path()).spawn().await;

    let (_, verify) = t.get("/api/audit/verify").await;
    assert_eq!(
        (verify["ok"].as_bool(), verify["checked"].as_u64()),
        (Some(true), Some(9)),
        "8 entries of the first schema and this console's first receipt key: {verify}"
    );
    let (_, all) = t.get("/api/queue?tab=all").await;
    let by_args =
        |id: &str| all["items"].as_array().unwrap().iter().find(|i| i["args"]["id"] == id || i["args"]["question"] == id).cloned().unwrap();
    let approved = by_args("rec-2");
    assert_eq!((approved["state"].as_str(), approved["decision"]["kind"].as_str()), (Some("delivered"), Some("approve")), "{approved}");
    let declined = by_args("rec-4");
    assert_eq!(declined["decision"]["reason"], "wrong record");
    assert_eq!(declined["fingerprint"].as_str().unwrap(), declined["decision"]["fingerprint"].as_str().unwrap());
    // Columns added since are empty for old rows, never made up.
    assert_eq!(approved["pauseReason"], serde_json::Value::Null);

    // The waiting calls are still waiting, and their runs continue from the old snapshots.
    let waiting = t.pending().await;
    assert_eq!(waiting.len(), 2, "{waiting:#?}");
    let delete = waiting.iter().find(|i| i["toolName"] == "delete_record").unwrap();
    let (status, after) = t.approve(delete).await;
    assert_eq!(status, StatusCode::OK, "{after}");
    assert_eq!(after["state"], "delivered", "{after}");
    assert_eq!(t.counters.deletes(), 1, "the approved tool ran, from a snapshot the first schema wrote");
    let ask = waiting.iter().find(|i| i["toolName"] == "ask_operator").unwrap();
    let (status, after) = t.resume(ask, json!({ "answer": "orders" })).await;
    assert_eq!((status, after["state"].as_str()), (StatusCode::OK, Some("delivered")), "{after}");
    let (_, verify) = t.get("/api/audit/verify").await;
    assert_eq!(verify["ok"], true, "the chain goes on from the old entries: {verify}");
    assert!(verify["checked"].as_u64().unwrap() > 8);
}
