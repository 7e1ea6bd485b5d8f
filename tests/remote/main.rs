//! Remote engines against a REAL Mastra server (issue 4): `tests/mastra-server` (pinned @mastra/core on
//! Node 22 from npm, LibSQL storage, a scripted network-free model) started per test on 127.0.0.1,
//! and the console in-process over a real SQLite file, serving its API on 127.0.0.1:0 with its
//! background work (sync loops, outbox) running as under `serve`.
//!
//! LangGraph engines (issue 17, `langgraph`) against the official LangGraph JS dev server
//! (`tests/langgraph-server`), the same way.
//!
//! Needs `npm ci --prefix tests/mastra-server` and `npm ci --prefix tests/langgraph-server`
//! (scripts/test does both).

mod decisions;
mod engines;
mod langgraph;
mod langgraph_runs;
mod outbox;
mod receipts;
mod sync;

#[path = "../support/langgraph_server.rs"]
mod langgraph_server;
#[path = "../support/mastra_server.rs"]
mod mastra_server;
#[path = "../support/wait.rs"]
mod wait;

use approval_console::api::{self, Server};
use approval_console::app::{App, Background};
use mastra_server::MastraServer;
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::time::Duration;

pub const TOKEN: &str = "remote-test-token-c7a14e9b3f2d8065a1c7e4b9d3f28016";

/// The console: app, HTTP API, background work.
pub struct Console {
    pub dir: PathBuf,
    pub app: App,
    pub server: Server,
    pub base: String,
    pub http: reqwest::Client,
    background: Option<Background>,
    serving: Option<approval_console::app::ServeLock>,
}

impl Console {
    /// A console over `dir` (fresh or existing), recovering and starting its background work like `serve`.
    pub async fn start(dir: &Path) -> Self {
        let app = App::open(dir, vec![]).await.expect("open app");
        let serving = Some(app.recover().await.expect("recover"));
        let background = app.start(None);
        let server = api::serve(app.clone(), 0, TOKEN).await.expect("serve");
        let base = format!("http://{}", server.addr);
        let http = reqwest::Client::builder().timeout(Duration::from_secs(60)).build().unwrap();
        Self { dir: dir.to_owned(), app, server, base, http, background: Some(background), serving }
    }

    /// Stops everything (as a process exit would) and closes the database.
    pub async fn stop(mut self) {
        drop(self.background.take());
        self.server.stop().await;
        self.app.testing().close().await;
        drop(self.serving.take());
    }

    pub async fn get(&self, path: &str) -> (StatusCode, Value) {
        let r = self.http.get(format!("{}{path}", self.base)).bearer_auth(TOKEN).send().await.unwrap();
        let status = r.status();
        (status, r.json().await.unwrap_or(Value::Null))
    }

    pub async fn send(&self, method: reqwest::Method, path: &str, body: Value) -> (StatusCode, Value) {
        let r = self.http.request(method, format!("{}{path}", self.base)).bearer_auth(TOKEN).json(&body).send().await.unwrap();
        let status = r.status();
        (status, r.json().await.unwrap_or(Value::Null))
    }

    pub async fn post(&self, path: &str, body: Value) -> (StatusCode, Value) {
        self.send(reqwest::Method::POST, path, body).await
    }

    /// Adds the Mastra server as engine `name`, polling every `poll_ms`.
    pub async fn add_engine(&self, name: &str, mastra: &MastraServer, poll_ms: u32) -> Value {
        let (status, body) = self.post("/api/engines", json!({ "name": name, "baseUrl": mastra.base, "pollMs": poll_ms })).await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
        body
    }

    /// Queue entries (state `pending` unless given), newest first.
    pub async fn queue(&self, query: &str) -> Vec<Value> {
        let (status, body) = self.get(&format!("/api/queue?limit=500&{query}")).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        body["items"].as_array().cloned().unwrap_or_default()
    }

