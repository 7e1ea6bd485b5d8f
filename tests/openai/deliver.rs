//! Issue 46: deciding is one durable step, delivering the next, continuing the agent's own. With a
//! model whose next turn is held open by the test, the operator's approve answers, and the tool's
//! outcome reaches the event stream, while that turn has not ended — the order, never a time.

use crate::fake_server::{approval_cycle_held, FakeOpenAi};
use crate::ServeProcess;
use futures::StreamExt;
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;

const TOKEN: &str = "deliver-test-token-6c1f9e3a7b2d4058c6f1e9a3b7d20548";

/// An agent `ops` on `fake`, served.
fn serve_on(fake: &FakeOpenAi, dir: &std::path::Path) -> ServeProcess {
    std::fs::write(dir.join("agents.toml"), fake.ops_agent_toml()).unwrap();
    ServeProcess::start(env!("CARGO_BIN_EXE_approval-console"), dir, TOKEN)
}

#[tokio::test]
async fn an_approval_answers_and_its_outcome_is_on_the_event_stream_before_the_models_next_turn_ends() {
    let gate = Arc::new(tokio::sync::Semaphore::new(0));
    let held = gate.clone();
    let fake = FakeOpenAi::answering(approval_cycle_held(move |reply| reply.held_by(&held))).await;
    let dir = tempfile::tempdir().unwrap();
    let server = serve_on(&fake, dir.path());
    let paused = server.post("/api/agents/ops/generate", json!({"messages": "delete rec-42"})).await;
    assert_eq!(paused["finishReason"], "suspended", "{paused}");
    let item = server.get("/api/queue").await["items"][0].clone();
    let id = item["id"].as_str().unwrap().to_owned();

    let http = reqwest::Client::new();
    let events = http.get(format!("{}/api/events", server.base)).bearer_auth(TOKEN).send().await.unwrap();
    let mut stream = events.bytes_stream();
    let mut text = String::new();
    crate::serve_process::read_until(&mut stream, &mut text, "event: ready").await;

    // The model's next turn cannot end before the gate opens, which happens only at the end of this
    // test: an approve that waited for it would never answer (the deadline says so).
    let answer = http
        .post(format!("{}/api/queue/{id}/approve", server.base))
        .bearer_auth(TOKEN)
        .timeout(Duration::from_secs(60))
        .json(&json!({"fingerprint": item["fingerprint"]}))
        .send()
        .await
        .expect("the approve answers while the model's next turn is held");
    assert!(answer.status().is_success(), "{}", answer.status());
    let answered: Value = answer.json().await.unwrap();
    assert_eq!(answered["decision"]["kind"], "approve", "{answered}");
    assert!(answered["decision"]["receipt"].is_string(), "the answer carries the decision's receipt: {answered}");
    assert_ne!(answered["state"], "pending", "{answered}");

    // The tool's outcome reaches the event stream: an `updated` event for the entry after which it
    // reads `delivered`, with the tool's result — and the model's turn is still held.
    let updated = format!(r#"{{"type":"updated","id":"{id}"}}"#);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    let delivered = loop {
        let seen = text.matches(&updated).count();
        while text.matches(&updated).count() == seen {
            let chunk = tokio::time::timeout_at(deadline, stream.next()).await.expect("an update in time").expect("stream open").unwrap();
            text.push_str(&String::from_utf8_lossy(&chunk));
        }
        let now = server.get(&format!("/api/queue/{id}")).await;
        if now["state"] == "delivered" {
            break now;
        }
    };
    assert_eq!(delivered["decision"]["outcome"]["result"], json!({"deleted": "rec-42"}), "{delivered}");
    assert_eq!(gate.available_permits(), 0, "the model's turn was never let go");
    let runs = server.get("/api/agents/ops/suspended-runs").await;
    assert_eq!(
        (runs["runs"][0]["status"].as_str(), &runs["runs"][0]["toolCalls"]),
        (Some("running"), &json!([])),
        "the run is on its model's turn, waiting for nothing: {runs}"
    );

    // The turn ends; the run finishes on the result the delivery committed.
    gate.add_permits(1);
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while !fake
        .requests()
        .last()
        .is_some_and(|r| r.body["messages"].as_array().is_some_and(|m| m.last().is_some_and(|m| m["role"] == "tool")))
    {
        assert!(std::time::Instant::now() < deadline, "the model was never asked with the tool's result");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let last = fake.requests().last().unwrap().body.clone();
    let told = last["messages"].as_array().unwrap().last().unwrap().clone();
    assert!(told["content"].as_str().unwrap().contains("rec-42"), "the model was told the committed result: {told}");
    server.runs_over("ops").await;
    assert_eq!(fake.request_count(), 2, "one turn to propose the call, one after its result");
}
