//! Issue 6, item 3: the call decided last before a given one, of the same engine, thread and tool,
//! so the operator sees what changed since the last approval or decline.

use crate::helpers::*;
use reqwest::StatusCode;
use serde_json::{json, Value};

fn in_thread(text: &str, thread: &str) -> Value {
    json!({ "messages": [{ "role": "user", "content": text }], "memory": { "thread": thread, "resource": "op" } })
}

async fn paused(t: &TestApp, body: Value) -> Value {
    let answer = t.generate_with(body).await;
    let (_, page) = t.get(&format!("/api/queue?run={}", answer["runId"].as_str().unwrap())).await;
    let items = page["items"].as_array().unwrap();
    assert_eq!(items.len(), 1, "one paused call per run here: {page}");
    items[0].clone()
}

#[tokio::test]
async fn the_previous_call_is_the_last_decided_one_of_the_same_tool_in_the_same_thread() {
    let t = spawn_app().await;
    let first = paused(&t, in_thread("delete rec-1", "th-a")).await;
    let (status, body) = t.get(&format!("/api/queue/{}/previous", first["id"].as_str().unwrap())).await;
    assert_eq!((status, &body), (StatusCode::OK, &json!({ "item": null })), "nothing decided before");

    let (status, _) = t.decline(&first, "wrong record").await;
    assert_eq!(status, StatusCode::OK);
    let second = paused(&t, in_thread("delete rec-2", "th-a")).await;
    let (_, body) = t.get(&format!("/api/queue/{}/previous", second["id"].as_str().unwrap())).await;
    assert_eq!(body["item"]["id"], first["id"], "{body}");
    assert_eq!(body["item"]["args"], json!({ "id": "rec-1" }));
    assert_eq!(
        (body["item"]["decision"]["kind"].as_str(), body["item"]["decision"]["reason"].as_str()),
        (Some("decline"), Some("wrong record"))
    );

    // Another thread, and a call still pending, are not "the previous decision".
    let other = paused(&t, in_thread("delete rec-3", "th-b")).await;
    let (_, body) = t.get(&format!("/api/queue/{}/previous", other["id"].as_str().unwrap())).await;
    assert_eq!(body["item"], Value::Null, "another thread: {body}");
    let third = paused(&t, in_thread("delete rec-4", "th-a")).await;
    let (_, body) = t.get(&format!("/api/queue/{}/previous", third["id"].as_str().unwrap())).await;
    assert_eq!(body["item"]["id"], first["id"], "the pending second call is not a decision: {body}");

    // Once the second is approved, it is the previous one of the third.
    let (status, _) = t.approve(&second).await;
    assert_eq!(status, StatusCode::OK);
    let (_, body) = t.get(&format!("/api/queue/{}/previous", third["id"].as_str().unwrap())).await;
    assert_eq!((body["item"]["id"].clone(), body["item"]["decision"]["kind"].as_str()), (second["id"].clone(), Some("approve")), "{body}");
    // …and the first stays the previous of the second (it looks back from the call, not from now).
    let (_, body) = t.get(&format!("/api/queue/{}/previous", second["id"].as_str().unwrap())).await;
    assert_eq!(body["item"]["id"], first["id"]);
}

#[tokio::test]
async fn a_call_without_a_thread_has_no_previous_call_and_an_unknown_id_is_not_found() {
    let t = spawn_app().await;
    let first = paused(&t, json!({ "messages": [{ "role": "user", "content": "delete rec-1" }] })).await;
    t.approve(&first).await;
    let second = paused(&t, json!({ "messages": [{ "role": "user", "content": "delete rec-2" }] })).await;
    let (_, body) = t.get(&format!("/api/queue/{}/previous", second["id"].as_str().unwrap())).await;
    assert_eq!(body, json!({ "item": null }), "no thread, nothing to compare with");
    let (status, body) = t.get("/api/queue/no-such-call/previous").await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::NOT_FOUND, Some("not_found")), "{body}");
}
