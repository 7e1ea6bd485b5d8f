//! Limits at the boundary (issue 23): per-credential rates on submitted calls and runs, caps on
//! long polls and event streams, a size limit on submitted arguments, bounded memory for large
//! bodies, and a connection cap that keeps an operator's queue page answering under a flood.

use crate::helpers::*;
use approval_console::api::{self, Limits, Server};
use approval_console::domain::Role;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use std::time::Duration;

/// A second server over `t`'s app, with `limits`: its base URL and the server (stopped when dropped
/// with the test's runtime).
async fn serve_limited(t: &TestApp, limits: Limits) -> (String, Server) {
    let server = api::serve_with(t.app.clone(), 0, TOKEN, limits).await.expect("serve");
    (format!("http://{}", server.addr), server)
}

/// A request to `base` with `token`: status, `Retry-After` (if any) and the body.
async fn ask(t: &TestApp, base: &str, token: &str, method: Method, path: &str, body: Option<Value>) -> (StatusCode, Option<u64>, Value) {
    let mut r = t.http.request(method, format!("{base}{path}")).bearer_auth(token);
    if let Some(body) = body {
        r = r.json(&body);
    }
    let r = r.send().await.unwrap();
    let status = r.status();
    let retry = r.headers().get("retry-after").and_then(|v| v.to_str().ok()).and_then(|v| v.parse().ok());
    let text = r.text().await.unwrap();
    (status, retry, serde_json::from_str(&text).unwrap_or(Value::String(text)))
}

fn a_call(n: usize) -> Value {
    json!({ "tool": "refund_order", "args": { "order": format!("ord-{n}"), "amount": 12.5 }, "agent": "billing-bot" })
}

#[tokio::test]
async fn an_agent_credential_past_its_burst_is_answered_429_with_retry_after_while_another_is_not() {
    let t = spawn_app().await;
    // A slow refill, so the burst is all there is within the test.
    let (base, _server) =
        serve_limited(&t, Limits { calls_per_sec: 0.01, calls_burst: 5, runs_per_sec: 0.01, runs_burst: 2, ..Limits::default() }).await;
    let (bot, other) = (t.token("bot", Role::Agent).await, t.token("other-bot", Role::Agent).await);
    for n in 0..5 {
        let (status, _, body) = ask(&t, &base, &bot, Method::POST, "/api/calls", Some(a_call(n))).await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
    }
    let (status, retry, body) = ask(&t, &base, &bot, Method::POST, "/api/calls", Some(a_call(5))).await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::TOO_MANY_REQUESTS, Some("rate_limited")), "{body}");
    let retry = retry.expect("a Retry-After header");
    assert!(retry >= 1, "{retry}");
    assert_eq!(body["details"]["retryAfterSecs"].as_u64(), Some(retry), "{body}");
    // Nothing queued for the refused request; another credential is not held back.
    assert_eq!(t.count("SELECT COUNT(*) FROM queue_items").await, 5);
    let (status, _, body) = ask(&t, &base, &other, Method::POST, "/api/calls", Some(a_call(6))).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");

    // Runs have a quota of their own, answered in the Mastra shape of those routes.
    let run = json!({ "messages": [{ "role": "user", "content": "lookup 1" }] });
    for _ in 0..2 {
        let (status, _, body) = ask(&t, &base, &bot, Method::POST, "/api/agents/demo/generate", Some(run.clone())).await;
        assert_eq!(status, StatusCode::OK, "{body}");
    }
    let (status, retry, body) = ask(&t, &base, &bot, Method::POST, "/api/agents/demo/generate", Some(run.clone())).await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::TOO_MANY_REQUESTS, Some("rate_limited")), "{body}");
    assert!(retry.is_some() && body["error"].is_string(), "{body}");
    let (status, _, body) = ask(&t, &base, &other, Method::POST, "/api/agents/demo/generate", Some(run)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
}

