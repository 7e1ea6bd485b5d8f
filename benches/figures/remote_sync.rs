//! Prints figures, asserts nothing. `cargo bench --bench figures -- remote_sync` (needs `npm ci --prefix
//! tests/mastra-server`; env: BENCH_PAUSES, default 50; BENCH_RUNS, default 1000).
//!
//! Against a real Mastra server (the test fixture: @mastra/core on Node 22, LibSQL, scripted model):
//! 1. latency from a run pausing on the server (its `/generate` answered `suspended`) to the call's
//!    `added` event on the console's `/api/events`, with the default 1 s poll interval (target < 1.5 s p99);
//! 2. sync cost with BENCH_RUNS suspended runs on the server: the sync that queues them all, then
//!    complete and incremental syncs that change nothing (wall time, and the console's CPU time).

use crate::mastra_server::MastraServer;
use approval_console::api;
use approval_console::app::App;
use futures::StreamExt;
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::{Duration, Instant};

const TOKEN: &str = "bench-token-8f4a2c6e1b9d7035f8a4c2e6b1d97035";

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

/// This process's user+system CPU time.
fn cpu_time() -> Duration {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let fields: Vec<&str> = stat.rsplit(')').next().unwrap_or("").split_whitespace().collect();
    let ticks: u64 = fields.get(11).and_then(|v| v.parse().ok()).unwrap_or(0) + fields.get(12).and_then(|v| v.parse().ok()).unwrap_or(0);
    Duration::from_millis(ticks * 10)
}

