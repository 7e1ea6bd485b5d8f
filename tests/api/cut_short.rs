//! Issue 15: a plain tool (no approval) of a step being advanced when the process died is not run
//! twice. A stored run writes the plain calls it is about to run to its snapshot first (`started`);
//! the next start finds them so, does not run them again, tells the model, and audits it.

use crate::helpers::*;
use approval_console::domain::{AgentId, Error};
use approval_console::engine::local::agent::{Agent, Message, Model, ModelTurn, ProposedCall, Tool, ToolOutput, ToolSpec};
use async_trait::async_trait;
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, LazyLock};
use tokio::sync::Semaphore;

/// First `wipe` (needs approval); once it ran, `notify` (a plain tool); then a text naming the results.
struct TwoSteps;

#[async_trait]
impl Model for TwoSteps {
    fn id(&self) -> String {
        "test/two-steps".into()
    }
    async fn step(&self, messages: &[Message], _: &[ToolSpec]) -> Result<ModelTurn, Error> {
        let results: Vec<String> = messages
            .iter()
            .filter_map(|m| match m {
                Message::Tool { tool_name, content, .. } => Some(format!("{tool_name}={content}")),
                _ => None,
            })
            .collect();
        let call = |name: &str| ProposedCall { tool_call_id: format!("call_{name}"), tool_name: name.into(), args: json!({}) };
        Ok(match results.len() {
            0 => ModelTurn { text: String::new(), tool_calls: vec![call("wipe")] },
            1 => ModelTurn { text: String::new(), tool_calls: vec![call("notify")] },
            _ => ModelTurn { text: format!("done: {}", results.join("; ")), tool_calls: vec![] },
        })
    }
}

struct Wipe;

#[async_trait]
impl Tool for Wipe {
    fn name(&self) -> &str {
        "wipe"
    }
    fn description(&self) -> &str {
        "wipes"
    }
    fn input_schema(&self) -> Value {
        json!({ "type": "object" })
    }
    fn require_approval(&self) -> bool {
        true
    }
    async fn execute(&self, _: &Value, _: Option<&Value>) -> Result<ToolOutput, String> {
        Ok(ToolOutput::Done(json!("wiped")))
    }
}

/// Counts its runs and waits for a permit before it returns, so a test can look at the snapshot
/// while it runs.
struct Notify;

static NOTIFIED: AtomicUsize = AtomicUsize::new(0);
static RELEASE: LazyLock<Semaphore> = LazyLock::new(|| Semaphore::new(0));

#[async_trait]
impl Tool for Notify {
    fn name(&self) -> &str {
        "notify"
    }
    fn description(&self) -> &str {
        "sends a message (a side effect)"
    }
    fn input_schema(&self) -> Value {
        json!({ "type": "object" })
    }
    async fn execute(&self, _: &Value, _: Option<&Value>) -> Result<ToolOutput, String> {
        NOTIFIED.fetch_add(1, Ordering::SeqCst);
        RELEASE.acquire().await.expect("open").forget();
        Ok(ToolOutput::Done(json!("sent")))
    }
}

fn steps(_: &Counters) -> Vec<Agent> {
    vec![Agent {
        id: AgentId::new("steps"),
        name: "steps".into(),
        instructions: String::new(),
        model: Arc::new(TwoSteps),
        tools: vec![Arc::new(Wipe), Arc::new(Notify)],
        approval_rules: None,
        memory: true,
    }]
}

async fn snapshot(t: &TestApp, run: &str) -> Option<(String, Value)> {
    approval_console::store::testing::snapshot(t.app.testing().db(), run).await.unwrap()
}

#[tokio::test]
async fn c05_a_plain_tool_cut_short_by_a_stop_is_written_first_and_never_run_again() {
    let t = TestApp::builder().agents(steps).spawn().await;
    let body = json!({ "messages": "go", "runId": "run-cut", "threadId": "th-cut", "resourceId": "user-1" });
    let answer = t.generate_with_agent("steps", body).await;
    assert_eq!(answer["finishReason"], "suspended", "{answer}");
    let wipe = t.pending_call("run-cut", "call_wipe").await;
    // The run's engine, as its call shows it: `local`, or `local@<instance>` on PostgreSQL.
    let engine = wipe["engine"].as_str().unwrap().to_owned();

    // Approve: `wipe` runs, the run goes on, and `notify` starts and waits.
    let base = t.base.clone();
    let http = t.http.clone();
    let approving = tokio::spawn(async move {
        http.post(format!("{base}/api/queue/{}/approve", wipe["id"].as_str().unwrap()))
            .bearer_auth(TOKEN)
            .json(&json!({ "fingerprint": wipe["fingerprint"] }))
            .send()
            .await
            .unwrap()
            .status()
    });
    wait::eventually(std::time::Duration::from_secs(10), "notify started", || async { NOTIFIED.load(Ordering::SeqCst) > 0 }).await;
    // While it runs, the snapshot already says it started: what a kill -9 now would leave on disk.
    let (state, at_crash) = snapshot(&t, "run-cut").await.expect("the run is stored");
    assert_eq!(state, "running");
    let notify = at_crash["calls"].as_array().unwrap().iter().find(|c| c["toolName"] == "notify").expect("the step is written");
    assert_eq!(notify["status"], "started", "{at_crash}");
    RELEASE.add_permits(1);
    assert_eq!(approving.await.unwrap(), StatusCode::OK);
    t.settle().await;
    assert!(snapshot(&t, "run-cut").await.is_none(), "the run finished");
    assert_eq!(NOTIFIED.load(Ordering::SeqCst), 1);

    // The same run as the crash left it: its snapshot, running, with `notify` started.
    let (dir, tmp, counters) = t.stop().await;
    {
        let db = approval_console::store::Db::open_at(&dir, test_database(&dir).await).await.unwrap();
        approval_console::store::testing::restore_snapshot(&db, "run-cut", "steps", "th-cut", "running", &at_crash, engine.as_str())
            .await
            .unwrap();
    }
    let mut t = TestApp::builder().dir(&dir).counters(counters).agents(steps).spawn().await;
    t.keep(tmp);
    // The next start continued the run (in a task of its own) without running `notify` again, and
    // told the model so.
    t.settle().await;
    assert_eq!(NOTIFIED.load(Ordering::SeqCst), 1, "never run twice");
    assert!(snapshot(&t, "run-cut").await.is_none(), "the recovered run finished");
    let messages = approval_console::store::testing::thread(t.app.testing().db(), "th-cut", 20).await.unwrap();
    let told = messages.iter().find(|m| m["toolName"] == "notify").unwrap_or_else(|| panic!("{messages:?}"));
    assert!(
        told["content"].as_str().unwrap().contains("cut short") && told["content"].as_str().unwrap().contains("not run again"),
        "{told}"
    );
    let (_, audit) = t.get("/api/audit?limit=50").await;
    let entry = audit["entries"].as_array().unwrap().iter().find(|e| e["action"] == "tool.interrupted").expect("audited");
    assert_eq!((entry["toolName"].as_str(), entry["details"]["runId"].as_str()), (Some("notify"), Some("run-cut")));
}
