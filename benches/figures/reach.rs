//! Prints figures, asserts nothing. `cargo bench --bench figures -- reach` (env: BENCH_CALLS, default 100;
//! APPROVAL_CONSOLE_TEST_PYTHON for the mail channel, as scripts/test sets it).
//!
//! Time from a call's pause to its delivery on each channel (issue 28), against the real
//! `approval-console serve` binary on SQLite: a webhook, a Slack-compatible webhook and a
//! Matrix-shaped endpoint on one receiver on 127.0.0.1 (arrival measured there, from the submit's
//! start), and mail through a real SMTP server (aiosmtpd, STARTTLS) when Python's venv is there
//! (measured by the console: the message's `sentAt` − the call's `pausedAt`). One call at a time.

use axum::extract::State;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const TOKEN: &str = "bench-token-8f4a2c6e1b9d7035f8a4c2e6b1d97035";

use crate::serve_process::ServeProcess;

type Arrivals = Arc<Mutex<HashMap<(String, String), Instant>>>;

async fn receive(State(arrivals): State<Arrivals>, uri: axum::http::Uri, body: axum::body::Bytes) -> &'static str {
    let now = Instant::now();
    let v: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    // The call's id: the webhook's `id`; Slack's and Matrix's text carry it after "Call: ".
    let text = v.to_string();
    let id = v["id"].as_str().map(str::to_owned).or_else(|| text.split("q_").nth(1).map(|r| format!("q_{}", &r[..32.min(r.len())])));
    if let Some(id) = id {
        let path = uri.path().split('/').nth(1).unwrap_or("").to_owned();
        arrivals.lock().unwrap().entry((path, id)).or_insert(now);
    }
    "{}"
}

fn pct(mut v: Vec<Duration>, p: f64) -> Duration {
    v.sort();
    v[((v.len() as f64 - 1.0) * p).round() as usize]
}