pub async fn run() {
    let pauses = env_usize("BENCH_PAUSES", 50);
    let runs = env_usize("BENCH_RUNS", 1000);
    let tmp = tempfile::tempdir().unwrap();
    let mastra = Arc::new(MastraServer::start(&tmp.path().join("mastra"), None));
    let app = App::open(&tmp.path().join("console"), vec![]).await.unwrap();
    let _background = app.start(None);
    let server = api::serve(app.clone(), 0, TOKEN).await.unwrap();
    let base = format!("http://{}", server.addr);
    let http = reqwest::Client::new();
    let added = http
        .post(format!("{base}/api/engines"))
        .bearer_auth(TOKEN)
        .json(&json!({ "name": "m", "baseUrl": mastra.base }))
        .send()
        .await
        .unwrap();
    assert!(added.status().is_success());

    // 1. pause → event latency, default interval.
    let events = http.get(format!("{base}/api/events")).bearer_auth(TOKEN).send().await.unwrap();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<Instant>();
    tokio::spawn(async move {
        let mut stream = events.bytes_stream();
        let mut buf = String::new();
        while let Some(Ok(chunk)) = stream.next().await {
            buf.push_str(&String::from_utf8_lossy(&chunk));
            while let Some(end) = buf.find("\n\n") {
                let event: String = buf.drain(..end + 2).collect();
                if event.contains("event: queue") && event.contains("\"added\"") {
                    let _ = tx.send(Instant::now());
                }
            }
        }
    });
    let mut latencies = Vec::new();
    for i in 0..pauses {
        let answer = mastra.generate("ops", &format!("delete lat-{i}"), Some((&format!("t-lat-{i}"), "bench"))).await;
        let paused = Instant::now();
        assert_eq!(answer["finishReason"], "suspended");
        let seen = tokio::time::timeout(Duration::from_secs(30), rx.recv()).await.expect("event within 30 s").unwrap();
        latencies.push(seen.saturating_duration_since(paused));
        // Spread the pauses over the poll cycle.
        tokio::time::sleep(Duration::from_millis(137 * (i as u64 % 7))).await;
    }
    latencies.sort();
    println!(
        "pause → queue event (poll 1 s, {pauses} pauses): p50 {:.0} ms  p95 {:.0} ms  p99 {:.0} ms  max {:.0} ms   (target p99 < 1500 ms)",
        percentile(&latencies, 0.5).as_secs_f64() * 1e3,
        percentile(&latencies, 0.95).as_secs_f64() * 1e3,
        percentile(&latencies, 0.99).as_secs_f64() * 1e3,
        latencies.last().unwrap().as_secs_f64() * 1e3
    );

    // 2. sync cost with many suspended runs. Stop the poll loop's influence by removing and re-adding
    // the engine with a long interval, so each sync below is one we time.
    let _ = http.delete(format!("{base}/api/engines/m")).bearer_auth(TOKEN).send().await.unwrap();
    let started = Instant::now();
    let mut made = 0;
    let sem = Arc::new(tokio::sync::Semaphore::new(8));
    let mut tasks = Vec::new();
    for i in 0..runs {
        let mastra = mastra.clone();
        let permit = sem.clone().acquire_owned().await.unwrap();
        tasks.push(tokio::spawn(async move {
            let _p = permit;
            mastra.generate("ops", &format!("delete many-{i}"), Some((&format!("t-many-{i}"), "bench"))).await
        }));
    }
    for t in tasks {
        if t.await.unwrap()["finishReason"] == "suspended" {
            made += 1;
        }
    }
    println!("made {made} suspended runs on the server in {:.1} s", started.elapsed().as_secs_f64());
    let t = Instant::now();
    let added = http
        .post(format!("{base}/api/engines"))
        .bearer_auth(TOKEN)
        .json(&json!({ "name": "m2", "baseUrl": mastra.base, "pollMs": 3_600_000 }))
        .send()
        .await
        .unwrap();
    assert!(added.status().is_success());
    // The engine's loop syncs once at start (a complete listing): time until every run is queued.
    loop {
        let engines: Value = http.get(format!("{base}/api/engines")).bearer_auth(TOKEN).send().await.unwrap().json().await.unwrap();
        let pending =
            engines.as_array().unwrap().iter().find(|e| e["name"] == "m2").map(|e| e["pending"].as_i64().unwrap_or(0)).unwrap_or(0);
        if pending as usize >= made + pauses {
            break;
        }
        assert!(t.elapsed() < Duration::from_secs(120), "runs not queued within 2 minutes ({pending})");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    println!("engine added → all {} suspended runs queued: {:.0} ms", made + pauses, t.elapsed().as_secs_f64() * 1e3);
    let timed = |label: &'static str| {
        let http = http.clone();
        let base = base.clone();
        async move {
            let cpu = cpu_time();
            let t = Instant::now();
            let r: Value = http.post(format!("{base}/api/engines/m2/sync")).bearer_auth(TOKEN).send().await.unwrap().json().await.unwrap();
            let wall = t.elapsed();
            let cpu = cpu_time().saturating_sub(cpu);
            println!(
                "{label}: {:.0} ms wall, {:.0} ms console CPU; listed {} added {} gone {}",
                wall.as_secs_f64() * 1e3,
                cpu.as_secs_f64() * 1e3,
                r["report"]["listed"],
                r["report"]["added"],
                r["report"]["gone"]
            );
            wall
        }
    };
    let mut full = Vec::new();
    for _ in 0..5 {
        full.push(timed("complete sync, nothing changed").await);
    }
    full.sort();
    println!("complete sync with {made} suspended runs, nothing changed: median {:.0} ms", percentile(&full, 0.5).as_secs_f64() * 1e3);
    let testing = app.testing();
    let mut incremental = Vec::new();
    for _ in 0..5 {
        let cpu = cpu_time();
        let t = Instant::now();
        testing.incremental_sync("m2").await.expect("incremental sync");
        incremental.push((t.elapsed(), cpu_time().saturating_sub(cpu)));
    }
    incremental.sort();
    let (wall, cpu) = incremental[incremental.len() / 2];
    println!(
        "incremental sync (runs created in the last 10 min: all {made} here), nothing changed: median {:.0} ms wall, {:.0} ms console CPU",
        wall.as_secs_f64() * 1e3,
        cpu.as_secs_f64() * 1e3
    );
    server.stop().await;
}
