//! Issue 46: an operator's decision is answered once it is committed, never after its tool. The
//! approved tool here waits for a permit the test gives only after the approve has answered: an
//! approve that waited for the delivery would never answer (the client's deadline says so).

use crate::helpers::*;
use approval_console::domain::{AgentId, Error};
use approval_console::engine::local::agent::{Agent, Message, Model, ModelTurn, ProposedCall, Tool, ToolOutput, ToolSpec};
use async_trait::async_trait;
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, LazyLock};
use tokio::sync::Semaphore;

/// Proposes `hold` once; after its result, says so and ends.
struct HoldOnce;

#[async_trait]
impl Model for HoldOnce {
    fn id(&self) -> String {
        "test/hold-once".into()
    }
    async fn step(&self, messages: &[Message], _: &[ToolSpec]) -> Result<ModelTurn, Error> {
        let ran = messages.iter().any(|m| matches!(m, Message::Tool { .. }));
        Ok(match ran {
            false => ModelTurn {
                text: String::new(),
                tool_calls: vec![ProposedCall { tool_call_id: "call_hold".into(), tool_name: "hold".into(), args: json!({}) }],
            },
            true => ModelTurn { text: "held".into(), tool_calls: vec![] },
        })
    }
}

/// Needs approval; counts its starts and returns only once the test gives a permit.
struct Hold;

static STARTED: AtomicUsize = AtomicUsize::new(0);
static RELEASE: LazyLock<Semaphore> = LazyLock::new(|| Semaphore::new(0));

#[async_trait]
impl Tool for Hold {
    fn name(&self) -> &str {
        "hold"
    }
    fn description(&self) -> &str {
        "holds until released"
    }
    fn input_schema(&self) -> Value {
        json!({ "type": "object" })
    }
    fn require_approval(&self) -> bool {
        true
    }
    async fn execute(&self, _: &Value, _: Option<&Value>) -> Result<ToolOutput, String> {
        STARTED.fetch_add(1, Ordering::SeqCst);
        RELEASE.acquire().await.expect("open").forget();
        Ok(ToolOutput::Done(json!("released")))
    }
}

fn holding(_: &Counters) -> Vec<Agent> {
    vec![Agent {
        id: AgentId::new("holding"),
        name: "holding".into(),
        instructions: String::new(),
        model: Arc::new(HoldOnce),
        tools: vec![Arc::new(Hold)],
        approval_rules: None,
        memory: false,
    }]
}

#[tokio::test]
async fn an_approval_is_answered_once_committed_while_its_tool_still_runs() {
    let t = TestApp::builder().agents(holding).spawn().await;
    let answer = t.generate_with_agent("holding", json!({ "messages": "go", "runId": "run-hold" })).await;
    assert_eq!(answer["finishReason"], "suspended", "{answer}");
    let item = t.pending_call("run-hold", "call_hold").await;
    let id = item["id"].as_str().unwrap();

    // The tool cannot return before the permit below: an approve that waited for it never answers
    // (the test client gives up after 30 s).
    let (status, answered) = t.post(&format!("/api/queue/{id}/approve"), json!({ "fingerprint": item["fingerprint"] })).await;
    assert_eq!(status, StatusCode::OK, "{answered}");
    assert_eq!((answered["state"].as_str(), answered["decision"]["kind"].as_str()), (Some("decided"), Some("approve")), "{answered}");
    assert!(answered["decision"]["receipt"].is_string(), "the answer carries the receipt: {answered}");
    assert!(answered["decision"]["outcome"].is_null(), "no outcome yet: the tool is held: {answered}");

    RELEASE.add_permits(1);
    let after = t.settled(id).await;
    assert_eq!((after["state"].as_str(), &after["decision"]["outcome"]["result"]), (Some("delivered"), &json!("released")), "{after}");
    assert_eq!(STARTED.load(Ordering::SeqCst), 1, "the tool ran once");
}