#[tokio::test]
async fn submitted_arguments_beyond_the_size_limit_are_refused_413_with_the_limit_in_details() {
    let t = spawn_app().await;
    let bot = t.token("bot", Role::Agent).await;
    let limit = Limits::default().max_args_bytes;
    let big = json!({ "tool": "write_file", "args": { "content": "a".repeat(limit) }, "agent": "billing-bot" });
    let (status, _, body) = ask(&t, &t.base, &bot, Method::POST, "/api/calls", Some(big)).await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::PAYLOAD_TOO_LARGE, Some("payload_too_large")), "{body}");
    assert_eq!((body["details"]["field"].as_str(), body["details"]["limit"].as_u64()), (Some("args"), Some(limit as u64)), "{body}");
    assert!(body["details"]["size"].as_u64().unwrap() > limit as u64, "{body}");
    assert_eq!(t.count("SELECT COUNT(*) FROM queue_items").await, 0);
    // Just under it is queued.
    let fits = json!({ "tool": "write_file", "args": { "content": "a".repeat(limit - 100) }, "agent": "billing-bot" });
    let (status, _, body) = ask(&t, &t.base, &bot, Method::POST, "/api/calls", Some(fits)).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
}

#[tokio::test]
async fn long_polls_and_event_streams_past_a_credentials_cap_are_answered_429_until_one_ends() {
    let t = spawn_app().await;
    let (base, _server) = serve_limited(&t, Limits { waits_per_credential: 2, streams_per_credential: 1, ..Limits::default() }).await;
    let (bot, other) = (t.token("bot", Role::Agent).await, t.token("other-bot", Role::Agent).await);
    let (_, _, call) = ask(&t, &base, &bot, Method::POST, "/api/calls", Some(a_call(1))).await;
    let id = call["id"].as_str().unwrap().to_owned();
    let poll = format!("/api/calls/{id}?waitSecs=60");
    // Three long polls at once: one of them is refused at once, the other two are held.
    let waiting: Vec<_> = (0..3)
        .map(|_| {
            let (http, url, bot) = (t.http.clone(), format!("{base}{poll}"), bot.clone());
            tokio::spawn(async move {
                let r = http.get(url).bearer_auth(bot).timeout(Duration::from_secs(90)).send().await.unwrap();
                let retry = r.headers().get("retry-after").and_then(|v| v.to_str().ok()).and_then(|v| v.parse::<u64>().ok());
                (r.status(), retry, r.json::<Value>().await.unwrap())
            })
        })
        .collect();
    let (first, _, waiting) = futures::future::select_all(waiting).await;
    let (status, retry, body) = first.unwrap();
    assert_eq!((status, body["code"].as_str()), (StatusCode::TOO_MANY_REQUESTS, Some("rate_limited")), "{body}");
    assert!(retry.is_some());
    // Reading at once is no long poll; another credential's long poll is its own.
    let (status, _, body) = ask(&t, &base, &bot, Method::GET, &format!("/api/calls/{id}"), None).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (_, _, theirs) = ask(&t, &base, &other, Method::POST, "/api/calls", Some(a_call(2))).await;
    let (status, _, body) =
        ask(&t, &base, &other, Method::GET, &format!("/api/calls/{}?waitSecs=1", theirs["id"].as_str().unwrap()), None).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    // The decision ends both long polls; their places are free again.
    let item = t.item(&id).await;
    let (status, body) = t.approve(&item).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    for w in waiting {
        let (status, _, body) = w.await.unwrap();
        assert_eq!((status, body["outcome"].as_str()), (StatusCode::OK, Some("approved")), "{body}");
    }
    let (status, _, body) = ask(&t, &base, &bot, Method::GET, &poll, None).await;
    assert_eq!((status, body["outcome"].as_str()), (StatusCode::OK, Some("approved")), "{body}");

    // One event stream per credential here: a second is refused while the first is open.
    let first = t.http.get(format!("{base}/api/events")).bearer_auth(TOKEN).send().await.unwrap();
    assert_eq!(first.status(), StatusCode::OK);
    let (status, _, body) = ask(&t, &base, TOKEN, Method::GET, "/api/events", None).await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::TOO_MANY_REQUESTS, Some("rate_limited")), "{body}");
    drop(first);
    wait::eventually(Duration::from_secs(20), "the closed stream's place came back", || async {
        t.http.get(format!("{base}/api/events")).bearer_auth(TOKEN).send().await.unwrap().status() == StatusCode::OK
    })
    .await;
}

