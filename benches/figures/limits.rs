//! Prints figures, asserts nothing. `cargo bench --bench figures -- limits` (a debug build is enough:
//! `cargo bench --profile dev --bench figures -- limits`). Env: BENCH_BIN, another `approval-console` binary to
//! measure instead (e.g. one built before the limits, for the "before" figures); BENCH_OPEN_FILES,
//! default "0,256": the RLIMIT_NOFILE (soft and hard) of the server for the flood, 0 for as it is.
//!
//! Limits at the boundary (docs/security.md, "The network boundary"), against the real `serve`:
//! 1. the server's RSS before and after one 4 MB `[0,0,…]` body (as a submitted call's `args`), and
//!    four of them at once;
//! 2. the operator's `GET /api/queue` while 300 idle TCP connections and 300 long polls
//!    (`GET /api/calls/{id}?waitSecs=60`, one agent credential) are open: p50 and slowest of 10;
//! 3. calls one agent credential gets accepted per second at the default quota, submitting as fast
//!    as it can for 10 s (overall, with the burst, and over the last 5 s);
//! 4. issue 44's slow bodies: 620 connections each sending `POST /index.html` with a 1 MB
//!    `Content-Length`, one byte every 2 s (connecting again once closed), then the operator's
//!    `GET /api/queue` 17 times on a new connection each: how many answered within 10 s, and the
//!    server's RSS before and during the flood.

use serde_json::{json, Value};
use std::time::{Duration, Instant};

const TOKEN: &str = "bench-token-8f4a2c6e1b9d7035f8a4c2e6b1d97035";

use crate::serve_process::ServeProcess;

fn bin() -> String {
    std::env::var("BENCH_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_approval-console").to_owned())
}

/// VmRSS and VmHWM (the peak) of `pid`, in MiB.
fn rss_mib(pid: u32) -> (f64, f64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let field = |name: &str| -> f64 {
        status.lines().find(|l| l.starts_with(name)).and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok()).unwrap_or(0.0) / 1024.0
    };
    (field("VmRSS:"), field("VmHWM:"))
}

fn start(dir: &std::path::Path, open_files: Option<u64>) -> (ServeProcess, String) {
    let agent = crate::serve_process::add_token(&bin(), dir, "bench-agent", "agent");
    (ServeProcess::start_open_files(&bin(), dir, TOKEN, &["--token", TOKEN], open_files), agent)
}

fn a_call(n: usize) -> Value {
    json!({ "tool": "refund_order", "args": { "order": format!("ord-{n}"), "amount": 12.5 }, "agent": "bench-bot" })
}

