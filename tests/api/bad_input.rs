//! Bad input gets a clear error, no panic, and changes nothing.

use crate::helpers::*;
use reqwest::StatusCode;
use serde_json::json;

async fn assert_nothing_changed(t: &TestApp, pending: usize) {
    assert_eq!(t.pending().await.len(), pending);
    assert_eq!(t.count("SELECT COUNT(*) FROM decisions").await, 0);
    let (status, health) = t.get("/api/health").await;
    assert_eq!((status, health["status"].as_str()), (StatusCode::OK, Some("ok")), "the server still answers");
}

#[tokio::test]
async fn five_megabyte_arguments_are_refused_as_too_large() {
    let t = spawn_app().await;
    let huge = format!("delete {}", "x".repeat(5 * 1024 * 1024));
    let (status, body) = t.post("/api/agents/demo/generate", json!({"messages": huge})).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE, "{body}");
    assert_eq!(body["code"], "payload_too_large");
    assert_nothing_changed(&t, 0).await;
}

#[tokio::test]
async fn one_megabyte_arguments_are_queued_with_their_fingerprint() {
    let t = spawn_app().await;
    let big = "y".repeat(1024 * 1024);
    t.generate(&format!("delete {big}")).await;
    let item = t.pending().await.remove(0);
    assert_eq!(item["args"]["id"].as_str().unwrap().len(), big.len());
    let expected = approval_console::domain::Fingerprint::of("delete_record", &json!({"id": big})).unwrap();
    assert_eq!(item["fingerprint"], json!(expected));
}

#[tokio::test]
async fn nesting_ten_thousand_deep_is_refused_with_a_clear_error() {
    let t = spawn_app().await;
    let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    let (status, body) = t.post_raw("/api/agents/demo/generate", format!(r#"{{"messages":{deep}}}"#)).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert_eq!(body["code"], "invalid_request");
    assert!(body["message"].as_str().unwrap().contains("nested too deeply"), "{body}");

    t.generate("ask deep?").await;
    let item = t.pending().await.remove(0);
    let (status, body) = t
        .post_raw(
            &format!("/api/queue/{}/resume", item["id"].as_str().unwrap()),
            format!(r#"{{"fingerprint":{},"data":{deep}}}"#, item["fingerprint"]),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert_nothing_changed(&t, 1).await;
}

#[tokio::test]
async fn invalid_json_is_refused_with_a_clear_error() {
    let t = spawn_app().await;
    let (status, body) = t.post_raw("/api/agents/demo/generate", "{not json").await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(body["code"], "invalid_request");
    t.generate("delete rec-1").await;
    let item = t.pending().await.remove(0);
    let (status, body) = t.post_raw(&format!("/api/queue/{}/approve", item["id"].as_str().unwrap()), r#"{"fingerprint": 12}"#).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    let (status, body) = t.post(&format!("/api/queue/{}/approve", item["id"].as_str().unwrap()), json!({"fingerprint": "md5:abc"})).await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::BAD_REQUEST, Some("invalid_request")));
    assert_nothing_changed(&t, 1).await;
}

#[tokio::test]
async fn unknown_ids_are_not_found() {
    let t = spawn_app().await;
    let (status, body) = t.get("/api/queue/q_nope").await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::NOT_FOUND, Some("not_found")));
    let fp = approval_console::domain::Fingerprint::of("x", &json!({})).unwrap();
    let (status, _) = t.post("/api/queue/q_nope/approve", json!({"fingerprint": fp})).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _) = t.post("/api/agents/demo/approve-tool-call-generate", json!({"runId": "nope", "toolCallId": "call_1"})).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _) = t.post("/api/agents/nobody/generate", json!({"messages": "delete x"})).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, body) = t.get("/api/nothing-here").await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::NOT_FOUND, Some("not_found")));
    assert_nothing_changed(&t, 0).await;
}

#[tokio::test]
async fn a_decision_that_does_not_fit_the_call_kind_is_refused() {
    let t = spawn_app().await;
    t.generate("delete rec-1").await;
    let item = t.pending().await.remove(0);
    let (status, body) = t.resume(&item, json!({"answer": "x"})).await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::CONFLICT, Some("decision_not_allowed")), "{body}");
    assert_nothing_changed(&t, 1).await;
}

#[tokio::test]
async fn a_locked_database_gives_storage_busy_and_changes_nothing() {
    if on_postgres() {
        return; // SQLite's file lock; PostgreSQL's lock wait is its lock_timeout (storage_busy too).
    }
    let t = spawn_app().await;
    t.generate("delete rec-1").await;
    let item = t.pending().await.remove(0);
    // Another connection (as another process would) holds the write lock past the busy timeout.
    use sqlx::Connection;
    let mut holder =
        sqlx::SqliteConnection::connect(&format!("sqlite://{}", t.dir.join(approval_console::store::DB_FILE).display())).await.unwrap();
    sqlx::query("BEGIN IMMEDIATE").execute(&mut holder).await.unwrap();
    let (status, body) = t.approve(&item).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
    assert_eq!(body["code"], "storage_busy");
    sqlx::query("COMMIT").execute(&mut holder).await.unwrap();
    holder.close().await.unwrap();
    assert_eq!(t.item(item["id"].as_str().unwrap()).await["state"], "pending");
    assert_eq!(t.counters.deletes(), 0);
    let (status, _) = t.approve(&item).await;
    assert_eq!(status, StatusCode::OK, "works again once the lock is gone");
}
