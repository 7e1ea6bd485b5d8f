//! Prints figures, asserts nothing. `cargo bench --bench figures -- throughput` (env: BENCH_PENDING, default 100000; BENCH_CYCLES,
//! default 2000; BENCH_CLIENTS, default "1,4,32": a run of BENCH_CYCLES at each, "" for none;
//! BENCH_DATA_DIR: fill that directory and keep it).
//!
//! 1. fill: N pending calls written to the queue (batches of 1,000 per transaction, fingerprint each);
//! 2. first-page list latency over HTTP, p50/p99, with and without filters and searches, and the tab
//!    counts, against the real `approval-console serve` binary over that database;
//! 3. approval cycles per second through the demo agent over HTTP (generate → queue → approve →
//!    finished), every write fsync-durable (WAL, synchronous=FULL), at each number of concurrent
//!    clients, with the commits per cycle (the server's `/api/metrics`: concurrent writers share one);
//! 4. bytes stored per pending call, the server's start to its first page, and its RSS with N pending.

use approval_console::store::Db;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

const TOKEN: &str = "bench-token-8f4a2c6e1b9d7035f8a4c2e6b1d97035";

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

fn rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("VmRSS:")).and_then(|l| l.split_whitespace().nth(1)?.parse().ok()))
        .unwrap_or(0)
}

use crate::fill::fill;
use crate::serve_process::{get_json, post_json, ServeProcess, StoreCounts};

fn start_server(dir: &std::path::Path) -> ServeProcess {
    ServeProcess::start(env!("CARGO_BIN_EXE_approval-console"), dir, TOKEN)
}

async fn list_latency(http: &reqwest::Client, base: &str, query: &str, rounds: usize) -> (Duration, Duration) {
    let mut times = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        let t = Instant::now();
        let r = http.get(format!("{base}/api/queue{query}")).bearer_auth(TOKEN).send().await.unwrap();
        assert!(r.status().is_success());
        let page: Value = r.json().await.unwrap();
        times.push(t.elapsed());
        assert!(page["items"].is_array() || page["all"].is_number());
    }
    times.sort();
    (percentile(&times, 0.5), percentile(&times, 0.99))
}

async fn cycle(http: &reqwest::Client, base: &str, i: usize) {
    let answer =
        post_json(http, &format!("{base}/api/agents/demo/generate"), TOKEN, &json!({ "messages": format!("delete cycle-{i}") })).await;
    let run = answer["runId"].as_str().unwrap();
    let page = get_json(http, &format!("{base}/api/queue?run={run}"), TOKEN).await;
    let item = &page["items"][0];
    let approve = format!("{base}/api/queue/{}/approve", item["id"].as_str().unwrap());
    let after = post_json(http, &approve, TOKEN, &json!({ "fingerprint": item["fingerprint"] })).await;
    assert_eq!(after["decision"]["kind"], "approve", "{after}");
    // The approve answers once the decision is committed (issue 46); the cycle ends when the call
    // is delivered (polled every 2 ms).
    let mut state = after["state"].as_str().unwrap_or_default().to_owned();
    while state != "delivered" {
        tokio::time::sleep(Duration::from_millis(2)).await;
        let now = get_json(http, &format!("{base}/api/queue/{}", item["id"].as_str().unwrap()), TOKEN).await;
        assert_ne!(now["state"], "failed", "{now}");
        state = now["state"].as_str().unwrap_or_default().to_owned();
    }
}

pub async fn run() {
    let n = env_usize("BENCH_PENDING", 100_000);
    let cycles = env_usize("BENCH_CYCLES", 2_000);
    // BENCH_DATA_DIR: fill that directory and keep it (for bench/ui-queue.mjs over the same queue).
    let tmp = tempfile::tempdir().unwrap();
    let kept = std::env::var_os("BENCH_DATA_DIR").map(std::path::PathBuf::from);
    let dir = kept.as_deref().unwrap_or(tmp.path());
    println!("approval-console benchmark — {n} pending, {cycles} approval cycles per level of clients");

    // Baseline file size of an empty, migrated database.
    let empty = tempfile::tempdir().unwrap();
    Db::open(empty.path()).await.unwrap().close().await;
    let empty_size = std::fs::metadata(empty.path().join("approval-console.db")).unwrap().len();

    let rate = fill(dir, n).await;
    let size = std::fs::metadata(dir.join("approval-console.db")).unwrap().len();
    println!("fill:                 {rate:>10.0} pending calls/s (batched transactions of 1,000)");
    println!(
        "storage:              {:>10.0} bytes per pending call ({:.1} MiB for {n})",
        (size - empty_size) as f64 / n as f64,
        size as f64 / 1048576.0
    );

    let started = Instant::now();
    let server = start_server(dir);
    let http = reqwest::Client::new();
    let pid = server.child.id();
    list_latency(&http, &server.base, "", 1).await;
    println!(
        "start → first page:   {:>10.1} ms (serve started over {n} pending, its first page of 50 answered)",
        started.elapsed().as_secs_f64() * 1e3
    );
    for (label, query) in [
        ("first page, no filter", ""),
        ("first page, agent", "?agent=billing"),
        ("first page, tool", "?tool=ask_operator"),
        ("first page, kind", "?kind=suspend"),
        ("first page, thread", "?thread=t-42"),
        ("page 100 (cursor)", "?cursor=95000"),
        ("search, 1 hit", "?q=rec-99999"),
        ("search, every call", "?q=cleanup"),
        ("search, oldest first", "?q=ask_operator&sort=oldest"),
        ("search, short word", "?q=-9"),
        ("counts, no filter", "/counts"),
        ("counts, search", "/counts?q=rec-99999"),
    ] {
        let (p50, p99) = list_latency(&http, &server.base, query, 300).await;
        println!(
            "list {label:<22} p50 {:>7.2} ms   p99 {:>7.2} ms   (50 items over HTTP)",
            p50.as_secs_f64() * 1e3,
            p99.as_secs_f64() * 1e3
        );
    }
    println!("server RSS:           {:>10.1} MiB with {n} pending", rss_kib(pid) as f64 / 1024.0);

    let levels: Vec<usize> = std::env::var("BENCH_CLIENTS")
        .unwrap_or_else(|_| "1,4,32".into())
        .split(',')
        .filter_map(|v| v.trim().parse().ok())
        .map(|c: usize| c.max(1))
        .collect();
    for (level, &clients) in levels.iter().enumerate() {
        let before = StoreCounts::read(&http, &server.base, TOKEN).await;
        let started = Instant::now();
        let per_client = cycles.div_ceil(clients);
        let tasks: Vec<_> = (0..clients)
            .map(|c| {
                let (http, base) = (http.clone(), server.base.clone());
                tokio::spawn(async move {
                    for i in 0..per_client {
                        cycle(&http, &base, level * 10 * cycles + c * per_client + i).await;
                    }
                })
            })
            .collect();
        for t in tasks {
            t.await.unwrap();
        }
        let elapsed = started.elapsed().as_secs_f64();
        let after = StoreCounts::read(&http, &server.base, TOKEN).await;
        let done = (per_client * clients) as f64;
        println!(
            "approval cycles:      {:>10.0} cycles/s ({} cycles, {clients} clients; generate → queue → approve → finished; fsync on commit); {}",
            done / elapsed,
            per_client * clients,
            after.per_cycle_since(&before, per_client * clients),
        );
    }
    println!("server RSS after:     {:>10.1} MiB", rss_kib(pid) as f64 / 1024.0);
}
