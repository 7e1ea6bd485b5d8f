//! `spawn_app()` (or `TestApp::builder()`): a real server on 127.0.0.1:0 over a fresh SQLite file, plus a client for it.

use approval_console::api::{self, Server};
use approval_console::app::App;
use approval_console::engine::local::agent::{Agent, Tool, ToolOutput};
use approval_console::engine::local::demo;
use async_trait::async_trait;
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

#[path = "../support/postgres.rs"]
pub mod postgres;
#[path = "../support/recording_server.rs"]
mod recording;
#[path = "../support/serve_process.rs"]
pub mod serve_process;
#[path = "../support/wait.rs"]
pub mod wait;
pub use recording::{answering_server, recording_server};
pub use serve_process::{read_until, ServeProcess};

pub const TOKEN: &str = "test-token-3f9c1a7e5d2b8046c1e9a3f7b5d20c84";

/// How many times each counting tool ran.
#[derive(Clone, Default)]
pub struct Counters {
    pub delete: Arc<AtomicUsize>,
    pub lookup: Arc<AtomicUsize>,
}

impl Counters {
    pub fn deletes(&self) -> usize {
        self.delete.load(Ordering::SeqCst)
    }
    pub fn lookups(&self) -> usize {
        self.lookup.load(Ordering::SeqCst)
    }
}

/// A tool that wraps a demo tool and counts its executions.
struct Counting {
    inner: Arc<dyn Tool>,
    count: Arc<AtomicUsize>,
}

#[async_trait]
impl Tool for Counting {
    fn name(&self) -> &str {
        self.inner.name()
    }
    fn description(&self) -> &str {
        self.inner.description()
    }
    fn input_schema(&self) -> Value {
        self.inner.input_schema()
    }
    fn require_approval(&self) -> bool {
        self.inner.require_approval()
    }
    fn idempotent(&self) -> bool {
        self.inner.idempotent()
    }
    fn suspend_schema(&self) -> Option<Value> {
        self.inner.suspend_schema()
    }
    fn resume_schema(&self) -> Option<Value> {
        self.inner.resume_schema()
    }
    async fn execute(&self, args: &Value, resume: Option<&Value>) -> Result<ToolOutput, String> {
        self.count.fetch_add(1, Ordering::SeqCst);
        self.inner.execute(args, resume).await
    }
}

/// The demo agent, with its delete and lookup tools counting their executions.
pub fn counting_demo(counters: &Counters) -> Agent {
    let mut agent = demo::agent();
    agent.tools = agent
        .tools
        .into_iter()
        .map(|t| -> Arc<dyn Tool> {
            match t.name() {
                "delete_record" => Arc::new(Counting { inner: t, count: counters.delete.clone() }),
                "lookup_record" => Arc::new(Counting { inner: t, count: counters.lookup.clone() }),
                _ => t,
            }
        })
        .collect();
    agent
}

pub struct TestApp {
    pub dir: PathBuf,
    _tmp: Option<tempfile::TempDir>,
    pub app: App,
    pub server: Server,
    pub base: String,
    pub http: reqwest::Client,
    pub counters: Counters,
    /// This "process" serves `dir` (see `App::recover`); released by `stop`.
    serving: Option<approval_console::app::ServeLock>,
}

/// The database of a test's data directory: its SQLite file, or with
/// `APPROVAL_CONSOLE_TEST_DATABASE=postgres` a PostgreSQL database of its own on the test cluster
/// (its URL kept in the directory, so a restart over the directory finds the same database; a
/// directory whose SQLite file a test made itself stays on that file).
pub async fn test_database(dir: &Path) -> approval_console::store::Location {
    // A test that made a SQLite file itself (an old schema) stays on it.
    let own_file = dir.join(approval_console::store::DB_FILE).exists() && !dir.join("test-database-url").exists();
    if !on_postgres() || own_file {
        return approval_console::store::Location::new(dir, None).unwrap();
    }
    let file = dir.join("test-database-url");
    let url = match std::fs::read_to_string(&file) {
        Ok(url) => url,
        Err(_) => {
            let url = postgres::database().await;
            std::fs::create_dir_all(dir).unwrap();
            std::fs::write(&file, &url).unwrap();
            url
        }
    };
    approval_console::store::Location::Postgres(url)
}

