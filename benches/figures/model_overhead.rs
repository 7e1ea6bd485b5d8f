//! Prints figures, asserts nothing. `cargo bench --bench figures -- model_overhead` (env: BENCH_CYCLES, default 300).
//!
//! Approval cycles through the local engine in-process (no HTTP API in front): start a run → the model
//! proposes `delete_record` → pause (snapshot + queue entry + audit, fsync-durable) → approve through
//! `App::decide_shown` (the console's decide-and-deliver) → the tool runs → the model answers → the run ends. Run with the
//! scripted demo model, then with `OpenAiCompatible` against the scripted OpenAI-compatible fake on
//! 127.0.0.1 (JSON answers, then SSE streams), so the difference is what the HTTP model path costs
//! per cycle (two model steps). Also: bare model steps per second against the fake, no engine.

use crate::fake_server::{approval_cycle, FakeOpenAi};
use approval_console::app::query::QueueQuery;
use approval_console::app::App;
use approval_console::domain::{AgentId, ItemState, Verdict};
use approval_console::engine::local::agent::{Agent, Message, Model};
use approval_console::engine::local::demo::{self, DeleteRecord, LookupRecord};
use approval_console::engine::local::model::{ApiKey, OpenAiCompatible, OpenAiConfig};
use approval_console::engine::local::{RunOptions, RunRequest};
use std::sync::Arc;
use std::time::{Duration, Instant};

const WARM_UP: usize = 10;

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn openai_model(fake: &FakeOpenAi, stream: bool) -> OpenAiCompatible {
    let mut config = OpenAiConfig::new(&fake.base_url, "fake-model");
    config.stream = stream;
    OpenAiCompatible::new(config, Some(ApiKey::new("sk-bench"))).unwrap()
}

fn agent_on(model: Arc<dyn Model>) -> Agent {
    Agent {
        id: AgentId::new("demo"),
        name: "bench".into(),
        instructions: "Say `delete <id>`.".into(),
        model,
        tools: vec![Arc::new(DeleteRecord), Arc::new(LookupRecord)],
        approval_rules: None,
        memory: false,
    }
}

async fn one_cycle(app: &App, i: usize) {
    let bench = app.local_admin::<approval_console::domain::grade::Local>("bench");
    let request = RunRequest {
        agent_id: AgentId::new("demo"),
        messages: vec![Message::User { content: format!("delete cycle-{i}") }],
        thread_id: None,
        resource_id: None,
        options: RunOptions::default(),
        run_id: Default::default(),
        started_by: None,
    };
    let run_id = app.send(request, false, None, &bench.narrow()).await.unwrap();
    let query = QueueQuery { run: Some(run_id.to_string()), ..Default::default() };
    let pending = app.queue_page(&query, &bench.narrow()).await.unwrap().items;
    assert_eq!(pending.len(), 1);
    app.decide_shown(&pending[0].id, Verdict::Approve, pending[0].fingerprint.as_str(), &bench.narrow()).await.unwrap();
    // Answered once committed (issue 46): the cycle ends when the delivery and the run are over.
    assert!(app.finish_deliveries(Duration::from_secs(60)).await);
    let after = app.queue_item(&pending[0].id, &bench.narrow()).await.unwrap();
    assert_eq!(after.state, ItemState::Delivered);
}

/// Cycles per second and time per cycle, after a warm-up.
async fn cycles(agent: Agent, n: usize) -> (f64, Duration) {
    let tmp = tempfile::tempdir().unwrap();
    let app = App::open(tmp.path(), vec![agent]).await.unwrap();
    for i in 0..WARM_UP {
        one_cycle(&app, i).await;
    }
    let started = Instant::now();
    for i in 0..n {
        one_cycle(&app, WARM_UP + i).await;
    }
    let took = started.elapsed();
    let left = approval_console::store::testing::count(app.testing().db(), "SELECT COUNT(*) FROM snapshots").await.unwrap();
    assert_eq!(left, 0, "every run finished");
    app.testing().close().await;
    (n as f64 / took.as_secs_f64(), took / n as u32)
}

/// Bare model steps per second (one tool-call step + one text step per round), no engine.
async fn steps(model: &OpenAiCompatible, rounds: usize) -> (f64, Duration) {
    let tools = agent_on(Arc::new(demo::DemoModel)).tool_specs();
    let first = vec![Message::User { content: "delete r1".into() }];
    let turn = model.step(&first, &tools).await.unwrap();
    let mut second = first.clone();
    second.push(Message::Assistant { content: String::new(), tool_calls: turn.tool_calls.clone() });
    second.push(Message::Tool {
        tool_call_id: turn.tool_calls[0].tool_call_id.clone(),
        tool_name: "delete_record".into(),
        content: serde_json::json!({"deleted": "r1"}),
    });
    let started = Instant::now();
    for _ in 0..rounds {
        assert_eq!(model.step(&first, &tools).await.unwrap().tool_calls.len(), 1);
        assert!(!model.step(&second, &tools).await.unwrap().text.is_empty());
    }
    let took = started.elapsed();
    let n = rounds * 2;
    (n as f64 / took.as_secs_f64(), took / n as u32)
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

pub async fn run() {
    let n = env_usize("BENCH_CYCLES", 300).max(1);
    println!("model overhead — {n} approval cycles per mode (after {WARM_UP} warm-up), local engine in-process, fsync-durable SQLite");

    let (rate, per) = cycles(agent_on(Arc::new(demo::DemoModel)), n).await;
    println!("  demo model (in-process)           {rate:8.1} cycles/s   {:7.2} ms/cycle", ms(per));
    let baseline = per;

    for (label, stream) in [("openai-compatible, JSON", false), ("openai-compatible, SSE stream", true)] {
        let fake = FakeOpenAi::answering(approval_cycle(stream)).await;
        let (rate, per) = cycles(agent_on(Arc::new(openai_model(&fake, stream))), n).await;
        let extra = ms(per) - ms(baseline);
        println!("  {label:<33} {rate:8.1} cycles/s   {:7.2} ms/cycle   ({extra:+.2} ms/cycle over demo, 2 model steps)", ms(per));
        assert_eq!(fake.request_count(), 2 * (n + WARM_UP), "two model requests per cycle, no retries");
    }

    for (label, stream) in [("JSON", false), ("SSE stream", true)] {
        let fake = FakeOpenAi::answering(approval_cycle(stream)).await;
        let (rate, per) = steps(&openai_model(&fake, stream), n).await;
        println!("  model steps alone, {label:<14}  {rate:8.1} steps/s    {:7.3} ms/step (HTTP round trip + parse, no engine)", ms(per));
    }
}
