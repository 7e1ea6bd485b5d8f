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

/// Issue 44: submissions stored before the file's text was kept apart held it in their context. The
/// migration takes it out of every one: a decided call's is dropped, a waiting call's moves to
/// `file_text` (its diff still shown, and let go at its decision).
#[tokio::test]
async fn a_file_text_stored_in_an_older_submissions_context_is_dropped_once_decided_and_kept_apart_while_waiting() {
    if on_postgres() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join(approval_console::store::DB_FILE);
    // The schema just before: the migrations up to it, as files.
    let before = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/migrations")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap().to_owned();
        if name.ends_with(".sql") && name.as_str() < "20261209000100" {
            std::fs::copy(&path, before.path().join(&name)).unwrap();
        }
    }
    {
        let pool = sqlx::SqlitePool::connect(&format!("sqlite://{}?mode=rwc", db.display())).await.unwrap();
        sqlx::migrate::Migrator::new(before.path()).await.unwrap().run(&pool).await.unwrap();
        for (id, state, order) in [("q_waiting", "pending", "o-1"), ("q_decided", "decided", "o-2")] {
            sqlx::query(
                "INSERT INTO queue_items (id, engine, source, agent_id, run_id, tool_call_id, tool_name, args, fingerprint, kind, chain,
                     state, paused_at, updated_at)
                 VALUES ($1, 'http', 'http', 'bot', $2, 'call', 'refund', $3, 'sha256:00', 'approval', '[]', $4, $5, $5)",
            )
            .bind(id)
            .bind(format!("sub_{id}"))
            .bind(json!({ "order": order }).to_string())
            .bind(state)
            .bind("2026-12-01T00:00:00Z")
            .execute(&pool)
            .await
            .unwrap();
            let context = json!({ "cwd": "/srv", "file": { "path": "notes.md", "exists": true, "text": format!("OLD-TEXT-{id}\n") } });
            sqlx::query(
                "INSERT INTO submissions (queue_item_id, principal_key, idempotency_key, request_hash, context, submitted_at)
                 VALUES ($1, 'token:bot', $1, 'sha256:00', $2, '2026-12-01T00:00:00Z')",
            )
            .bind(id)
            .bind(context.to_string())
            .execute(&pool)
            .await
            .unwrap();
        }
        pool.close().await;
    }
    let t = TestApp::builder().dir(tmp.path()).spawn().await;
    assert_eq!(t.count("SELECT COUNT(*) FROM submissions WHERE context LIKE '%OLD-TEXT%'").await, 0, "out of every context");
    assert_eq!(t.count("SELECT COUNT(*) FROM submissions WHERE file_text = 'OLD-TEXT-q_waiting\n'").await, 1, "the waiting call's, apart");
    assert_eq!(t.count("SELECT COUNT(*) FROM submissions WHERE file_text IS NOT NULL").await, 1, "the decided call's, dropped");
    let waiting =
        t.count("SELECT COUNT(*) FROM submissions WHERE queue_item_id = 'q_waiting' AND context LIKE '%\"path\":\"notes.md\"%'").await;
    assert_eq!(waiting, 1, "the rest of the context stays");
}
