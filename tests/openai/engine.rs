//! End to end: an agent on the OpenAI-compatible model runs in the local engine, pauses before
//! `delete_record`, is approved through the console, and finishes once the model has the result.

use crate::fake_server::{approval_cycle, FakeOpenAi, Reply};
use crate::{model, KEY};
use approval_console::app::query::{QueueQuery, SortOrder};
use approval_console::app::queue::QueueItem;
use approval_console::app::App;
use approval_console::domain::{AgentId, CallKind, ItemState, RunId, Verdict};
use approval_console::engine::local::agent::{Agent, Message};
use approval_console::engine::local::demo::{DeleteRecord, LookupRecord};
use approval_console::engine::local::model::OpenAiCompatible;
use approval_console::engine::local::{RunOptions, RunRequest};
use serde_json::json;
use std::sync::Arc;

fn agent(model: OpenAiCompatible) -> Agent {
    Agent {
        id: AgentId::new("assistant"),
        name: "Assistant on an OpenAI-compatible model".into(),
        instructions: "You manage records. Deleting needs the operator's approval.".into(),
        model: Arc::new(model),
        tools: vec![Arc::new(DeleteRecord), Arc::new(LookupRecord)],
        approval_rules: None,
        memory: false,
    }
}

fn request(text: &str) -> RunRequest {
    RunRequest {
        agent_id: AgentId::new("assistant"),
        messages: vec![Message::User { content: text.into() }],
        thread_id: Some("thread-1".into()),
        resource_id: None,
        options: RunOptions::default(),
        run_id: Default::default(),
        started_by: None,
    }
}

async fn snapshots(app: &App) -> i64 {
    approval_console::store::testing::count(app.testing().db(), "SELECT COUNT(*) FROM snapshots").await.unwrap()
}

/// The calls of a run waiting for a decision, the first paused first.
async fn waiting(app: &App, run_id: &RunId) -> Vec<QueueItem> {
    let query = QueueQuery { run: Some(run_id.to_string()), sort: Some(SortOrder::Oldest), ..Default::default() };
    app.queue_page(&query, &app.local_admin("test")).await.unwrap().items
}

#[tokio::test]
async fn a_run_on_the_openai_model_pauses_for_approval_and_finishes_after_it() {
    for stream in [false, true] {
        let fake = FakeOpenAi::answering(approval_cycle(stream)).await;
        let tmp = tempfile::tempdir().unwrap();
        let app = App::open(tmp.path(), vec![agent(model(&fake, stream))]).await.unwrap();

        let admin = app.local_admin::<approval_console::domain::grade::Local>("test");
        let run_id = app.send(request("delete rec-7"), false, None, &admin.narrow()).await.unwrap();
        let pending = waiting(&app, &run_id).await;
        assert_eq!(pending.len(), 1, "the delete waits for approval");
        let entry = app.queue_item(&pending[0].id, &admin.narrow()).await.unwrap();
        assert_eq!(entry.kind, CallKind::Approval);
        assert_eq!(entry.tool_name, "delete_record");
        assert_eq!(entry.tool_call_id.as_str(), "call_0");
        assert_eq!(entry.args, json!({"id": "rec-7"}));
        assert_eq!(snapshots(&app).await, 1);
        let first = fake.requests();
        assert_eq!(first.len(), 1);
        let tools: Vec<&str> = first[0].body["tools"].as_array().unwrap().iter().map(|t| t["function"]["name"].as_str().unwrap()).collect();
        assert_eq!(tools, ["delete_record", "lookup_record"]);

        app.decide_shown(&pending[0].id, Verdict::Approve, entry.fingerprint.as_str(), &admin.narrow()).await.unwrap();
        assert!(app.finish_deliveries(std::time::Duration::from_secs(120)).await);
        let decided = app.queue_item(&pending[0].id, &admin.narrow()).await.unwrap();
        assert_eq!(decided.state, ItemState::Delivered);
        assert_eq!(decided.decision.unwrap().outcome.unwrap()["result"], json!({"deleted": "rec-7"}));

        let log = fake.requests();
        assert_eq!(log.len(), 2, "the model is asked once more, with the result");
        assert_eq!(log[1].authorization.as_deref(), Some(format!("Bearer {KEY}").as_str()));
        let messages = log[1].body["messages"].as_array().unwrap();
        assert_eq!(messages.len(), 4, "{messages:?}");
        assert_eq!(messages[0]["role"], "system");
        assert_eq!(messages[1], json!({"role": "user", "content": "delete rec-7"}));
        assert_eq!(
            messages[2],
            json!({"role": "assistant", "content": null, "tool_calls": [
                {"id": "call_0", "type": "function", "function": {"name": "delete_record", "arguments": "{\"id\":\"rec-7\"}"}}
            ]})
        );
        assert_eq!(messages[3], json!({"role": "tool", "tool_call_id": "call_0", "content": "{\"deleted\":\"rec-7\"}"}));
        assert_eq!(snapshots(&app).await, 0, "the run finished (stream: {stream})");
        assert!(waiting(&app, &run_id).await.is_empty());
        app.testing().close().await;
    }
}

#[tokio::test]
async fn a_provider_failure_at_the_start_of_a_run_is_the_runs_error_and_leaves_nothing_behind() {
    let fake = FakeOpenAi::scripted(vec![Reply::error(401, "Incorrect API key provided", Some("invalid_api_key"))]).await;
    let tmp = tempfile::tempdir().unwrap();
    let app = App::open(tmp.path(), vec![agent(model(&fake, true))]).await.unwrap();
    let e = app.send(request("delete rec-7"), false, None, &app.local_admin("test")).await.unwrap_err();
    assert_eq!(e.code(), "engine_error");
    assert!(e.to_string().contains("refused the API key (HTTP 401)"), "{e}");
    assert_eq!(snapshots(&app).await, 0);
    assert_eq!(fake.request_count(), 1);
}

/// Exact fingerprints: a tool call whose arguments hold a number the fingerprint cannot bind (2^60 + 1
/// reads as 2^60 to it) fails the run as broken JSON does, naming the tool and the pointer; nothing
/// is queued for an operator to approve in its neighbour's place.
#[tokio::test]
async fn a_tool_call_with_a_number_its_fingerprint_cannot_bind_fails_the_run_and_queues_nothing() {
    for (stream, args) in
        [(false, r#"{"id": "rec-7", "version": 1152921504606846977}"#), (true, r#"{"id": "rec-7", "ratio": 0.10000000000000001}"#)]
    {
        let reply = if stream {
            Reply::sse(crate::fake_server::tool_call_stream("call_0", "delete_record", args, 3))
        } else {
            Reply::Json(crate::fake_server::tool_call_completion(&[("call_0", "delete_record", args)]))
        };
        let fake = FakeOpenAi::scripted(vec![reply]).await;
        let tmp = tempfile::tempdir().unwrap();
        let app = App::open(tmp.path(), vec![agent(model(&fake, stream))]).await.unwrap();
        let e = app.send(request("delete rec-7"), false, None, &app.local_admin("test")).await.unwrap_err();
        let text = crate::error_text(&e);
        let pointer = if stream { "/ratio" } else { "/version" };
        assert!(text.contains("tool delete_record") && text.contains(pointer) && text.contains("exactly"), "{text}");
        let all = QueueQuery::default();
        assert!(app.queue_page(&all, &app.local_admin("test")).await.unwrap().items.is_empty(), "nothing queued (stream: {stream})");
        assert_eq!(snapshots(&app).await, 0);
        app.testing().close().await;
    }
}