pub async fn run() {
    let calls: usize = std::env::var("BENCH_CALLS").ok().and_then(|v| v.parse().ok()).unwrap_or(100);
    let tmp = tempfile::tempdir().unwrap();
    let arrivals: Arrivals = Arc::default();
    let app = axum::Router::new().fallback(receive).with_state(arrivals.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base_in = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });

    let mut channels = vec![
        json!({ "name": "hook", "kind": "webhook", "person": "a", "target": format!("{base_in}/hook") }),
        json!({ "name": "slack", "kind": "slack", "person": "a" }),
        json!({ "name": "matrix", "kind": "matrix", "person": "a", "target": "!r:localhost", "server": format!("{base_in}/matrix") }),
    ];
    // Each channel's own secret, set by the local admin (the session token) once the console runs.
    let secrets = [("hook", "k".to_owned()), ("slack", format!("{base_in}/slack/T/B/X")), ("matrix", "tok".to_owned())];
    let mut smtp = None;
    if let Some(python) = std::env::var_os("APPROVAL_CONSOLE_TEST_PYTHON") {
        let pair = rcgen::KeyPair::generate().unwrap();
        let cert = rcgen::CertificateParams::new(vec!["127.0.0.1".into()]).unwrap().self_signed(&pair).unwrap();
        let (c, k, out) = (tmp.path().join("c.pem"), tmp.path().join("k.pem"), tmp.path().join("mail"));
        std::fs::write(&c, cert.pem()).unwrap();
        std::fs::write(&k, pair.serialize_pem()).unwrap();
        std::fs::create_dir_all(&out).unwrap();
        let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/smtp.py");
        let mut child = tokio::process::Command::new(python)
            .args([script.as_os_str(), c.as_os_str(), k.as_os_str(), out.as_os_str()])
            .stdout(std::process::Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        use tokio::io::AsyncBufReadExt;
        let mut line = String::new();
        tokio::io::BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).await.unwrap();
        channels.push(json!({ "name": "mail", "kind": "email", "person": "a", "target": "a@example.com",
            "server": format!("127.0.0.1:{}", line.trim()), "from": "c@example.com", "caFile": c.to_string_lossy() }));
        smtp = Some(child);
    }

    let bin = env!("CARGO_BIN_EXE_approval-console");
    // The agent's quota (10 calls/s) would answer 429 to a benchmark's pace.
    let serve = ServeProcess::start_with(bin, tmp.path(), TOKEN, &["--quota-per-sec", "1000", "--quota-burst", "1000"]);
    let agent = crate::serve_process::add_token(bin, tmp.path(), "bench-agent", "agent");
    let http = reqwest::Client::new();
    let base = serve.base.clone();
    for (name, value) in &secrets {
        let r = http
            .put(format!("{base}/api/settings/reach/channels/{name}/secret"))
            .bearer_auth(TOKEN)
            .json(&json!({ "value": value }))
            .send()
            .await
            .unwrap();
        assert!(r.status().is_success(), "{}", r.text().await.unwrap());
    }
    let r = http.put(format!("{base}/api/settings/reach")).bearer_auth(TOKEN).json(&json!({ "channels": channels })).send().await.unwrap();
    assert!(r.status().is_success(), "{}", r.text().await.unwrap());

    let names: Vec<String> = channels.iter().map(|c| c["name"].as_str().unwrap().to_owned()).collect();
    let mut seen: HashMap<String, Vec<Duration>> = HashMap::new();
    let mut recorded: HashMap<String, Vec<Duration>> = HashMap::new();
    for i in 0..calls {
        let start = Instant::now();
        let call: Value = http
            .post(format!("{base}/api/calls"))
            .bearer_auth(&agent)
            .header("Idempotency-Key", format!("reach-{i}"))
            .json(&json!({ "tool": "delete_record", "args": { "id": i }, "agent": "bench-agent" }))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let id = call["id"].as_str().unwrap_or_else(|| panic!("submit answered {call}")).to_owned();
        // Every channel's message recorded sent (the console's own clock), then the receiver's arrivals.
        let reach = loop {
            let v: Value = http.get(format!("{base}/api/queue/{id}/reach")).bearer_auth(TOKEN).send().await.unwrap().json().await.unwrap();
            let msgs = v["messages"].as_array().cloned().unwrap_or_default();
            if msgs.len() == names.len() && msgs.iter().all(|m| m["state"] != "pending") {
                break msgs;
            }
            assert!(start.elapsed() < Duration::from_secs(60), "not delivered: {v}");
            tokio::time::sleep(Duration::from_millis(2)).await;
        };
        let item: Value = http.get(format!("{base}/api/queue/{id}")).bearer_auth(TOKEN).send().await.unwrap().json().await.unwrap();
        let paused = chrono::DateTime::parse_from_rfc3339(item["pausedAt"].as_str().unwrap_or_default()).ok();
        for m in &reach {
            if let (Some(p), Some(sent)) = (paused, m["sentAt"].as_str().and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok())) {
                recorded.entry(m["channel"].as_str().unwrap().to_owned()).or_default().push((sent - p).to_std().unwrap_or_default());
            }
        }
        for path in ["hook", "slack", "matrix"] {
            if let Some(at) = arrivals.lock().unwrap().get(&(path.to_owned(), id.clone())) {
                seen.entry(path.to_owned()).or_default().push(at.duration_since(start));
            }
        }
        let fp = call["fingerprint"].as_str().unwrap_or_default();
        let _ = http.post(format!("{base}/api/queue/{id}/decline")).bearer_auth(TOKEN).json(&json!({ "fingerprint": fp })).send().await;
    }
    println!("reach: {calls} calls, one at a time; pause → delivery per channel");
    for name in &names {
        if let Some(v) = recorded.get(name).filter(|v| !v.is_empty()) {
            println!(
                "  {name:<7} recorded sentAt − pausedAt   p50 {:>7.1?}  p99 {:>7.1?}  (n={})",
                pct(v.clone(), 0.5),
                pct(v.clone(), 0.99),
                v.len()
            );
        }
        if let Some(v) = seen.get(name).filter(|v| !v.is_empty()) {
            println!(
                "  {name:<7} received − submit started   p50 {:>7.1?}  p99 {:>7.1?}  (n={})",
                pct(v.clone(), 0.5),
                pct(v.clone(), 0.99),
                v.len()
            );
        }
    }
    if smtp.is_none() {
        println!("  (mail: not measured — set APPROVAL_CONSOLE_TEST_PYTHON to a Python with aiosmtpd)");
    }
    drop(serve);
}
