//! Memory (threads and their messages in SQLite) and S10 auto-resume.

use crate::helpers::*;
use reqwest::StatusCode;
use serde_json::json;

fn on_thread(text: &str, thread: &str, resource: &str) -> serde_json::Value {
    json!({"messages": [{"role": "user", "content": text}], "memory": {"thread": thread, "resource": resource}})
}

#[tokio::test]
async fn a_thread_keeps_its_messages_and_the_next_run_starts_from_them() {
    let t = spawn_app().await;
    let first = t.generate_with(on_thread("lookup rec-1", "t-mem", "user-1")).await;
    assert_eq!(first["finishReason"], "stop");
    let stored = t.count("SELECT COUNT(*) FROM messages WHERE thread_id = 't-mem'").await;
    assert_eq!(stored, 4, "user, assistant tool call, tool result, final answer");

    t.generate_with(on_thread("delete rec-2", "t-mem", "user-1")).await;
    let body = approval_console::store::testing::snapshot_bodies(t.app.testing().db()).await.unwrap().remove(0);
    assert_eq!(body["history"], 4);
    let text = body["messages"].to_string();
    assert!(text.contains("lookup rec-1") && text.contains("delete rec-2"), "{text}");
}

#[tokio::test]
async fn a_thread_belongs_to_its_resource() {
    let t = spawn_app().await;
    t.generate_with(on_thread("lookup a", "t-owned", "user-1")).await;
    let (status, body) = t.post("/api/agents/demo/generate", on_thread("lookup b", "t-owned", "user-2")).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert!(body["message"].as_str().unwrap().contains("another resource"), "{body}");
    assert_eq!(t.counters.lookups(), 1);
}

#[tokio::test]
async fn s10_the_next_message_on_the_thread_resumes_the_suspended_tool() {
    let t = spawn_app().await;
    let asked = t.generate_with(on_thread("ask which region?", "t-auto", "user-1")).await;
    assert_eq!(asked["finishReason"], "suspended");
    let mut next = on_thread("  eu-west ", "t-auto", "user-1");
    next["autoResumeSuspendedTools"] = json!(true);
    let answer = t.generate_with(next).await;
    assert_eq!(answer["runId"], asked["runId"], "the suspended run continued, no new run: {answer}");
    assert_eq!(answer["finishReason"], "stop");
    assert!(answer["text"].as_str().unwrap().contains("eu-west"), "{answer}");
    let (_, page) = t.get(&format!("/api/queue?state=all&run={}", asked["runId"].as_str().unwrap())).await;
    let decision = &page["items"][0]["decision"];
    assert_eq!(decision["kind"], "resume");
    assert_eq!(decision["data"], json!({"answer": "eu-west"}));
    let by = decision["operator"].as_str().unwrap();
    assert!(
        by.starts_with("auto-resume (model) for ") && by.ends_with("(mastra-api)"),
        "the model's resume names the principal it acted for: {by}"
    );
}

#[tokio::test]
async fn s10_auto_resume_never_approves_a_call_that_needs_approval() {
    let t = spawn_app().await;
    let paused = t.generate_with(on_thread("delete rec-9", "t-appr", "user-1")).await;
    let mut next = on_thread("yes, approve it", "t-appr", "user-1");
    next["autoResumeSuspendedTools"] = json!(true);
    let answer = t.generate_with(next).await;
    assert_ne!(answer["runId"], paused["runId"], "a new run, not a resumed approval");
    assert_eq!(t.counters.deletes(), 0);
    let (_, page) = t.get(&format!("/api/queue?run={}", paused["runId"].as_str().unwrap())).await;
    assert_eq!(page["items"][0]["state"], "pending");
}

#[tokio::test]
async fn s10_only_the_same_thread_and_resource_are_resumed_and_only_when_asked() {
    let t = spawn_app().await;
    let asked = t.generate_with(on_thread("ask colour?", "t-a", "user-1")).await;
    for (thread, resource, auto) in [("t-b", "user-1", true), ("t-a", "user-1", false)] {
        let mut next = on_thread("blue", thread, resource);
        next["autoResumeSuspendedTools"] = json!(auto);
        let answer = t.generate_with(next).await;
        assert_ne!(answer["runId"], asked["runId"], "{thread} {auto}");
    }
    assert_eq!(t.pending().await.len(), 1, "the question is still waiting");
}

#[tokio::test]
async fn s10_a_message_that_does_not_fit_the_resume_schema_leaves_the_run_suspended() {
    let t = spawn_app().await;
    t.generate_with(on_thread("ask colour?", "t-bad", "user-1")).await;
    let mut next = on_thread("", "t-bad", "user-1");
    next["messages"] = json!([]);
    next["autoResumeSuspendedTools"] = json!(true);
    let (status, body) = t.post("/api/agents/demo/generate", next).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_eq!(body["code"], "invalid_resume_data");
    assert_eq!(t.pending().await.len(), 1);
}
