//! Prints figures, asserts nothing. `cargo bench --bench figures -- mastra_ratio` (needs `npm ci --prefix
//! tests/mastra-server`; env: BENCH_CYCLES, default 400 per level; BENCH_CLIENTS, default "1,4,32").
//!
//! One approval cycle script, run against the console (`approval-console serve`, the demo agent) and
//! against a real Mastra server (the test fixture: @mastra/core on Node 22, LibSQL, a scripted model)
//! in the same run, through the same Mastra-shaped HTTP routes: generate (the run pauses on a tool
//! that needs approval) → list the agent's suspended runs → approve-tool-call-generate (the tool
//! runs, the run finishes). Prints cycles/s of each, their ratio, and the console's commits and SQL
//! statements per cycle (from its `/api/metrics`).

use serde_json::{json, Value};
use std::time::Instant;

const TOKEN: &str = "bench-token-8f4a2c6e1b9d7035f8a4c2e6b1d97035";

struct Target {
    name: &'static str,
    base: String,
    token: Option<String>,
    agent: &'static str,
}

async fn post(http: &reqwest::Client, t: &Target, path: &str, body: &Value) -> Value {
    let mut r = http.post(format!("{}{path}", t.base)).json(body);
    if let Some(token) = &t.token {
        r = r.bearer_auth(token);
    }
    let r = r.send().await.unwrap();
    assert!(r.status().is_success(), "{} POST {path}: {}", t.name, r.status());
    r.json().await.unwrap()
}

async fn get(http: &reqwest::Client, t: &Target, path: &str) -> Value {
    let mut r = http.get(format!("{}{path}", t.base));
    if let Some(token) = &t.token {
        r = r.bearer_auth(token);
    }
    let r = r.send().await.unwrap();
    assert!(r.status().is_success(), "{} GET {path}: {}", t.name, r.status());
    r.json().await.unwrap()
}

/// generate → suspended runs → approve, as a Mastra client does it.
async fn cycle(http: &reqwest::Client, t: &Target, i: usize) {
    let agent = t.agent;
    let body = json!({ "messages": [{ "role": "user", "content": format!("delete ratio-{i}") }] });
    let paused = post(http, t, &format!("/api/agents/{agent}/generate"), &body).await;
    assert_eq!(paused["finishReason"], "suspended", "{}: {paused}", t.name);
    let run = paused["runId"].as_str().unwrap();
    let listed = get(http, t, &format!("/api/agents/{agent}/suspended-runs")).await;
    let waiting = listed["runs"].as_array().and_then(|runs| runs.iter().find(|r| r["runId"] == run)).cloned();
    let waiting = waiting.unwrap_or_else(|| panic!("{}: run {run} not listed as suspended", t.name));
    let call = waiting["toolCalls"][0]["toolCallId"].clone();
    let done =
        post(http, t, &format!("/api/agents/{agent}/approve-tool-call-generate"), &json!({ "runId": run, "toolCallId": call })).await;
    assert_ne!(done["finishReason"], "suspended", "{}: {done}", t.name);
}

/// Cycles per second with `clients` concurrent clients, `cycles` in all.
async fn rate(http: &reqwest::Client, t: &std::sync::Arc<Target>, clients: usize, cycles: usize, offset: usize) -> f64 {
    let per_client = cycles.div_ceil(clients);
    let started = Instant::now();
    let tasks: Vec<_> = (0..clients)
        .map(|c| {
            let (http, t) = (http.clone(), t.clone());
            tokio::spawn(async move {
                for i in 0..per_client {
                    cycle(&http, &t, offset + c * per_client + i).await;
                }
            })
        })
        .collect();
    for task in tasks {
        task.await.unwrap();
    }
    (per_client * clients) as f64 / started.elapsed().as_secs_f64()
}

pub async fn run() {
    let cycles: usize = std::env::var("BENCH_CYCLES").ok().and_then(|v| v.parse().ok()).unwrap_or(400);
    let levels: Vec<usize> =
        std::env::var("BENCH_CLIENTS").unwrap_or_else(|_| "1,4,32".into()).split(',').filter_map(|v| v.trim().parse().ok()).collect();
    let tmp = tempfile::tempdir().unwrap();
    let console = crate::serve_process::ServeProcess::start(env!("CARGO_BIN_EXE_approval-console"), &tmp.path().join("console"), TOKEN);
    let mastra = crate::mastra_server::MastraServer::start(&tmp.path().join("mastra"), None);
    let http = reqwest::Client::new();
    let ours = std::sync::Arc::new(Target { name: "console", base: console.base.clone(), token: Some(TOKEN.into()), agent: "demo" });
    let theirs = std::sync::Arc::new(Target { name: "mastra", base: mastra.base.clone(), token: None, agent: "ops" });
    println!("approval cycles (generate → suspended-runs → approve-tool-call-generate), {cycles} per level, same script, one run");
    // Warm both up (JIT, caches, first connections).
    rate(&http, &ours, 1, 20, 1_000_000).await;
    rate(&http, &theirs, 1, 20, 1_000_000).await;
    for (n, &clients) in levels.iter().enumerate() {
        let offset = n * 10 * cycles;
        let before = crate::serve_process::StoreCounts::read(&http, &console.base, TOKEN).await;
        let a = rate(&http, &ours, clients, cycles, offset).await;
        let after = crate::serve_process::StoreCounts::read(&http, &console.base, TOKEN).await;
        let b = rate(&http, &theirs, clients, cycles, offset).await;
        let done = cycles.div_ceil(clients) * clients;
        println!(
            "{clients:>3} clients: console {a:>6.0} cycles/s   mastra {b:>6.0} cycles/s   ratio {:>5.1}×   console {}",
            a / b,
            after.per_cycle_since(&before, done),
        );
    }
}
