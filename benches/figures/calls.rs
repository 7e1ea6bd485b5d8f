//! Prints figures, asserts nothing. `cargo bench --bench figures -- calls` (env: BENCH_CYCLES, default 500;
//! BENCH_CLIENTS, default "1,4,32").
//!
//! Calls that agents submit themselves (`POST /api/calls`) against the real `approval-console serve`
//! binary on SQLite (every write fsync-durable):
//! 1. one call's round trip as its agent sees it, p50 / p99: submitted, the agent's long poll
//!    (`GET /api/calls/{id}?waitSecs=30`) already waiting, an operator approves, the poll answers —
//!    measured from the approval request to the poll's answer (the wake-up through the change feed);
//! 2. cycles per second (submit, approve, long poll answered) at each number of concurrent clients;
//! 3. a call a grant approves (nobody clicks): submit → its approved answer (the submit's own, as a
//!    hook reads it), and with a long poll after it, p50 / p99;
//! 4. one run of the `hook claude-code` binary, start to answer, p50 / p99 (a process start,
//!    a submit and a poll), approved by an operator polling the queue every millisecond; and the
//!    same for calls a grant approves (made from the first run's call).

use serde_json::{json, Value};
use std::time::{Duration, Instant};

const TOKEN: &str = "bench-token-8f4a2c6e1b9d7035f8a4c2e6b1d97035";

use crate::serve_process::ServeProcess;

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

/// Submits one call of `tool` as agent `bench-bot`; answers the console's answer (id, fingerprint).
async fn submit(http: &reqwest::Client, base: &str, agent: &str, tool: &str, i: usize) -> Value {
    http.post(format!("{base}/api/calls"))
        .bearer_auth(agent)
        .header("Idempotency-Key", format!("bench-{i}-{}", rand_suffix()))
        .json(&json!({ "tool": tool, "args": { "order": format!("ord-{i}"), "amount": 12.5 }, "agent": "bench-bot" }))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

/// The agent's long poll on call `id`, answered once it is decided.
async fn poll(http: &reqwest::Client, base: &str, agent: &str, id: &str) -> Value {
    http.get(format!("{base}/api/calls/{id}?waitSecs=30")).bearer_auth(agent).send().await.unwrap().json().await.unwrap()
}

/// An operator's grant made from pending call `from` (scope: its agent; `conditions` on its
/// arguments), approving it too.
async fn grant_from(http: &reqwest::Client, base: &str, from: &Value, conditions: Value) {
    let r = http
        .post(format!("{base}/api/grants"))
        .bearer_auth(TOKEN)
        .json(&json!({ "fromItem": from["id"], "fingerprint": from["fingerprint"], "scope": "agent", "conditions": conditions, "expiresInSecs": 3600 }))
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success(), "{}", r.text().await.unwrap());
}

/// Submit, wait (long poll already held), approve: the time from the approval to the poll's answer.
async fn cycle(http: &reqwest::Client, base: &str, agent: &str, i: usize) -> Duration {
    let submitted = submit(http, base, agent, "refund_order", i).await;
    let id = submitted["id"].as_str().unwrap().to_owned();
    let poll = {
        let (http, base, agent, id) = (http.clone(), base.to_owned(), agent.to_owned(), id.clone());
        tokio::spawn(async move {
            let answer = poll(&http, &base, &agent, &id).await;
            (Instant::now(), answer)
        })
    };
    // Give the poll time to be held before deciding (it listens before it reads, so none is missed either way).
    tokio::time::sleep(Duration::from_millis(5)).await;
    let t = Instant::now();
    let r = http
        .post(format!("{base}/api/queue/{id}/approve"))
        .bearer_auth(TOKEN)
        .json(&json!({ "fingerprint": submitted["fingerprint"] }))
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success(), "{}", r.text().await.unwrap());
    let (answered, answer) = poll.await.unwrap();
    assert_eq!(answer["outcome"], "approved", "{answer}");
    answered.duration_since(t)
}

fn rand_suffix() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64
}