/// Whether the tests run on PostgreSQL (`APPROVAL_CONSOLE_TEST_DATABASE=postgres`): the few tests
/// about SQLite itself (its file, its locks, its triggers) return early there.
pub fn on_postgres() -> bool {
    std::env::var("APPROVAL_CONSOLE_TEST_DATABASE").as_deref() == Ok("postgres")
}

/// A fresh data directory, the counting demo agent, a server on a free port: `TestApp::builder().spawn()`.
pub async fn spawn_app() -> TestApp {
    TestApp::builder().spawn().await
}

/// How to start a [`TestApp`]: by default over a fresh data directory (kept until the app is
/// dropped), with fresh counters and the counting demo agent alone.
#[derive(Default)]
pub struct Builder {
    dir: Option<PathBuf>,
    counters: Counters,
    agents: Option<fn(&Counters) -> Vec<Agent>>,
    port: u16,
}

impl Builder {
    /// Over an existing data directory, which the caller keeps: a restart (recovering like `serve`
    /// does), or a directory the test made.
    pub fn dir(mut self, dir: &Path) -> Self {
        self.dir = Some(dir.to_owned());
        self
    }

    /// With these counters (a restart: the tools of the app before go on counting).
    pub fn counters(mut self, counters: Counters) -> Self {
        self.counters = counters;
        self
    }

    /// Served on `port` (a restart where a client keeps the address) instead of a free one.
    pub fn port(mut self, port: u16) -> Self {
        self.port = port;
        self
    }

    /// More agents beside the counting demo agent, built with the app's counters.
    pub fn agents(mut self, extra: fn(&Counters) -> Vec<Agent>) -> Self {
        self.agents = Some(extra);
        self
    }

    /// Opens the app, recovers like `serve` does, and serves its API on a free port.
    pub async fn spawn(self) -> TestApp {
        let (tmp, dir) = match self.dir {
            Some(dir) => (None, dir),
            None => {
                let tmp = tempfile::tempdir().expect("temp dir");
                let dir = tmp.path().to_owned();
                (Some(tmp), dir)
            }
        };
        let counters = self.counters;
        let mut agents = vec![counting_demo(&counters)];
        if let Some(extra) = self.agents {
            agents.extend(extra(&counters));
        }
        let app = App::open_at(&dir, test_database(&dir).await, agents).await.expect("open app");
        let serving = Some(app.recover().await.expect("recover"));
        // `serve` serves while the runs a stop left `running` go on in tasks of their own; these tests
        // look at what recovery did, so they start once those runs have paused or ended.
        assert!(app.finish_deliveries(Duration::from_secs(120)).await, "recovered runs still going after 120 s");
        let server = api::serve(app.clone(), self.port, TOKEN).await.expect("serve");
        let base = format!("http://{}", server.addr);
        let http = reqwest::Client::builder().timeout(Duration::from_secs(30)).build().unwrap();
        TestApp { dir, _tmp: tmp, app, server, base, http, counters, serving }
    }
}

impl TestApp {
    /// How to start one (see [`Builder`]).
    pub fn builder() -> Builder {
        Builder::default()
    }

    /// Stops the server and hands back the data directory (kept alive) for a restart.
    pub async fn stop(self) -> (PathBuf, Option<tempfile::TempDir>, Counters) {
        self.server.stop().await;
        self.app.testing().close().await;
        drop(self.serving);
        (self.dir, self._tmp, self.counters)
    }

    pub async fn get(&self, path: &str) -> (StatusCode, Value) {
        let r = self.http.get(format!("{}{path}", self.base)).bearer_auth(TOKEN).send().await.unwrap();
        let status = r.status();
        (status, r.json().await.unwrap_or(Value::Null))
    }

    pub async fn post(&self, path: &str, body: Value) -> (StatusCode, Value) {
        let r = self.http.post(format!("{}{path}", self.base)).bearer_auth(TOKEN).json(&body).send().await.unwrap();
        let status = r.status();
        let text = r.text().await.unwrap();
        (status, serde_json::from_str(&text).unwrap_or(Value::String(text)))
    }

