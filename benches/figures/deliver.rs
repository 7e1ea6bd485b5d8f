//! Prints figures, asserts nothing. `cargo bench --bench figures -- deliver` (env: BENCH_CYCLES, default 100;
//! BENCH_TURN_MS, default 2000).
//!
//! Issue 46: deciding does not wait for the agent. A real `serve` runs an agent on the scripted
//! OpenAI-compatible server of tests/openai, whose every turn after a tool's result takes
//! BENCH_TURN_MS. Each cycle starts a run (its first turn proposes `delete_record` at once), then
//! approves the paused call through the console API while the event stream is read, and measures:
//! - the approve's answer time (it answers once the decision is committed, with its receipt);
//! - from the approve to the `updated` event after which the entry reads `delivered` with the tool's
//!   result: the tool's outcome on the event stream, to compare with the model's turn.
//!
//! The cycles follow one another without waiting for the runs' model turns, which go on behind.

use crate::fake_server::{approval_cycle_held, FakeOpenAi};
use crate::serve_process::{get_json, post_json, ServeProcess};
use futures::StreamExt;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

const TOKEN: &str = "bench-deliver-token-7d2e9a4c1f6b3085d7e2a9c4f1b60385";

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len()) - 1]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

pub async fn run() {
    let cycles = env_u64("BENCH_CYCLES", 100) as usize;
    let turn = Duration::from_millis(env_u64("BENCH_TURN_MS", 2000));
    let fake = FakeOpenAi::answering(approval_cycle_held(move |reply| reply.after(turn))).await;
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("agents.toml"), fake.ops_agent_toml()).unwrap();
    let server = ServeProcess::start(env!("CARGO_BIN_EXE_approval-console"), dir.path(), TOKEN);
    let http = reqwest::Client::new();
    let base = server.base.clone();
    let events = http.get(format!("{base}/api/events")).bearer_auth(TOKEN).send().await.unwrap();
    let mut stream = events.bytes_stream();
    let mut text = String::new();
    crate::serve_process::read_until(&mut stream, &mut text, "event: ready").await;
    println!(
        "approval-console deliver benchmark — {cycles} approvals, a model taking {} ms a turn after each tool result",
        turn.as_millis()
    );

    let (mut answered, mut outcome) = (Vec::with_capacity(cycles), Vec::with_capacity(cycles));
    for i in 0..cycles {
        let paused =
            post_json(&http, &format!("{base}/api/agents/ops/generate"), TOKEN, &json!({ "messages": format!("delete cycle-{i}") })).await;
        let run = paused["runId"].as_str().unwrap_or_else(|| panic!("{paused}"));
        let item = get_json(&http, &format!("{base}/api/queue?run={run}"), TOKEN).await["items"][0].clone();
        let id = item["id"].as_str().unwrap().to_owned();
        let updated = format!(r#"{{"type":"updated","id":"{id}"}}"#);
        text.clear();
        let started = Instant::now();
        let answer =
            post_json(&http, &format!("{base}/api/queue/{id}/approve"), TOKEN, &json!({ "fingerprint": item["fingerprint"] })).await;
        answered.push(started.elapsed());
        assert_eq!(answer["decision"]["kind"], "approve", "{answer}");
        // The events after the approve until one after which the entry reads delivered.
        loop {
            let seen = text.matches(&updated).count();
            while text.matches(&updated).count() == seen {
                let chunk = stream.next().await.expect("the event stream stays open").unwrap();
                text.push_str(&String::from_utf8_lossy(&chunk));
            }
            let now: Value = get_json(&http, &format!("{base}/api/queue/{id}"), TOKEN).await;
            if now["state"] == "delivered" {
                assert!(now["decision"]["outcome"]["result"].is_object(), "{now}");
                outcome.push(started.elapsed());
                break;
            }
        }
    }
    answered.sort();
    outcome.sort();
    println!(
        "approve answered:          p50 {:>8.1} ms   p99 {:>8.1} ms   max {:>8.1} ms",
        ms(percentile(&answered, 0.5)),
        ms(percentile(&answered, 0.99)),
        ms(*answered.last().unwrap())
    );
    println!(
        "tool outcome on the events: p50 {:>8.1} ms   p99 {:>8.1} ms   max {:>8.1} ms after the approve (the model's turn: {} ms after the tool)",
        ms(percentile(&outcome, 0.5)),
        ms(percentile(&outcome, 0.99)),
        ms(*outcome.last().unwrap()),
        turn.as_millis()
    );
    server.runs_over("ops").await;
    println!("every run finished; model requests: {}", fake.request_count());
}