pub async fn run() {
    let cycles: usize = std::env::var("BENCH_CYCLES").ok().and_then(|v| v.parse().ok()).unwrap_or(500);
    let clients: Vec<usize> =
        std::env::var("BENCH_CLIENTS").unwrap_or_else(|_| "1,4,32".into()).split(',').filter_map(|c| c.trim().parse().ok()).collect();
    let tmp = tempfile::tempdir().unwrap();
    // Throughput, not the quotas: one agent credential here makes far more calls and long polls than
    // the defaults allow (benches/limits.rs measures those).
    let serve = ServeProcess::start_with(
        env!("CARGO_BIN_EXE_approval-console"),
        tmp.path(),
        TOKEN,
        &["--quota-per-sec", "1000000", "--quota-burst", "1000000", "--max-long-polls", "100000"],
    );
    let agent = crate::serve_process::add_token(env!("CARGO_BIN_EXE_approval-console"), tmp.path(), "bench-agent", "agent");
    let http = reqwest::Client::new();
    let base = serve.base.clone();

    let mut wakes = Vec::with_capacity(cycles);
    for i in 0..cycles {
        wakes.push(cycle(&http, &base, &agent, i).await);
    }
    wakes.sort();
    println!(
        "approval → the agent's long poll answers: p50 {:.2} ms, p99 {:.2} ms ({cycles} calls, one at a time)",
        percentile(&wakes, 0.5).as_secs_f64() * 1e3,
        percentile(&wakes, 0.99).as_secs_f64() * 1e3
    );

    for &n in &clients {
        let started = Instant::now();
        let per = cycles.div_ceil(n);
        let tasks: Vec<_> = (0..n)
            .map(|c| {
                let (http, base, agent) = (http.clone(), base.clone(), agent.clone());
                tokio::spawn(async move {
                    for i in 0..per {
                        cycle(&http, &base, &agent, 1_000_000 + c * per + i).await;
                    }
                })
            })
            .collect();
        for t in tasks {
            t.await.unwrap();
        }
        let done = per * n;
        println!(
            "submitted-call cycles (submit, approve, poll answered), {n} clients: {:.0}/s",
            done as f64 / started.elapsed().as_secs_f64()
        );
    }

    // A call a grant approves: nobody clicks; the console decides it as soon as it is queued.
    let first = submit(&http, &base, &agent, "transfer_funds", 0).await;
    grant_from(&http, &base, &first, json!([])).await;
    assert_eq!(poll(&http, &base, &agent, first["id"].as_str().unwrap()).await["outcome"], "approved");
    let (mut answered, mut polled) = (Vec::with_capacity(cycles), Vec::with_capacity(cycles));
    for i in 1..=cycles {
        let t = Instant::now();
        let submitted = submit(&http, &base, &agent, "transfer_funds", 2_000_000 + i).await;
        answered.push(t.elapsed());
        assert_eq!(submitted["status"]["outcome"], "approved", "{submitted}");
        let answer = poll(&http, &base, &agent, submitted["id"].as_str().unwrap()).await;
        polled.push(t.elapsed());
        assert_eq!(answer["outcome"], "approved", "{answer}");
    }
    answered.sort();
    polled.sort();
    let ms = |sorted: &[Duration], p| percentile(sorted, p).as_secs_f64() * 1e3;
    println!(
        "a call a grant approves: submit → its approved answer: p50 {:.2} ms, p99 {:.2} ms; with a long poll after it: p50 {:.2} ms, p99 {:.2} ms ({cycles} calls, one at a time)",
        ms(&answered, 0.5),
        ms(&answered, 0.99),
        ms(&polled, 0.5),
        ms(&polled, 0.99)
    );

    // The hook binary: one run, start to answer, with an operator approving as soon as the call shows;
    // then the same for calls a grant approves (made from the first run's call).
    let runs = cycles.min(50);
    let mut times = Vec::with_capacity(runs);
    for i in 0..runs {
        times.push(hook_run(&http, &base, &agent, i, Approver::Operator).await);
    }
    times.sort();
    println!(
        "hook claude-code, one run (process start, submit, approval by a polling operator, answer): p50 {:.1} ms, p99 {:.1} ms ({runs} runs)",
        percentile(&times, 0.5).as_secs_f64() * 1e3,
        percentile(&times, 0.99).as_secs_f64() * 1e3
    );
    hook_run(&http, &base, &agent, runs, Approver::NewGrant).await;
    let mut times = Vec::with_capacity(cycles);
    for i in 0..cycles {
        times.push(hook_run(&http, &base, &agent, runs + 1 + i, Approver::Grant).await);
    }
    times.sort();
    println!(
        "hook claude-code for a call a grant approves (process start, submit, answer): p50 {:.1} ms, p99 {:.1} ms ({cycles} runs)",
        percentile(&times, 0.5).as_secs_f64() * 1e3,
        percentile(&times, 0.99).as_secs_f64() * 1e3
    );
}

/// Who approves a hook run's call.
#[derive(Clone, Copy, PartialEq)]
enum Approver {
    /// An operator, polling the queue every millisecond.
    Operator,
    /// An operator's grant made from this call (scope: its agent), approving it and the later ones.
    NewGrant,
    /// The grant made before: nobody acts.
    Grant,
}

/// One run of `hook claude-code` (a Bash call), start to answer, its call approved by `approver`.
async fn hook_run(http: &reqwest::Client, base: &str, agent: &str, i: usize, approver: Approver) -> Duration {
    let input = json!({ "session_id": "bench", "cwd": "/tmp", "hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": { "command": format!("echo {i}") }, "tool_use_id": format!("toolu_{i}_{}", rand_suffix()) });
    let t = Instant::now();
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_approval-console"))
        .args(["hook", "claude-code", "--timeout", "30"])
        .env("APPROVAL_CONSOLE_URL", base)
        .env("APPROVAL_CONSOLE_AGENT_TOKEN", agent)
        .env("APPROVAL_CONSOLE_LOG", "warn")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    {
        use tokio::io::AsyncWriteExt;
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(input.to_string().as_bytes()).await.unwrap();
    }
    if approver != Approver::Grant {
        let call = loop {
            let page: Value = http
                .get(format!("{base}/api/queue?source=claude-code&state=pending"))
                .bearer_auth(TOKEN)
                .send()
                .await
                .unwrap()
                .json()
                .await
                .unwrap();
            if let Some(c) = page["items"].as_array().unwrap().first().cloned() {
                break c;
            }
            tokio::time::sleep(Duration::from_millis(1)).await;
        };
        if approver == Approver::NewGrant {
            // A grant on Bash needs a condition on the command.
            grant_from(http, base, &call, json!([{ "pointer": "/command", "op": "prefix", "value": "echo " }])).await;
        } else {
            http.post(format!("{base}/api/queue/{}/approve", call["id"].as_str().unwrap()))
                .bearer_auth(TOKEN)
                .json(&json!({ "fingerprint": call["fingerprint"] }))
                .send()
                .await
                .unwrap();
        }
    }
    let out = child.wait_with_output().await.unwrap();
    let took = t.elapsed();
    let answer: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(answer["hookSpecificOutput"]["permissionDecision"], "allow", "{answer}");
    took
}