    pub async fn put(&self, path: &str, body: Value) -> (StatusCode, Value) {
        let r = self.http.put(format!("{}{path}", self.base)).bearer_auth(TOKEN).json(&body).send().await.unwrap();
        let status = r.status();
        (status, r.json().await.unwrap_or(Value::Null))
    }

    /// The audit actions of one queue entry, oldest first.
    pub async fn actions_of(&self, id: &str) -> Vec<String> {
        let (_, audit) = self.get(&format!("/api/audit?item={id}")).await;
        audit["entries"].as_array().unwrap().iter().rev().map(|e| e["action"].as_str().unwrap().to_owned()).collect()
    }

    /// POST with a raw body.
    pub async fn post_raw(&self, path: &str, body: impl Into<reqwest::Body>) -> (StatusCode, Value) {
        let r = self
            .http
            .post(format!("{}{path}", self.base))
            .bearer_auth(TOKEN)
            .header("content-type", "application/json")
            .body(body)
            .send()
            .await
            .unwrap();
        let status = r.status();
        (status, r.json().await.unwrap_or(Value::Null))
    }

    /// `generate` on the demo agent with one user message; asserts 200.
    pub async fn generate(&self, text: &str) -> Value {
        self.generate_with(json!({ "messages": [{ "role": "user", "content": text }] })).await
    }

    /// `generate` on another agent; asserts 200.
    pub async fn generate_with_agent(&self, agent: &str, body: Value) -> Value {
        let (status, answer) = self.post(&format!("/api/agents/{agent}/generate"), body).await;
        assert_eq!(status, StatusCode::OK, "{answer}");
        answer
    }

    pub async fn generate_with(&self, body: Value) -> Value {
        let (status, answer) = self.post("/api/agents/demo/generate", body).await;
        assert_eq!(status, StatusCode::OK, "{answer}");
        answer
    }

    /// The pending queue, newest first.
    pub async fn pending(&self) -> Vec<Value> {
        let (status, page) = self.get("/api/queue").await;
        assert_eq!(status, StatusCode::OK, "{page}");
        page["items"].as_array().unwrap().clone()
    }

    /// The demo agent told `text` (`delete <id>`) in a run started by `token` (an agent's, unless a
    /// test says otherwise): the pending call.
    pub async fn paused_by(&self, token: &str, text: &str) -> Value {
        let (status, answer) = self
            .call_as(
                token,
                reqwest::Method::POST,
                "/api/agents/demo/generate",
                Some(serde_json::json!({ "messages": [{ "role": "user", "content": text }] })),
            )
            .await;
        assert_eq!(status, StatusCode::OK, "{answer}");
        self.pending_call(answer["runId"].as_str().unwrap(), "call_1").await
    }

    /// The single pending entry of a run's call.
    pub async fn pending_call(&self, run_id: &str, tool_call_id: &str) -> Value {
        let (_, page) = self.get(&format!("/api/queue?run={run_id}")).await;
        page["items"]
            .as_array()
            .unwrap()
            .iter()
            .find(|i| i["toolCallId"] == tool_call_id)
            .unwrap_or_else(|| panic!("no pending {tool_call_id} in {page}"))
            .clone()
    }

    pub async fn item(&self, id: &str) -> Value {
        let (status, item) = self.get(&format!("/api/queue/{id}")).await;
        assert_eq!(status, StatusCode::OK, "{item}");
        item
    }

    /// Waits for what the console set going after answering a decision: its delivery, and the run
    /// that goes on after it (issue 46: a decision is answered once it is committed).
    pub async fn settle(&self) {
        assert!(self.app.finish_deliveries(Duration::from_secs(120)).await, "deliveries still under way after 120 s");
    }

    /// Entry `id` once its delivery and the run after it are over ([`TestApp::settle`]).
    pub async fn settled(&self, id: &str) -> Value {
        self.settle().await;
        self.item(id).await
    }

    /// A decision's answer, and when it is 200 (a decision made, not an approval short of a quorum:
    /// 202) the entry it names once delivered ([`TestApp::settled`]).
    pub async fn delivered(&self, (status, answer): (StatusCode, Value)) -> (StatusCode, Value) {
        match (status, answer["id"].as_str()) {
            (StatusCode::OK, Some(id)) => (status, self.settled(id).await),
            _ => (status, answer),
        }
    }

