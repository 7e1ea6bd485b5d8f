//! Nothing is approved that the operator did not see (issue 12): arguments a fingerprint cannot bind,
//! a call without arguments, malformed fingerprints on every deciding route, and the paths of
//! `decide` where the call changed or was lost at the engine — each refused with its own code.

use crate::helpers::*;
use approval_console::domain::{AgentId, Error, Fingerprint, ItemState, PausedCall};
use approval_console::engine::local::agent::{Agent, Message, Model, ModelTurn, ProposedCall, Tool, ToolOutput, ToolSpec};
use async_trait::async_trait;
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};

/// `transfer <json>`: one `transfer` call with those arguments (`null` too); then a text.
struct TransferModel;

#[async_trait]
impl Model for TransferModel {
    fn id(&self) -> String {
        "test/transfer".into()
    }
    async fn step(&self, messages: &[Message], _: &[ToolSpec]) -> Result<ModelTurn, Error> {
        match messages.last() {
            Some(Message::Tool { content, .. }) => Ok(ModelTurn { text: format!("done: {content}"), tool_calls: vec![] }),
            Some(Message::User { content }) => {
                let args: Value =
                    serde_json::from_str(content.trim_start_matches("transfer ")).map_err(|e| Error::Engine(e.to_string()))?;
                Ok(ModelTurn {
                    text: String::new(),
                    tool_calls: vec![ProposedCall { tool_call_id: "call_1".into(), tool_name: "transfer".into(), args }],
                })
            }
            _ => Ok(ModelTurn::default()),
        }
    }
}

/// Needs approval; remembers the arguments it ran with.
struct Transfer(Arc<Mutex<Vec<Value>>>);

#[async_trait]
impl Tool for Transfer {
    fn name(&self) -> &str {
        "transfer"
    }
    fn description(&self) -> &str {
        "moves money"
    }
    fn input_schema(&self) -> Value {
        json!({ "type": ["object", "null"] })
    }
    fn require_approval(&self) -> bool {
        true
    }
    async fn execute(&self, args: &Value, _: Option<&Value>) -> Result<ToolOutput, String> {
        self.0.lock().unwrap().push(args.clone());
        Ok(ToolOutput::Done(json!("moved")))
    }
}

static RAN: std::sync::LazyLock<Arc<Mutex<Vec<Value>>>> = std::sync::LazyLock::new(Arc::default);

fn bank(_: &Counters) -> Vec<Agent> {
    vec![Agent {
        id: AgentId::new("bank"),
        name: "bank".into(),
        instructions: String::new(),
        model: Arc::new(TransferModel),
        tools: vec![Arc::new(Transfer(RAN.clone()))],
        approval_rules: None,
        memory: false,
    }]
}

async fn transfer(t: &TestApp, args: &str, run: &str) -> Value {
    let answer = t.generate_with_agent("bank", json!({ "messages": format!("transfer {args}"), "runId": run })).await;
    assert_eq!(answer["finishReason"], "suspended", "{answer}");
    t.pending_call(run, "call_1").await
}

fn ran_with(run_marker: &str) -> Vec<Value> {
    RAN.lock().unwrap().iter().filter(|a| a.to_string().contains(run_marker)).cloned().collect()
}

#[tokio::test]
async fn ambiguous_arguments_cannot_be_approved_as_they_are() {
    let t = TestApp::builder().agents(bank).spawn().await;
    let item = transfer(&t, r#"{"amount": 9007199254740993, "to": "amb-1"}"#, "amb-1").await;
    assert_eq!(item["allowed"], json!(["decline", "edit"]), "{item}");
    assert_eq!(item["approveBlocked"]["code"], "ambiguous_arguments");
    assert_eq!(item["approveBlocked"]["details"]["paths"], json!(["/amount"]));
    let id = item["id"].as_str().unwrap();
    let (status, body) = t.approve(&item).await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::UNPROCESSABLE_ENTITY, Some("ambiguous_arguments")), "{body}");
    let (status, body) = t.post("/api/agents/bank/approve-tool-call-generate", json!({ "runId": "amb-1", "toolCallId": "call_1" })).await;
    assert_eq!(
        (status, body["code"].as_str()),
        (StatusCode::UNPROCESSABLE_ENTITY, Some("ambiguous_arguments")),
        "the Mastra-shaped route too: {body}"
    );
    // Edited arguments must be exact too; exact ones run.
    let edit = |amount: Value| json!({ "fingerprint": item["fingerprint"], "args": { "amount": amount, "to": "amb-1" } });
    let (status, body) = t.post(&format!("/api/queue/{id}/approve-edited"), edit(json!(9007199254740995u64))).await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::UNPROCESSABLE_ENTITY, Some("ambiguous_arguments")), "{body}");
    assert!(ran_with("amb-1").is_empty(), "nothing ran");
    let (status, body) = t.post(&format!("/api/queue/{id}/approve-edited"), edit(json!(9007199254740992u64))).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    t.settle().await;
    assert_eq!(ran_with("amb-1"), vec![json!({ "amount": 9007199254740992u64, "to": "amb-1" })]);

    let other = transfer(&t, r#"{"amount": 18446744073709551615, "to": "amb-2"}"#, "amb-2").await;
    let (status, _) = t.decline(&other, "no").await;
    assert_eq!(status, StatusCode::OK, "declining stays possible");
}

