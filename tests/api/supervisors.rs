//! S13: a supervisor delegates to sub-agents (tool `agent-<key>`), which may delegate further. A pause
//! anywhere in the chain surfaces once, on the top-level run, under the top call's id, with the inner
//! tool's name and arguments and the chain; the decision travels down and the whole chain finishes.

use crate::helpers::*;
use approval_console::domain::{AgentId, Error};
use approval_console::engine::local::agent::{Agent, Message, Model, ModelTurn, ProposedCall, SubAgent, Tool, ToolSpec};
use async_trait::async_trait;
use reqwest::StatusCode;
use serde_json::json;
use std::sync::Arc;

/// Hands the user's message to `to` as `{prompt}`; once the result is in, answers `<name>: <result>`.
struct Delegating {
    name: &'static str,
    to: &'static str,
}

#[async_trait]
impl Model for Delegating {
    fn id(&self) -> String {
        format!("test/{}", self.name)
    }
    async fn step(&self, messages: &[Message], _: &[ToolSpec]) -> Result<ModelTurn, Error> {
        Ok(match messages.last() {
            Some(Message::Tool { content, .. }) => {
                let text = content.as_str().map(str::to_owned).unwrap_or_else(|| content.to_string());
                ModelTurn { text: format!("{}: {text}", self.name), tool_calls: vec![] }
            }
            Some(Message::User { content }) => ModelTurn {
                text: String::new(),
                tool_calls: vec![ProposedCall {
                    tool_call_id: "call_1".into(),
                    tool_name: format!("agent-{}", self.to),
                    args: json!({"prompt": content}),
                }],
            },
            _ => ModelTurn::default(),
        })
    }
}

/// boss → worker → clerk, where the clerk is the counting demo agent (delete_record needs approval).
fn chain(counters: &Counters) -> Vec<Agent> {
    let mut clerk = counting_demo(counters);
    clerk.id = AgentId::new("clerk");
    let supervisor = |id: &'static str, to: &'static str| Agent {
        id: AgentId::new(id),
        name: id.into(),
        instructions: format!("You delegate to {to}."),
        model: Arc::new(Delegating { name: id, to }),
        tools: vec![Arc::new(SubAgent::new(AgentId::new(to), format!("the {to}"))) as Arc<dyn Tool>],
        approval_rules: None,
        memory: false,
    };
    vec![supervisor("boss", "worker"), supervisor("worker", "clerk"), clerk]
}

async fn paused_at_depth(t: &TestApp, text: &str) -> (serde_json::Value, serde_json::Value) {
    let answer = t.generate_with_agent("boss", json!({"messages": text})).await;
    assert_eq!(answer["finishReason"], "suspended", "{answer}");
    let pending = t.pending().await;
    assert_eq!(pending.len(), 1, "the pause is queued once: {pending:?}");
    (answer, pending[0].clone())
}

#[tokio::test]
async fn s13_a_pause_three_levels_down_surfaces_once_on_the_top_run_and_approval_finishes_the_chain() {
    let t = TestApp::builder().agents(chain).spawn().await;
    let (answer, item) = paused_at_depth(&t, "delete rec-1").await;
    let payload = &answer["suspendPayload"];
    assert_eq!(payload["toolName"], "delete_record", "the inner tool: {answer}");
    assert_eq!(payload["args"], json!({"id": "rec-1"}));
    assert_eq!(payload["toolCallId"], "call_1", "the top call's id");
    assert_eq!(item["runId"], answer["runId"]);
    assert_eq!(item["agentId"], "boss");
    assert_eq!(item["toolName"], "delete_record");
    let chain: Vec<(&str, &str)> =
        item["chain"].as_array().unwrap().iter().map(|l| (l["agentId"].as_str().unwrap(), l["toolName"].as_str().unwrap())).collect();
    assert_eq!(chain, [("boss", "agent-worker"), ("worker", "agent-clerk"), ("clerk", "delete_record")]);
    assert_eq!(item["fingerprint"], json!(approval_console::domain::Fingerprint::of("delete_record", &json!({"id": "rec-1"})).unwrap()));
    let (_, boss_runs) = t.get("/api/agents/boss/suspended-runs").await;
    assert_eq!(boss_runs["runs"][0]["toolCalls"][0]["toolName"], "delete_record");
    for sub in ["worker", "clerk"] {
        let (_, runs) = t.get(&format!("/api/agents/{sub}/suspended-runs")).await;
        assert_eq!(runs["total"], 0, "{sub}: shown once, on the top run");
    }
    assert_eq!(t.counters.deletes(), 0);

    let (status, done) =
        t.post("/api/agents/boss/approve-tool-call-generate", json!({"runId": answer["runId"], "toolCallId": "call_1"})).await;
    assert_eq!(status, StatusCode::OK, "{done}");
    assert_eq!(done["finishReason"], "stop", "{done}");
    let text = done["text"].as_str().unwrap();
    assert!(text.starts_with("boss: worker: Done. delete_record:") && text.contains("rec-1"), "{text}");
    assert_eq!(t.counters.deletes(), 1);
    assert_eq!(t.count("SELECT COUNT(*) FROM snapshots").await, 0, "every run of the chain ended");
}

