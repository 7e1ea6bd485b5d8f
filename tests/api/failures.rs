//! A run whose model fails ends cleanly with the cause recorded; a tool that suspends with a payload
//! its schema refuses does not pause the run (S8).

use crate::helpers::*;
use approval_console::domain::{AgentId, Error};
use approval_console::engine::local::agent::{Agent, Message, Model, ModelTurn, ProposedCall, Tool, ToolOutput, ToolSpec};
use async_trait::async_trait;
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::sync::Arc;

/// Answers garbage, as a broken provider would.
struct BrokenModel;

#[async_trait]
impl Model for BrokenModel {
    fn id(&self) -> String {
        "test/broken".into()
    }
    async fn step(&self, _: &[Message], _: &[ToolSpec]) -> Result<ModelTurn, Error> {
        Err(Error::Engine("model test/broken: the answer is not JSON: \"<html>502</html>\"".into()))
    }
}

/// Calls `bad_suspend` once, then answers with the tool's result.
struct SuspendingModel;

#[async_trait]
impl Model for SuspendingModel {
    fn id(&self) -> String {
        "test/suspending".into()
    }
    async fn step(&self, messages: &[Message], _: &[ToolSpec]) -> Result<ModelTurn, Error> {
        match messages.last() {
            Some(Message::Tool { content, .. }) => Ok(ModelTurn { text: format!("tool said: {content}"), tool_calls: vec![] }),
            _ => Ok(ModelTurn {
                text: String::new(),
                tool_calls: vec![ProposedCall { tool_call_id: "call_1".into(), tool_name: "bad_suspend".into(), args: json!({}) }],
            }),
        }
    }
}

/// Suspends with `{colour: 3}` although its suspend schema wants a string.
struct BadSuspend;

#[async_trait]
impl Tool for BadSuspend {
    fn name(&self) -> &str {
        "bad_suspend"
    }
    fn description(&self) -> &str {
        "suspends with a payload that breaks its own schema"
    }
    fn input_schema(&self) -> Value {
        json!({"type": "object"})
    }
    fn suspend_schema(&self) -> Option<Value> {
        Some(json!({"type": "object", "properties": {"colour": {"type": "string"}}, "required": ["colour"]}))
    }
    async fn execute(&self, _: &Value, _: Option<&Value>) -> Result<ToolOutput, String> {
        Ok(ToolOutput::Suspend(json!({"colour": 3})))
    }
}

fn agents(_: &Counters) -> Vec<Agent> {
    let agent = |id: &str, model: Arc<dyn Model>, tools: Vec<Arc<dyn Tool>>| Agent {
        id: AgentId::new(id),
        name: id.into(),
        instructions: String::new(),
        model,
        tools,
        approval_rules: None,
        memory: false,
    };
    vec![agent("broken", Arc::new(BrokenModel), vec![]), agent("suspender", Arc::new(SuspendingModel), vec![Arc::new(BadSuspend)])]
}

#[tokio::test]
async fn a_provider_that_answers_garbage_fails_the_run_cleanly_with_the_cause_recorded() {
    let t = TestApp::builder().agents(agents).spawn().await;
    let (status, body) = t.post("/api/agents/broken/generate", json!({"messages": "hello"})).await;
    assert_eq!(status, StatusCode::BAD_GATEWAY, "{body}");
    assert_eq!(body["code"], "engine_error");
    assert!(body["message"].as_str().unwrap().contains("not JSON"), "{body}");
    assert_eq!(t.count("SELECT COUNT(*) FROM snapshots").await, 0);
    let (_, audit) = t.get("/api/audit").await;
    let failed = audit["entries"].as_array().unwrap().iter().find(|e| e["action"] == "run.failed").expect("run.failed audited");
    assert!(failed["details"]["error"].as_str().unwrap().contains("<html>502</html>"), "{failed}");
    let chunks = t.sse("/api/agents/broken/stream", json!({"messages": "hello"})).await;
    let error = chunks.iter().find(|c| c["type"] == "error").expect("an error chunk");
    assert_eq!(error["payload"]["error"]["code"], "engine_error");
}

#[tokio::test]
async fn s08_a_suspend_payload_that_breaks_the_suspend_schema_does_not_pause_the_run() {
    let t = TestApp::builder().agents(agents).spawn().await;
    let (status, answer) = t.post("/api/agents/suspender/generate", json!({"messages": "go"})).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert_eq!(answer["finishReason"], "stop");
    assert!(answer["text"].as_str().unwrap().contains("does not match its suspend schema"), "{answer}");
    assert!(t.pending().await.is_empty(), "nothing reached the operator");
}