#[tokio::test]
async fn a_call_without_arguments_can_only_be_declined() {
    let t = TestApp::builder().agents(bank).spawn().await;
    let item = transfer(&t, "null", "noargs").await;
    assert_eq!(item["args"], Value::Null);
    assert_eq!(item["allowed"], json!(["decline"]), "{item}");
    assert_eq!(item["approveBlocked"]["code"], "missing_arguments");
    let (status, body) = t.approve(&item).await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::CONFLICT, Some("missing_arguments")), "{body}");
    let (status, body) = t
        .post(
            &format!("/api/queue/{}/approve-edited", item["id"].as_str().unwrap()),
            json!({ "fingerprint": item["fingerprint"], "args": { "to": "noargs" } }),
        )
        .await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::CONFLICT, Some("missing_arguments")), "{body}");
    assert_eq!(t.item(item["id"].as_str().unwrap()).await["state"], "pending");
    let (status, body) = t.decline(&item, "what would it do?").await;
    assert_eq!(status, StatusCode::OK, "{body}");
}

#[tokio::test]
async fn malformed_fingerprints_are_refused_on_every_deciding_route_and_on_grants() {
    let t = spawn_app().await;
    t.generate("delete rec-1").await;
    t.generate("ask which table?").await;
    let items = t.pending().await;
    let approval = items.iter().find(|i| i["kind"] == "approval").unwrap();
    let asked = items.iter().find(|i| i["kind"] == "suspend").unwrap();
    let good = approval["fingerprint"].as_str().unwrap();
    let bad = [
        format!("sha256:{}", "g".repeat(64)),
        format!("sha256:{}", good[7..].to_uppercase()),
        good[..good.len() - 1].to_owned(),
        format!("{good}0"),
        good[7..].to_owned(),
        format!("sha512:{}", &good[7..]),
        String::new(),
    ];
    for fp in &bad {
        let (a, s) = (approval["id"].as_str().unwrap(), asked["id"].as_str().unwrap());
        for (path, body) in [
            (format!("/api/queue/{a}/approve"), json!({ "fingerprint": fp })),
            (format!("/api/queue/{a}/decline"), json!({ "fingerprint": fp, "reason": "x" })),
            (format!("/api/queue/{a}/approve-edited"), json!({ "fingerprint": fp, "args": { "id": "rec-2" } })),
            (format!("/api/queue/{s}/resume"), json!({ "fingerprint": fp, "data": { "answer": "t" } })),
            ("/api/grants".into(), json!({ "fromItem": a, "fingerprint": fp, "scope": "agent", "expiresInSecs": 3600 })),
            ("/api/grants/preview".into(), json!({ "fromItem": a, "fingerprint": fp, "scope": "agent", "expiresInSecs": 3600 })),
        ] {
            let (status, answer) = t.post(&path, body).await;
            assert_eq!(
                (status, answer["code"].as_str()),
                (StatusCode::BAD_REQUEST, Some("invalid_request")),
                "{path} with {fp:?}: {answer}"
            );
        }
    }
    assert_eq!(
        t.count("SELECT COUNT(*) FROM decisions").await + t.count("SELECT COUNT(*) FROM grants").await,
        0,
        "nothing decided or granted"
    );
    assert_eq!(t.counters.deletes(), 0);
}

#[tokio::test]
async fn a_decision_on_an_entry_replaced_because_its_arguments_changed_names_the_new_fingerprint() {
    let t = spawn_app().await;
    t.generate("delete rec-1").await;
    let old = t.pending().await.remove(0);
    // The engine's call changed under it: the entry is replaced by one with the new arguments, as a
    // remote engine's sync does (old entry `gone`, a new pending one for the same call).
    let entry = t.app.testing().entry(&approval_console::domain::ItemId::new(old["id"].as_str().unwrap())).await.unwrap();
    let mut changed: PausedCall = entry.queued.call.clone();
    changed.args = json!({ "id": "rec-999" });
    changed.fingerprint = Fingerprint::of(&changed.tool_name, &changed.args).unwrap();
    approval_console::store::testing::replace_call(t.app.testing().db(), &entry.queued.id, &changed).await.unwrap();
    let (status, body) = t.approve(&old).await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::CONFLICT, Some("fingerprint_mismatch")), "{body}");
    assert_eq!(body["details"], json!({ "expected": old["fingerprint"], "actual": changed.fingerprint }), "both are shown");
    // Once nothing waits in its place, a gone entry is simply no longer pending.
    approval_console::store::testing::set_states(t.app.testing().db(), ItemState::Pending, ItemState::Gone).await.unwrap();
    let (status, body) = t.approve(&old).await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::CONFLICT, Some("already_decided")), "{body}");
    assert_eq!(t.counters.deletes(), 0);
}

#[tokio::test]
async fn a_call_the_engine_lost_is_not_found_and_stays_pending() {
    let t = spawn_app().await;
    let answer = t.generate("delete rec-1").await;
    let item = t.pending().await.remove(0);
    // The run's snapshot no longer holds the call as paused (another process advanced it).
    let (db, run) = (t.app.testing().db(), answer["runId"].as_str().unwrap());
    let (_, mut body) = approval_console::store::testing::snapshot(db, run).await.unwrap().expect("the run is stored");
    body["calls"][0]["status"] = json!("done");
    body["calls"][0]["result"] = json!("x");
    approval_console::store::testing::set_snapshot_body(db, run, &body).await.unwrap();
    let (status, body) = t.approve(&item).await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::NOT_FOUND, Some("not_found")), "{body}");
    assert!(body["message"].as_str().unwrap().contains("no longer paused"), "{body}");
    assert_eq!(t.item(item["id"].as_str().unwrap()).await["state"], "pending", "nothing was decided");
    assert_eq!(t.counters.deletes(), 0);
}
