//! MCP servers as tools of a local agent (`[[agents.mcp]]`), loaded through `agents.toml` and run in
//! the local engine with a scripted model: against the real `@modelcontextprotocol/server-filesystem`
//! (pinned in tests/mcp/package.json; `npm ci` there, as scripts/test does) and against
//! `misbehaving-server.mjs`, a tiny stdio server that crashes, hangs or refuses to start on purpose.
//! Needs `node` (20 or newer) on PATH.

mod channel;
mod channel_join;
mod crash_loop;
mod die_with_console;
mod failures;
#[allow(dead_code)]
#[path = "../openai/fake_server.rs"]
mod fake_server;
mod filesystem;
mod gate;
mod modern;
#[path = "../support/serve_process.rs"]
mod serve_process;
mod settings;
mod slow_model;
#[path = "../support/wait.rs"]
mod wait;

use approval_console::app::query::{QueueQuery, SortOrder};
use approval_console::app::queue::QueueItem;
use approval_console::app::App;
use approval_console::config::{parse_agents, ConfigError};
use approval_console::domain::{AgentId, Error, RunId, Verdict};
use approval_console::engine::local::agent::{Agent, Message, Model, ModelTurn, ProposedCall, ToolSpec};
use approval_console::engine::local::model::ApiKey;
use approval_console::engine::local::{RunOptions, RunRequest};
use async_trait::async_trait;
use serde_json::Value;
use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// The id of every test agent.
pub const AGENT: &str = "files";

fn tests_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp")
}

/// The filesystem server's entry point, or a panic saying how to install it.
pub fn filesystem_server() -> PathBuf {
    let js = tests_dir().join("node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");
    assert!(
        js.is_file(),
        "{} is missing: run `npm ci` in tests/mcp (scripts/test does) to install @modelcontextprotocol/server-filesystem",
        js.display()
    );
    js
}

/// `node` on PATH, checked once with a clear message.
pub fn node() -> &'static str {
    static CHECKED: std::sync::Once = std::sync::Once::new();
    CHECKED.call_once(|| {
        let version = std::process::Command::new("node").arg("--version").output();
        let ok = version.as_ref().map(|o| o.status.success()).unwrap_or(false);
        assert!(ok, "the MCP tests need `node` (20 or newer) on PATH: {version:?}");
    });
    "node"
}

/// A TOML string literal.
pub fn quoted(s: impl AsRef<str>) -> String {
    toml::Value::String(s.as_ref().to_owned()).to_string()
}

/// An `[[agents.mcp]]` entry running the filesystem server on `root`.
pub fn filesystem_entry(name: &str, root: &Path, timeout_secs: u64) -> String {
    format!(
        "[[agents.mcp]]\nname = {}\ncommand = {}\nargs = [{}, {}]\ntimeout_secs = {timeout_secs}\n",
        quoted(name),
        quoted(node()),
        quoted(filesystem_server().to_string_lossy()),
        quoted(root.to_string_lossy()),
    )
}

/// An `[[agents.mcp]]` entry running `misbehaving-server.mjs` with these arguments.
pub fn misbehaving_entry(name: &str, args: &[&str], timeout_secs: u64) -> String {
    let script = tests_dir().join("misbehaving-server.mjs");
    let mut all = vec![quoted(script.to_string_lossy())];
    all.extend(args.iter().map(quoted));
    format!(
        "[[agents.mcp]]\nname = {}\ncommand = {}\nargs = [{}]\ntimeout_secs = {timeout_secs}\n",
        quoted(name),
        quoted(node()),
        all.join(", ")
    )
}

/// Parses an agents file as `serve` would (no keyring: no key references in these files).
pub async fn load(text: &str) -> Result<Vec<Agent>, ConfigError> {
    parse_agents(Path::new("agents.toml"), text, |name: String| async move {
        Err::<ApiKey, _>(format!("no keyring in these tests (asked for {name})"))
    })
    .await
}

/// What the scripted model saw at one step.
#[derive(Clone, Debug)]
pub struct Seen {
    pub messages: Vec<Message>,
    pub tools: Vec<ToolSpec>,
}

/// A model that answers from a script, one turn per step ("done" once the script is used up), and
/// records what it was shown.
pub struct Scripted {
    turns: Mutex<VecDeque<ModelTurn>>,
    seen: Arc<Mutex<Vec<Seen>>>,
}