    pub async fn engine(&self, name: &str) -> Value {
        let (_, list) = self.get("/api/engines").await;
        list.as_array().unwrap().iter().find(|e| e["name"] == name).cloned().unwrap_or(Value::Null)
    }

    /// Waits (up to [`WAIT`]) until exactly `n` pending entries match `pred`, and returns them.
    pub async fn wait_pending(&self, n: usize, pred: impl Fn(&Value) -> bool) -> Vec<Value> {
        wait::until(WAIT, || async {
            let now: Vec<Value> = self.queue("").await.into_iter().filter(|i| pred(i)).collect();
            if now.len() == n {
                Ok(now)
            } else {
                Err(format!("expected {n} matching pending entries, have {}: {now:#?}", now.len()))
            }
        })
        .await
    }

    /// Waits for the deliveries the console started after answering their deciders (issue 46: a
    /// decision is answered once it is committed, and delivered after that).
    pub async fn settle(&self) {
        assert!(self.app.finish_deliveries(Duration::from_secs(120)).await, "deliveries still under way after 120 s");
    }

    /// A decision's answer; answered 200, the entry it names once its delivery is over
    /// ([`Console::settle`]).
    pub async fn delivered(&self, (status, answer): (StatusCode, Value)) -> (StatusCode, Value) {
        match (status, answer["id"].as_str()) {
            (StatusCode::OK, Some(id)) => {
                self.settle().await;
                (status, self.item(id).await)
            }
            _ => (status, answer),
        }
    }

    /// POSTs a decision on `item` to `/api/queue/{id}/{verb}`: [`Console::delivered`].
    async fn decide(&self, item: &Value, verb: &str, body: Value) -> (StatusCode, Value) {
        let answered = self.post(&format!("/api/queue/{}/{verb}", item["id"].as_str().unwrap()), body).await;
        self.delivered(answered).await
    }

    pub async fn approve(&self, item: &Value) -> (StatusCode, Value) {
        self.decide(item, "approve", json!({ "fingerprint": item["fingerprint"] })).await
    }

    /// Declines `item` (as shown) with `reason`.
    pub async fn decline(&self, item: &Value, reason: &str) -> (StatusCode, Value) {
        self.decide(item, "decline", json!({ "fingerprint": item["fingerprint"], "reason": reason })).await
    }

    /// Approves `item` (as shown) with `args` in place of its own.
    pub async fn approve_edited(&self, item: &Value, args: &Value) -> (StatusCode, Value) {
        self.decide(item, "approve-edited", json!({ "fingerprint": item["fingerprint"], "args": args })).await
    }

    /// Answers `item` (as shown) with resume `data`.
    pub async fn resume(&self, item: &Value, data: Value) -> (StatusCode, Value) {
        self.decide(item, "resume", json!({ "fingerprint": item["fingerprint"], "data": data })).await
    }

    pub async fn item(&self, id: &str) -> Value {
        let (status, body) = self.get(&format!("/api/queue/{id}")).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        body
    }
}

/// How long these tests wait for something a real server or a poll loop does (see [`wait`]).
pub const WAIT: Duration = Duration::from_secs(30);

/// A Mastra server and a console with it added as engine `m` (polling every 200 ms).
pub async fn setup(token: Option<&str>) -> (tempfile::TempDir, MastraServer, Console) {
    let tmp = tempfile::tempdir().unwrap();
    let mastra_dir = tmp.path().join("mastra");
    std::fs::create_dir_all(&mastra_dir).unwrap();
    let mastra = MastraServer::start(&mastra_dir, token);
    let console = Console::start(&tmp.path().join("console")).await;
    console.add_engine("m", &mastra, 200).await;
    (tmp, mastra, console)
}

/// The executions of tool `tool` in the server's log (not the calls its receipt check refused).
pub fn ran(mastra: &MastraServer, tool: &str) -> Vec<Value> {
    mastra.tools_ran().into_iter().filter(|t| t["tool"] == tool && t.get("refused").is_none()).collect()
}
