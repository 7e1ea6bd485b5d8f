//! Team mode figures; prints, asserts nothing. `cargo bench --bench figures -- team` (env: BENCH_CYCLES,
//! default 600 per run; BENCH_CLIENTS, default "1,4,32"; BENCH_EVENTS, default 200; BENCH_PENDING,
//! default 100000, the queue filled for the first-page figure — 1000000 for the issue's figure).
//!
//! Everything real: `approval-console serve` processes over a throwaway PostgreSQL cluster
//! (tests/support/postgres.rs: initdb in a temp directory, fsync on as a real server has it) and,
//! for comparison, one console on its own SQLite file.
//!
//! 1. approval cycles/s (generate → the run's queue entry → approve → delivered): one console on
//!    SQLite; one console on PostgreSQL; three consoles on one PostgreSQL database, each client on
//!    one console (its own calls); three consoles where each call is approved on the next console
//!    (handed over to the owner's outbox, delivered there: waited for until `delivered`);
//! 2. a pause on console A → the event on console B's `/api/events`, p50 / p99 (from A's event, and
//!    from the start of the request that paused);
//! 3. the first page of 50 with N pending on PostgreSQL, p50 / p99, and the tab counts.

use serde_json::{json, Value};
use std::time::{Duration, Instant};

use crate::serve_process::{get_json, post_json, ServeProcess};

const TOKEN: &str = "bench-token-8f4a2c6e1b9d7035f8a4c2e6b1d97035";

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

fn console(root: &std::path::Path, name: &str, url: Option<&str>) -> ServeProcess {
    let dir = root.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    if let Some(url) = url {
        std::fs::write(dir.join("test-database-url"), url).unwrap();
    }
    ServeProcess::start(env!("CARGO_BIN_EXE_approval-console"), &dir, TOKEN)
}

/// One cycle: pause on `on`, approve on `by`; waits until the call is delivered (polling every
/// 10 ms: 32 clients polling faster would load the two cores more than the consoles do).
async fn cycle(http: &reqwest::Client, on: &str, by: &str, i: usize) {
    let answer =
        post_json(http, &format!("{on}/api/agents/demo/generate"), TOKEN, &json!({ "messages": format!("delete cycle-{i}") })).await;
    let run = answer["runId"].as_str().unwrap_or_else(|| panic!("{answer}"));
    let page = get_json(http, &format!("{by}/api/queue?run={run}"), TOKEN).await;
    let item = &page["items"][0];
    let id = item["id"].as_str().unwrap_or_else(|| panic!("{page}"));
    let after = post_json(http, &format!("{by}/api/queue/{id}/approve"), TOKEN, &json!({ "fingerprint": item["fingerprint"] })).await;
    let mut state = after["state"].as_str().unwrap_or_default().to_owned();
    while state != "delivered" {
        tokio::time::sleep(Duration::from_millis(10)).await;
        state = get_json(http, &format!("{by}/api/queue/{id}"), TOKEN).await["state"].as_str().unwrap_or_default().to_owned();
    }
}

/// Cycles/s with `clients` concurrent clients, client k pausing on `pairs[k % len].0` and approving on `.1`.
async fn cycles_per_sec(pairs: &[(String, String)], clients: usize, cycles: usize) -> f64 {
    let http = reqwest::Client::new();
    let per_client = cycles.div_ceil(clients);
    let started = Instant::now();
    let tasks: Vec<_> = (0..clients)
        .map(|k| {
            let (on, by) = pairs[k % pairs.len()].clone();
            let http = http.clone();
            tokio::spawn(async move {
                for j in 0..per_client {
                    cycle(&http, &on, &by, k * 1_000_000 + j).await;
                }
            })
        })
        .collect();
    for t in tasks {
        t.await.unwrap();
    }
    (per_client * clients) as f64 / started.elapsed().as_secs_f64()
}