#[tokio::test]
async fn four_megabyte_bodies_of_tiny_values_are_refused_before_parsing_and_the_server_answers() {
    let t = spawn_app().await;
    let bot = t.token("bot", Role::Agent).await;
    let zeros = format!("[{}0]", "0,".repeat(2_000_000 - 1));
    let body = format!(r#"{{"tool":"x","agent":"a","args":{zeros}}}"#);
    assert!(body.len() > 4_000_000 && body.len() < api::BODY_LIMIT);
    let sends: Vec<_> = (0..4)
        .map(|_| {
            let (http, url, bot, body) = (t.http.clone(), format!("{}/api/calls", t.base), bot.clone(), body.clone());
            tokio::spawn(async move {
                let r = http.post(url).bearer_auth(bot).header("content-type", "application/json").body(body).send().await.unwrap();
                (r.status(), r.json::<Value>().await.unwrap())
            })
        })
        .collect();
    for s in sends {
        let (status, answer) = s.await.unwrap();
        assert_eq!((status, answer["code"].as_str()), (StatusCode::PAYLOAD_TOO_LARGE, Some("payload_too_large")), "{answer}");
        assert_eq!(answer["details"]["maxValues"].as_u64(), Some(Limits::default().max_json_values as u64), "{answer}");
    }
    // The same on the engine API (Mastra's error shape), and the server still answers.
    let run = format!(r#"{{"messages":{zeros}}}"#);
    let (status, answer) = t.post_raw("/api/agents/demo/generate", run).await;
    assert_eq!((status, answer["code"].as_str()), (StatusCode::PAYLOAD_TOO_LARGE, Some("payload_too_large")), "{answer}");
    assert!(answer["error"].is_string(), "{answer}");
    let (status, health) = t.get("/api/health").await;
    assert_eq!((status, health["status"].as_str()), (StatusCode::OK, Some("ok")));
    assert_eq!(t.count("SELECT COUNT(*) FROM queue_items").await, 0);
}

#[tokio::test]
async fn an_operators_queue_page_answers_under_a_flood_of_idle_connections_and_long_polls() {
    if on_postgres() {
        // The flood is the HTTP server's; the store is not part of it.
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let bin = env!("CARGO_BIN_EXE_approval-console");
    let bot = serve_process::add_token(bin, tmp.path(), "bot", "agent");
    // As in the report: 256 open files, here as the hard limit too, so only the caps can help.
    let serve = ServeProcess::start_open_files(bin, tmp.path(), TOKEN, &["--token", TOKEN], Some(256));
    let http = reqwest::Client::builder().timeout(Duration::from_secs(90)).build().unwrap();
    let call: Value =
        http.post(format!("{}/api/calls", serve.base)).bearer_auth(&bot).json(&a_call(1)).send().await.unwrap().json().await.unwrap();
    let id = call["id"].as_str().unwrap().to_owned();

    let addr = serve.base.trim_start_matches("http://").to_owned();
    let mut idle = Vec::new();
    for _ in 0..300 {
        if let Ok(s) = tokio::net::TcpStream::connect(&addr).await {
            idle.push(s);
        }
    }
    let answered = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let polls: Vec<_> = (0..300)
        .map(|_| {
            let (http, url, bot, answered) =
                (http.clone(), format!("{}/api/calls/{id}?waitSecs=60", serve.base), bot.clone(), answered.clone());
            tokio::spawn(async move {
                let _ = http.get(url).bearer_auth(bot).send().await;
                answered.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            })
        })
        .collect();
    // The flood is in place once every long poll beyond the credential's cap was turned away.
    let cap = Limits::default().waits_per_credential;
    wait::eventually(Duration::from_secs(60), "the long polls beyond the cap were answered", || async {
        answered.load(std::sync::atomic::Ordering::SeqCst) >= 300 - cap
    })
    .await;

    let operator = reqwest::Client::builder().timeout(Duration::from_secs(30)).build().unwrap();
    let r = operator.get(format!("{}/api/queue", serve.base)).bearer_auth(TOKEN).send().await.expect("the operator's request is answered");
    assert_eq!(r.status(), StatusCode::OK);
    let page: Value = r.json().await.unwrap();
    assert_eq!(page["items"][0]["id"].as_str(), Some(id.as_str()), "{page}");
    drop(idle);
    for p in polls {
        p.abort();
    }
}