#[tokio::test]
async fn s13_a_decline_travels_down_and_the_reason_comes_back_up() {
    let t = TestApp::builder().agents(chain).spawn().await;
    let (_, item) = paused_at_depth(&t, "delete rec-2").await;
    let (status, after) = t.decline(&item, "not that one").await;
    assert_eq!(status, StatusCode::OK, "{after}");
    assert_eq!(after["decision"]["outcome"]["status"], "declined");
    assert_eq!(t.counters.deletes(), 0);
    assert_eq!(t.count("SELECT COUNT(*) FROM snapshots").await, 0);
    let (_, audit) = t.get("/api/audit?limit=100").await;
    assert!(audit["entries"].as_array().unwrap().iter().any(|e| e["action"] == "delivery.delivered"));
}

#[tokio::test]
async fn s13_a_suspended_tool_deep_in_the_chain_is_resumed_from_the_top() {
    let t = TestApp::builder().agents(chain).spawn().await;
    let (answer, item) = paused_at_depth(&t, "ask which region?").await;
    assert_eq!(item["kind"], "suspend");
    assert_eq!(item["suspendPayload"], json!({"question": "which region?"}));
    let chunks = t
        .sse(
            "/api/agents/boss/resume-stream",
            json!({"runId": answer["runId"], "toolCallId": "call_1", "resumeData": {"answer": "eu-west"}}),
        )
        .await;
    let text = finish_text(&chunks).expect("the top run finished");
    assert!(text.starts_with("boss: worker: ") && text.contains("eu-west"), "{text}");
}

#[tokio::test]
async fn s13_s07_arguments_changed_deep_in_the_chain_are_refused() {
    let t = TestApp::builder().agents(chain).spawn().await;
    let (answer, item) = paused_at_depth(&t, "delete rec-3").await;
    let leaf_run = format!("{}/call_1/call_1", answer["runId"].as_str().unwrap());
    let (_, mut body) =
        approval_console::store::testing::snapshot(t.app.testing().db(), &leaf_run).await.unwrap().expect("a stored snapshot");
    body["calls"][0]["args"]["id"] = json!("rec-EVIL");
    approval_console::store::testing::set_snapshot_body(t.app.testing().db(), &leaf_run, &body).await.unwrap();
    let (status, refused) = t.approve(&item).await;
    assert_eq!((status, refused["code"].as_str()), (StatusCode::CONFLICT, Some("fingerprint_mismatch")), "{refused}");
    assert_eq!(t.counters.deletes(), 0);
}

#[tokio::test]
async fn s13_a_nested_pause_survives_a_restart() {
    let t = TestApp::builder().agents(chain).spawn().await;
    let (answer, _) = paused_at_depth(&t, "delete rec-4").await;
    let (dir, tmp, counters) = t.stop().await;
    let t = TestApp::builder().dir(&dir).counters(counters).agents(chain).spawn().await;
    let item = t.pending().await.remove(0);
    assert_eq!(item["runId"], answer["runId"]);
    let (status, after) = t.approve(&item).await;
    assert_eq!(status, StatusCode::OK, "{after}");
    assert_eq!(after["decision"]["outcome"]["result"], json!({"deleted": "rec-4"}));
    assert_eq!(t.counters.deletes(), 1);
    assert_eq!(t.count("SELECT COUNT(*) FROM snapshots").await, 0);
    drop(tmp);
}