impl Scripted {
    pub fn new(turns: Vec<ModelTurn>) -> (Self, Arc<Mutex<Vec<Seen>>>) {
        let seen = Arc::new(Mutex::new(Vec::new()));
        (Self { turns: Mutex::new(turns.into()), seen: seen.clone() }, seen)
    }
}

#[async_trait]
impl Model for Scripted {
    fn id(&self) -> String {
        "test/scripted".into()
    }
    async fn step(&self, messages: &[Message], tools: &[ToolSpec]) -> Result<ModelTurn, Error> {
        self.seen.lock().unwrap().push(Seen { messages: messages.to_vec(), tools: tools.to_vec() });
        let next = self.turns.lock().unwrap().pop_front();
        Ok(next.unwrap_or_else(|| ModelTurn { text: "done".into(), tool_calls: vec![] }))
    }
}

/// A model turn calling these tools (`call_1`, `call_2`, …).
pub fn calls(list: &[(&str, Value)]) -> ModelTurn {
    let tool_calls = list
        .iter()
        .enumerate()
        .map(|(i, (name, args))| ProposedCall { tool_call_id: format!("call_{}", i + 1), tool_name: (*name).into(), args: args.clone() })
        .collect();
    ModelTurn { text: String::new(), tool_calls }
}

/// The one agent of `text`, on a scripted model.
pub async fn agent(text: &str, script: Vec<ModelTurn>) -> (Agent, Arc<Mutex<Vec<Seen>>>) {
    let mut agents = load(text).await.unwrap_or_else(|e| panic!("agents.toml: {e}"));
    assert_eq!(agents.len(), 1);
    let mut agent = agents.remove(0);
    let (model, seen) = Scripted::new(script);
    agent.model = Arc::new(model);
    (agent, seen)
}

pub fn request(text: &str) -> RunRequest {
    RunRequest {
        agent_id: AgentId::new(AGENT),
        messages: vec![Message::User { content: text.into() }],
        thread_id: None,
        resource_id: None,
        options: RunOptions::default(),
        run_id: Default::default(),
        started_by: None,
    }
}

/// Starts a run as the local admin (as an embedder would); it must end (finished or paused) within
/// `limit`.
pub async fn run(app: &App, text: &str, limit: std::time::Duration) -> RunId {
    tokio::time::timeout(limit, app.send(request(text), false, None, &app.local_admin("test")))
        .await
        .unwrap_or_else(|_| panic!("the run did not finish or pause within {limit:?}"))
        .expect("the run starts")
}

/// The calls of a run waiting for a decision, the first paused first.
pub async fn waiting(app: &App, run_id: &RunId) -> Vec<QueueItem> {
    let query = QueueQuery { run: Some(run_id.to_string()), sort: Some(SortOrder::Oldest), ..Default::default() };
    app.queue_page(&query, &app.local_admin("test")).await.unwrap().items
}

/// Decides a pending call with the fingerprint the console shows.
pub async fn decide(app: &App, id: &str, verdict: Verdict) -> QueueItem {
    let admin = app.local_admin::<approval_console::domain::grade::Local>("test");
    let shown = app.queue_item(id, &admin.narrow()).await.unwrap();
    app.decide_shown(id, verdict, shown.fingerprint.as_str(), &admin.narrow()).await.unwrap();
    // Answered once committed (issue 46): the entry once its delivery and the run after it are over.
    assert!(app.finish_deliveries(std::time::Duration::from_secs(120)).await);
    app.queue_item(id, &admin.narrow()).await.unwrap()
}

/// The results the model was handed, by tool call id, at its last step.
pub fn tool_results(seen: &Arc<Mutex<Vec<Seen>>>) -> Vec<(String, Value)> {
    let seen = seen.lock().unwrap();
    let last = seen.last().expect("the model was asked");
    last.messages
        .iter()
        .filter_map(|m| match m {
            Message::Tool { tool_call_id, content, .. } => Some((tool_call_id.clone(), content.clone())),
            _ => None,
        })
        .collect()
}

/// A tool result as text (a JSON string's value, else the JSON).
pub fn text(v: &Value) -> String {
    v.as_str().map(str::to_owned).unwrap_or_else(|| v.to_string())
}

/// Everything in `dir`, sorted.
pub fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    names
}