async fn memory(http: &reqwest::Client) {
    let tmp = tempfile::tempdir().unwrap();
    let (serve, agent) = start(tmp.path(), None);
    let pid = serve.child.id();
    // Warm: the first requests' allocations are not the body's.
    for n in 0..3 {
        let _ = http.post(format!("{}/api/calls", serve.base)).bearer_auth(&agent).json(&a_call(n)).send().await;
    }
    let body = format!(r#"{{"tool":"x","agent":"a","args":[{}0]}}"#, "0,".repeat(2_000_000 - 1));
    let post = |body: String| {
        let (http, url, agent) = (http.clone(), format!("{}/api/calls", serve.base), agent.clone());
        async move {
            match http.post(url).bearer_auth(agent).header("content-type", "application/json").body(body).send().await {
                Ok(r) => r.status().as_u16().to_string(),
                Err(e) => format!("no answer: {e}"),
            }
        }
    };
    let (before, _) = rss_mib(pid);
    let status = post(body.clone()).await;
    let (after_one, peak_one) = rss_mib(pid);
    let statuses = futures::future::join_all((0..4).map(|_| post(body.clone()))).await;
    let (after_four, peak_four) = rss_mib(pid);
    println!(
        "one {:.1} MB [0,0,…] body ({status}): RSS {before:.0} MiB before, peak {peak_one:.0} MiB (+{:.0}), {after_one:.0} MiB after",
        body.len() as f64 / 1e6,
        peak_one - before
    );
    println!(
        "four at once ({}): peak {peak_four:.0} MiB (+{:.0} over the start), {after_four:.0} MiB after",
        statuses.join(", "),
        peak_four - before
    );
}

async fn flood(http: &reqwest::Client, open_files: Option<u64>) {
    let tmp = tempfile::tempdir().unwrap();
    let (serve, agent) = start(tmp.path(), open_files);
    let call: Value =
        http.post(format!("{}/api/calls", serve.base)).bearer_auth(&agent).json(&a_call(0)).send().await.unwrap().json().await.unwrap();
    let id = call["id"].as_str().unwrap().to_owned();
    let addr = serve.base.trim_start_matches("http://").to_owned();
    let mut idle = Vec::new();
    for _ in 0..300 {
        if let Ok(Ok(s)) = tokio::time::timeout(Duration::from_secs(2), tokio::net::TcpStream::connect(&addr)).await {
            idle.push(s);
        }
    }
    let polls: Vec<_> = (0..300)
        .map(|_| {
            let (http, url, agent) = (http.clone(), format!("{}/api/calls/{id}?waitSecs=60", serve.base), agent.clone());
            tokio::spawn(async move { http.get(url).bearer_auth(agent).send().await.map(|r| r.status().as_u16()) })
        })
        .collect();
    // Let the long polls land (or be turned away) before the operator asks.
    tokio::time::sleep(Duration::from_secs(2)).await;
    // A new connection for every request: the operator's way in is what is measured.
    let operator = reqwest::Client::builder().timeout(Duration::from_secs(10)).pool_max_idle_per_host(0).build().unwrap();
    let mut times = Vec::new();
    let mut failed = 0;
    for _ in 0..10 {
        let t = Instant::now();
        match operator.get(format!("{}/api/queue", serve.base)).bearer_auth(TOKEN).send().await {
            Ok(r) if r.status().is_success() => times.push(t.elapsed()),
            _ => failed += 1,
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    times.sort();
    let limit = open_files.map_or("as it is".to_owned(), |n| n.to_string());
    let ms = |d: &Duration| format!("{:.1} ms", d.as_secs_f64() * 1e3);
    println!(
        "flood of {} idle connections + 300 long polls, RLIMIT_NOFILE {limit}: operator's GET /api/queue p50 {}, slowest {}, {failed} of 10 not answered within 10 s",
        idle.len(),
        times.get(times.len() / 2).map_or("-".into(), ms),
        times.last().map_or("-".into(), ms),
    );
    drop(idle);
    for p in polls {
        p.abort();
    }
}

async fn quota(http: &reqwest::Client) {
    let tmp = tempfile::tempdir().unwrap();
    let (serve, agent) = start(tmp.path(), None);
    let started = Instant::now();
    let (mut accepted, mut refused, mut late) = (0usize, 0usize, 0usize);
    let mut n = 0;
    while started.elapsed() < Duration::from_secs(10) {
        n += 1;
        let r = http.post(format!("{}/api/calls", serve.base)).bearer_auth(&agent).json(&a_call(n)).send().await.unwrap();
        match r.status().as_u16() {
            201 => {
                accepted += 1;
                if started.elapsed() >= Duration::from_secs(5) {
                    late += 1;
                }
            }
            _ => refused += 1,
        }
    }
    let secs = started.elapsed().as_secs_f64();
    println!(
        "one agent credential submitting as fast as it can, default quota: {accepted} calls accepted in {secs:.1} s ({:.1}/s; {:.1}/s over the last 5 s), {refused} refused",
        accepted as f64 / secs,
        late as f64 / (secs - 5.0)
    );
}

/// One slow-body attacker until `stop`: the request's head, then a byte every 2 s while the
/// connection lasts, and again once it is closed.
async fn slow_body(addr: String, stop: std::sync::Arc<std::sync::atomic::AtomicBool>) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let head = format!("POST /index.html HTTP/1.1\r\nHost: {addr}\r\nContent-Length: 1000000\r\n\r\n");
    while !stop.load(std::sync::atomic::Ordering::SeqCst) {
        let Ok(Ok(mut stream)) = tokio::time::timeout(Duration::from_secs(2), tokio::net::TcpStream::connect(&addr)).await else {
            tokio::time::sleep(Duration::from_secs(2)).await;
            continue;
        };
        if stream.write_all(head.as_bytes()).await.is_err() {
            continue;
        }
        let mut buf = [0u8; 1024];
        loop {
            tokio::select! {
                read = stream.read(&mut buf) => if matches!(read, Ok(0) | Err(_)) { break },
                _ = tokio::time::sleep(Duration::from_secs(2)) => {
                    if stop.load(std::sync::atomic::Ordering::SeqCst) || stream.write_all(b"a").await.is_err() {
                        break;
                    }
                }
            }
        }
        tokio::time::sleep(Duration::from_secs(2)).await;
    }
}

async fn slow_bodies() {
    let tmp = tempfile::tempdir().unwrap();
    let (serve, _agent) = start(tmp.path(), None);
    let pid = serve.child.id();
    let (before, _) = rss_mib(pid);
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let addr = serve.base.trim_start_matches("http://").to_owned();
    let flood: Vec<_> = (0..620).map(|_| tokio::spawn(slow_body(addr.clone(), stop.clone()))).collect();
    // Let the flood settle in (its connections made, the first bytes sent).
    tokio::time::sleep(Duration::from_secs(10)).await;
    let operator = reqwest::Client::builder().timeout(Duration::from_secs(10)).pool_max_idle_per_host(0).build().unwrap();
    let mut answered = 0;
    for _ in 0..17 {
        if operator.get(format!("{}/api/queue", serve.base)).bearer_auth(TOKEN).send().await.is_ok_and(|r| r.status().is_success()) {
            answered += 1;
        }
    }
    let (during, peak) = rss_mib(pid);
    stop.store(true, std::sync::atomic::Ordering::SeqCst);
    for f in flood {
        f.abort();
    }
    println!(
        "620 slow 1 MB bodies to /index.html: the operator's GET /api/queue answered {answered} of 17 within 10 s; RSS {before:.0} MiB before, {during:.0} MiB during (peak {peak:.0} MiB)"
    );
}

pub async fn run() {
    let http = reqwest::Client::builder().timeout(Duration::from_secs(90)).build().unwrap();
    println!("binary: {}", bin());
    memory(&http).await;
    let limits = std::env::var("BENCH_OPEN_FILES").unwrap_or_else(|_| "0,256".into());
    for n in limits.split(',').filter_map(|n| n.trim().parse::<u64>().ok()) {
        flood(&http, (n > 0).then_some(n)).await;
    }
    quota(&http).await;
    slow_bodies().await;
}