    /// POSTs a decision on `item` to `/api/queue/{id}/{verb}`: [`TestApp::delivered`].
    async fn decide(&self, item: &Value, verb: &str, body: Value) -> (StatusCode, Value) {
        let id = item["id"].as_str().unwrap();
        let answered = self.post(&format!("/api/queue/{id}/{verb}"), body).await;
        self.delivered(answered).await
    }

    pub async fn approve(&self, item: &Value) -> (StatusCode, Value) {
        self.decide(item, "approve", json!({ "fingerprint": item["fingerprint"] })).await
    }

    pub async fn decline(&self, item: &Value, reason: &str) -> (StatusCode, Value) {
        self.decide(item, "decline", json!({ "fingerprint": item["fingerprint"], "reason": reason })).await
    }

    pub async fn resume(&self, item: &Value, data: Value) -> (StatusCode, Value) {
        self.decide(item, "resume", json!({ "fingerprint": item["fingerprint"], "data": data })).await
    }

    /// Posts to a Mastra SSE route and returns its chunks (without `[DONE]`).
    pub async fn sse(&self, path: &str, body: Value) -> Vec<Value> {
        let r = self.http.post(format!("{}{path}", self.base)).bearer_auth(TOKEN).json(&body).send().await.unwrap();
        assert_eq!(r.status(), StatusCode::OK, "{path}");
        assert!(r.headers()["content-type"].to_str().unwrap().starts_with("text/event-stream"));
        let text = r.text().await.unwrap();
        let mut chunks = Vec::new();
        let mut done = false;
        for line in text.lines() {
            if let Some(data) = line.strip_prefix("data: ") {
                if data == "[DONE]" {
                    done = true;
                } else {
                    chunks.push(serde_json::from_str(data).unwrap());
                }
            }
        }
        assert!(done, "stream did not end with [DONE]: {text}");
        chunks
    }

    /// Keeps `tmp` (the data directory `stop` handed back) until this app is dropped.
    pub fn keep(&mut self, tmp: Option<tempfile::TempDir>) {
        self._tmp = tmp;
    }

    /// A stored credential with `role`; returns its token.
    pub async fn token(&self, name: &str, role: approval_console::domain::Role) -> String {
        self.app.add_token(name, role, &self.app.local_admin("test")).await.expect("add token").secret
    }

    /// A request with another bearer token: `(status, body)`.
    pub async fn call_as(&self, token: &str, method: reqwest::Method, path: &str, body: Option<Value>) -> (StatusCode, Value) {
        let mut r = self.http.request(method, format!("{}{path}", self.base)).bearer_auth(token);
        if let Some(body) = body {
            r = r.json(&body);
        }
        let r = r.send().await.unwrap();
        let status = r.status();
        let text = r.text().await.unwrap();
        (status, serde_json::from_str(&text).unwrap_or(Value::String(text)))
    }

    /// Rows of a SQL count on the app's database.
    pub async fn count(&self, sql: &str) -> i64 {
        approval_console::store::testing::count(self.app.testing().db(), sql).await.unwrap()
    }
}

/// The text of the `finish` chunk of a stream.
pub fn finish_text(chunks: &[Value]) -> Option<String> {
    chunks.iter().find(|c| c["type"] == "finish").map(|c| c["payload"]["output"]["text"].as_str().unwrap_or_default().to_owned())
}

/// The real CLI over the data directory `dir` (and its test database), stdin closed.
pub fn cli(dir: &Path, args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_approval-console"))
        .arg("--data-dir")
        .arg(dir)
        .args(args)
        .envs(serve_process::database_env(dir))
        .env("APPROVAL_CONSOLE_LOG", "warn")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap()
}

/// `c` with no console to find (an empty registry of serving consoles, no address or data
/// directory named): `hooks install` and the hooks then name no console of their own, whatever
/// other tests serve meanwhile.
pub fn nothing_serving(c: &mut std::process::Command) -> &mut std::process::Command {
    c.env("XDG_RUNTIME_DIR", "/nonexistent/approval-console-tests/no-console-serves")
        .env_remove("APPROVAL_CONSOLE_URL")
        .env_remove("APPROVAL_CONSOLE_DATA_DIR")
}

/// What a process printed, stdout then stderr.
pub fn text_of(o: &std::process::Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}