/// Reads `stream` until the `added` event of `id`; when it came.
async fn wait_added<S, B, E>(stream: &mut S, id: &str) -> Instant
where
    S: futures::Stream<Item = Result<B, E>> + Unpin,
    B: AsRef<[u8]>,
    E: std::fmt::Debug,
{
    crate::serve_process::read_until(stream, &mut String::new(), &format!(r#"{{"type":"added","id":"{id}"}}"#)).await;
    Instant::now()
}

async fn events_latency(a: &ServeProcess, b: &ServeProcess, rounds: usize) {
    let http = reqwest::Client::new();
    let open = |base: String| {
        let http = http.clone();
        async move { http.get(format!("{base}/api/events")).bearer_auth(TOKEN).send().await.unwrap().bytes_stream() }
    };
    let (mut on_a, mut on_b) = (open(a.base.clone()).await, open(b.base.clone()).await);
    let (mut from_event, mut from_request) = (Vec::new(), Vec::new());
    for i in 0..rounds {
        let asked = Instant::now();
        let answer =
            post_json(&http, &format!("{}/api/agents/demo/generate", a.base), TOKEN, &json!({ "messages": format!("delete ev-{i}") }))
                .await;
        let run = answer["runId"].as_str().unwrap();
        let id = get_json(&http, &format!("{}/api/queue?run={run}", a.base), TOKEN).await["items"][0]["id"].as_str().unwrap().to_owned();
        let (at_a, at_b) = tokio::join!(wait_added(&mut on_a, &id), wait_added(&mut on_b, &id));
        from_event.push(at_b.saturating_duration_since(at_a));
        from_request.push(at_b - asked);
    }
    from_event.sort();
    from_request.sort();
    println!(
        "  pause on A → event on B ({rounds} pauses): after A's own event p50 {} / p99 {}; from the request's start p50 {} / p99 {}",
        ms(percentile(&from_event, 0.5)),
        ms(percentile(&from_event, 0.99)),
        ms(percentile(&from_request, 0.5)),
        ms(percentile(&from_request, 0.99))
    );
}

async fn first_page(base: &str, query: &str, rounds: usize) -> (Duration, Duration) {
    let http = reqwest::Client::new();
    let mut times = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        let t = Instant::now();
        let page: Value = http.get(format!("{base}{query}")).bearer_auth(TOKEN).send().await.unwrap().json().await.unwrap();
        times.push(t.elapsed());
        assert!(page.is_object(), "{page}");
    }
    times.sort();
    (percentile(&times, 0.5), percentile(&times, 0.99))
}

pub async fn run() {
    let cycles = env_usize("BENCH_CYCLES", 600);
    let rounds = env_usize("BENCH_EVENTS", 200);
    let pending = env_usize("BENCH_PENDING", 100_000);
    let clients: Vec<usize> =
        std::env::var("BENCH_CLIENTS").unwrap_or_else(|_| "1,4,32".into()).split(',').filter_map(|c| c.trim().parse().ok()).collect();
    println!("approval-console team benchmark — {cycles} cycles per run, clients {clients:?}, {rounds} event pauses, {pending} pending");
    let root = tempfile::tempdir().unwrap();
    // A database server as one runs: every commit on disk (the tests' cluster runs without fsync).
    crate::postgres::durable();

    println!("approval cycles/s (pause → approve → delivered):");
    {
        let alone = console(root.path(), "sqlite", None);
        let pg_url = crate::postgres::database().await;
        let pg_one = console(root.path(), "pg-one", Some(&pg_url));
        let team_url = crate::postgres::database().await;
        let team: Vec<ServeProcess> = (0..3).map(|i| console(root.path(), &format!("team-{i}"), Some(&team_url))).collect();
        let same: Vec<(String, String)> = team.iter().map(|c| (c.base.clone(), c.base.clone())).collect();
        let cross: Vec<(String, String)> = (0..3).map(|i| (team[i].base.clone(), team[(i + 1) % 3].base.clone())).collect();
        for &n in &clients {
            let sqlite = cycles_per_sec(&[(alone.base.clone(), alone.base.clone())], n, cycles).await;
            let pg = cycles_per_sec(&[(pg_one.base.clone(), pg_one.base.clone())], n, cycles).await;
            let three = cycles_per_sec(&same, n, cycles).await;
            let handed = cycles_per_sec(&cross, n, cycles).await;
            println!(
                "  {n:>2} clients: 1 console on SQLite {sqlite:.0}/s · 1 on PostgreSQL {pg:.0}/s · 3 on one PostgreSQL {three:.0}/s \
                 (each approving its own calls) · {handed:.0}/s (each call approved on another console, delivered by its own)"
            );
        }
        events_latency(&team[0], &team[1], rounds).await;
    }

    println!("first page of 50 with {pending} pending on PostgreSQL:");
    let url = crate::postgres::database().await;
    let dir = root.path().join("filled");
    std::fs::create_dir_all(&dir).unwrap();
    let rate = crate::fill::fill_at(&dir, approval_console::store::Location::Postgres(url.clone()), pending).await;
    println!("  fill {rate:.0} calls/s");
    let filled = console(root.path(), "filled", Some(&url));
    for (what, query) in [
        ("first page, newest first", "/api/queue?limit=50"),
        ("first page, one tool", "/api/queue?limit=50&tool=delete_record"),
        ("search, one hit", "/api/queue?limit=50&q=rec-4242"),
        ("tab counts", "/api/queue/counts"),
    ] {
        let (p50, p99) = first_page(&filled.base, query, 200).await;
        println!("  {what}: p50 {} / p99 {}", ms(p50), ms(p99));
    }
}
