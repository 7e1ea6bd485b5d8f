//! MCP servers as tools of a local agent: each server an agent declares (`[[agents.mcp]]` in
//! `agents.toml`) is a child process spoken to over stdio with the official Rust SDK (`rmcp`). At
//! load the server is started, initialized and asked for its tools; each becomes a [`Tool`] whose
//! `execute` is a `tools/call`. Approval works as for any tool: the agent's `[agents.approval]`
//! flags and rules see the MCP tools by name.
//!
//! **Names.** A tool keeps the name its server gives it. A name already taken in the agent (by a
//! built-in tool or by a tool of a server declared earlier) becomes `<server>_<tool>`; if that is
//! taken too the agent does not load. Declaring one more server therefore never renames the tools
//! of the servers before it (approval rules written for them keep matching).
//!
//! **Results.** A result's `structuredContent` when the server gives one, else its text items joined
//! with newlines (as a JSON string); `isError: true` is a tool error with that text.
//!
//! **Failures never hang a run.** Every request (initialize, list, call) is bounded by the server's
//! `timeout_secs` (and a call also by the engine's own limit on any tool). A server that exits
//! during a call fails that call with its exit status and the tail of its stderr; the call is never
//! sent again (it may have had effects), unless it could not even be written to the pipe. The next
//! call finds the server dead and starts it again, once per call; if that fails the call says the
//! server is not running, why it stopped and why it did not start. A call that timed out leaves the
//! server running (slow is not dead); the server is told the request was cancelled.
//!
//! **Processes.** A server runs in its own process group (so `npx` and the node it starts are one
//! unit). When its [`McpServer`] is dropped the MCP stdio shutdown follows: stdin closed, up to 2 s
//! to exit, SIGTERM to the group, up to 2 s more, SIGKILL.

use super::agent::{Tool, ToolOutput};
use async_trait::async_trait;
use process_wrap::tokio::{CommandWrap, KillOnDrop, ProcessGroup};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ClientCapabilities, ClientConfig, ContentBlock, ElicitationCapability,
    FormElicitationCapability, Implementation, InputRequiredResult, InputResponses, ProtocolVersion, ResourceContents,
};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RunningService, ServiceError};
use rmcp::RoleClient;
use serde_json::Value;
use std::collections::{BTreeMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{oneshot, watch};

/// Default of `timeout_secs`: how long one request to a server may take.
pub const DEFAULT_TIMEOUT_SECS: u64 = 60;
/// Lines of a server's stderr kept for error messages.
const STDERR_LINES: usize = 20;
/// Longest stderr line kept, in characters.
const STDERR_LINE_CHARS: usize = 300;
/// How long a failed server gets to be seen exiting before an error is written without its status.
const EXIT_GRACE: Duration = Duration::from_millis(1000);
/// Each step of the shutdown sequence (stdin closed → SIGTERM → SIGKILL) waits this long.
const SHUTDOWN_STEP: Duration = Duration::from_secs(2);
const SIGTERM: i32 = 15;

/// What a server gets of the console's own environment (its config adds the rest).
const PASSED_ON: [&str; 3] = ["PATH", "HOME", "LANG"];

/// One stdio MCP server as an agent declares it. Its `Debug` shows the environment's names only:
/// values may come from the OS keyring (`env_refs`, C7).
#[derive(Clone, PartialEq)]
pub struct ServerConfig {
    /// Letters, digits, `-`, `_`; unique within the agent. Names the server in errors and prefixes
    /// its tools' names when they clash.
    pub name: String,
    /// The program, found on `PATH` like a shell would.
    pub command: String,
    pub args: Vec<String>,
    /// The server's environment, with `PATH`, `HOME` and `LANG` passed on from the console's own:
    /// nothing else of the console's environment (tokens included) reaches a server.
    pub env: BTreeMap<String, String>,
    /// Limit of each request: starting (initialize, tool list) and every call.
    pub timeout: Duration,
    /// Whether the client says it answers forms (elicitation): the MCP gate does, through the
    /// console ([`McpServer::call_round`]); an agent's tools do not.
    pub answers_forms: bool,
}

impl std::fmt::Debug for ServerConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerConfig")
            .field("name", &self.name)
            .field("command", &self.command)
            .field("args", &self.args)
            .field("env", &self.env.keys().collect::<Vec<_>>())
            .field("timeout", &self.timeout)
            .finish()
    }
}

impl ServerConfig {
    pub fn new(name: impl Into<String>, command: impl Into<String>, args: impl IntoIterator<Item = impl Into<String>>) -> Self {
        Self {
            name: name.into(),
            command: command.into(),
            args: args.into_iter().map(Into::into).collect(),
            env: BTreeMap::new(),
            timeout: Duration::from_secs(DEFAULT_TIMEOUT_SECS),
            answers_forms: false,
        }
    }
}

/// A running MCP server of one agent, restarted on demand. Cheap to share (`Arc`); dropping the last
/// handle stops the process.
pub struct McpServer {
    agent: String,
    config: ServerConfig,
    /// The current process; replaced when a call finds it dead. Held only to check or restart, never
    /// across a call, so calls run concurrently.
    process: tokio::sync::Mutex<Option<Arc<Process>>>,
    /// Why the last process stopped, kept for the "not running" error after a failed restart.
    last_exit: Mutex<Option<String>>,
}

/// An MCP tool, as the agent's model sees it.
pub struct McpTool {
    server: Arc<McpServer>,
    /// The name in the agent: the server's name for it, or `<server>_<tool>` on a clash.
    name: String,
    /// The server's name for it, sent in `tools/call`.
    remote_name: String,
    description: String,
    input_schema: Value,
}

impl McpServer {
    /// Starts the server, initializes it and lists its tools (each request bounded by the
    /// configured timeout). `agent` only names the owner in messages. The error says what failed,
    /// with the exit status and the tail of stderr when the process died.
    pub async fn start(agent: &str, config: ServerConfig) -> Result<(Arc<Self>, Vec<rmcp::model::Tool>), String> {
        let (process, tools) = Process::start(&config).await?;
        let server = Arc::new(Self {
            agent: agent.to_owned(),
            config,
            process: tokio::sync::Mutex::new(Some(Arc::new(process))),
            last_exit: Mutex::new(None),
        });
        Ok((server, tools))
    }

    pub fn name(&self) -> &str {
        &self.config.name
    }

    /// The running process, started again (once) if it is dead or is `failed` (one that could not
    /// be written to, though its exit may not have been seen yet).
    async fn running(&self, failed: Option<&Arc<Process>>) -> Result<Arc<Process>, String> {
        let mut slot = self.process.lock().await;
        if let Some(process) = slot.as_ref() {
            let is_failed = failed.is_some_and(|f| Arc::ptr_eq(f, process));
            if !is_failed && process.signs.exit_status().is_none() && !process.service.is_transport_closed() {
                return Ok(process.clone());
            }
            let why = process.signs.wait_exit(EXIT_GRACE).await.unwrap_or_else(|| "its pipes closed".into());
            *self.last_exit.lock().expect("not poisoned") = Some(why);
        }
        *slot = None;
        let why = self.last_exit.lock().expect("not poisoned").clone().unwrap_or_else(|| "stopped".into());
        match Process::start(&self.config).await {
            Ok((process, _tools)) => {
                tracing::warn!(agent = %self.agent, server = %self.config.name, "MCP server had stopped ({why}); started it again");
                let process = Arc::new(process);
                *slot = Some(process.clone());
                Ok(process)
            }
            Err(e) => Err(format!("MCP server {:?} is not running ({why}) and did not start again: {e}", self.config.name)),
        }
    }

    /// One `tools/call`: the result as [`McpTool::execute`] hands it on, or a tool error. A call
    /// that may have reached the server is never sent again (it may have had effects); one that
    /// could not even be written (the server had just died) is sent once more to a fresh server.
    pub async fn call(&self, tool: &str, args: &Value) -> Result<Value, String> {
        result_value(self.call_raw(tool, args).await?)
    }

    /// [`McpServer::call`] with the server's result as it answered it (the MCP gate passes it on).
    /// A server that asks for input (`input_required`, MCP 2026-07-28) fails the call: nobody here
    /// can answer it (the gate answers through [`McpServer::call_round`]).
    pub async fn call_raw(&self, tool: &str, args: &Value) -> Result<CallToolResult, String> {
        match self.call_round(tool, args, None).await? {
            Round::Complete(result) => Ok(result),
            Round::InputRequired(_) => Err(format!(
                "MCP server {:?} asked for input before it would run {tool} (input_required), and nothing here can answer it",
                self.config.name
            )),
        }
    }

    /// One round of a `tools/call`: the result, or the server's request for input
    /// (`input_required`, MCP 2026-07-28) — which the caller answers by calling again with
    /// `answer`: the responses and the `requestState` the server sent, echoed as it was.
    pub async fn call_round(&self, tool: &str, args: &Value, answer: Option<(InputResponses, Option<String>)>) -> Result<Round, String> {
        let arguments = match args {
            Value::Object(map) => Some(map.clone()),
            Value::Null => None,
            other => return Err(format!("arguments must be a JSON object, got {other}")),
        };
        let mut params = CallToolRequestParams::new(tool.to_owned());
        params.arguments = arguments;
        if let Some((responses, state)) = answer {
            params.input_responses = Some(responses);
            params.request_state = state;
        }
        let mut process = self.running(None).await?;
        // Dropping the request on timeout sends `notifications/cancelled` to the server.
        let mut answer = tokio::time::timeout(self.config.timeout, process.service.call_tool_once(params.clone())).await;
        if let Ok(Err(ServiceError::TransportSend(e))) = &answer {
            tracing::warn!(server = %self.config.name, "could not send {tool} to the MCP server ({e}); starting it again");
            process = self.running(Some(&process)).await?;
            answer = tokio::time::timeout(self.config.timeout, process.service.call_tool_once(params)).await;
        }
        let name = &self.config.name;
        match answer {
            Err(_) => Err(format!("MCP server {name:?} did not answer within {} (timeout_secs)", seconds(self.config.timeout))),
            Ok(Ok(CallToolResponse::Complete(result))) => Ok(Round::Complete(result)),
            Ok(Ok(CallToolResponse::InputRequired(asked))) => Ok(Round::InputRequired(asked)),
            Ok(Ok(_)) | Ok(Err(ServiceError::UnexpectedResponse)) => {
                Err(format!("MCP server {name:?} answered with something other than a tool result (tasks are not supported)"))
            }
            Ok(Err(ServiceError::McpError(e))) => {
                Err(format!("MCP server {name:?} refused the call: {} (JSON-RPC error {})", e.message, e.code.0))
            }
            Ok(Err(e)) => match process.signs.wait_exit(EXIT_GRACE).await {
                Some(status) => Err(format!("MCP server {name:?} exited during the call ({status}){}", process.signs.stderr_tail())),
                None => Err(format!("MCP server {name:?}: {e}{}", process.signs.stderr_tail())),
            },
        }
    }
}

/// What one round of a `tools/call` answered ([`McpServer::call_round`]).
#[derive(Debug)]
pub enum Round {
    Complete(CallToolResult),
    /// The server needs input first (MCP 2026-07-28's multi-round-trip requests).
    InputRequired(InputRequiredResult),
}

impl McpTool {
    /// The tools of `server` under their names in an agent: `taken` holds the names already used
    /// there and gets these added (see the module doc for the rule). Errors name the clash.
    pub fn named(server: &Arc<McpServer>, tools: Vec<rmcp::model::Tool>, taken: &mut HashSet<String>) -> Result<Vec<McpTool>, String> {
        let mut out = Vec::with_capacity(tools.len());
        for tool in tools {
            let remote_name = tool.name.to_string();
            let name = if taken.contains(&remote_name) {
                let prefixed = format!("{}_{remote_name}", server.name());
                if taken.contains(&prefixed) {
                    return Err(format!(
                        "tool {remote_name:?} of MCP server {:?} clashes with another tool, and so does {prefixed:?}",
                        server.name()
                    ));
                }
                tracing::info!(server = %server.name(), tool = %remote_name, "MCP tool name taken in the agent; named {prefixed}");
                prefixed
            } else {
                remote_name.clone()
            };
            taken.insert(name.clone());
            let description = tool
                .description
                .as_deref()
                .map(str::to_owned)
                .or(tool.title.clone())
                .unwrap_or_else(|| format!("{remote_name} (MCP server {})", server.name()));
            out.push(McpTool {
                server: server.clone(),
                name,
                remote_name,
                description,
                input_schema: Value::Object((*tool.input_schema).clone()),
            });
        }
        Ok(out)
    }

    /// The server this tool calls.
    pub fn server(&self) -> &Arc<McpServer> {
        &self.server
    }
}

#[async_trait]
impl Tool for McpTool {
    fn name(&self) -> &str {
        &self.name
    }
    fn description(&self) -> &str {
        &self.description
    }
    fn input_schema(&self) -> Value {
        self.input_schema.clone()
    }
    async fn execute(&self, args: &Value, _resume: Option<&Value>) -> Result<ToolOutput, String> {
        self.server.call(&self.remote_name, args).await.map(ToolOutput::Done)
    }
}

/// A result as the model gets it: `structuredContent` if given, else the content's text.
fn result_value(result: CallToolResult) -> Result<Value, String> {
    let text = content_text(&result.content);
    if result.is_error == Some(true) {
        let message = match (text.is_empty(), &result.structured_content) {
            (false, _) => text,
            (true, Some(structured)) => structured.to_string(),
            (true, None) => "the tool reported an error without a message".into(),
        };
        return Err(message);
    }
    Ok(result.structured_content.unwrap_or(Value::String(text)))
}

/// The content items as text: text as is, embedded text resources by their text, anything else
/// named by a placeholder (`[image image/png]`).
fn content_text(content: &[ContentBlock]) -> String {
    content
        .iter()
        .map(|item| match item {
            ContentBlock::Text(t) => t.text.clone(),
            ContentBlock::Image(i) => format!("[image {}]", i.mime_type),
            ContentBlock::Audio(a) => format!("[audio {}]", a.mime_type),
            ContentBlock::Resource(r) => match &r.resource {
                ResourceContents::TextResourceContents { text, .. } => text.clone(),
                ResourceContents::BlobResourceContents { uri, .. } => format!("[resource {uri}]"),
                _ => "[resource]".into(),
            },
            ContentBlock::ResourceLink(link) => format!("[resource link {}]", link.uri),
            _ => "[content]".into(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn seconds(d: Duration) -> String {
    format!("{} s", d.as_secs_f64())
}

/// One server process and its MCP session.
struct Process {
    /// Dropping it cancels the session and closes the server's stdin.
    service: RunningService<RoleClient, ClientConfig>,
    signs: Signs,
    /// Dropped with the process: tells the watcher to shut the server down.
    _stop: oneshot::Sender<()>,
}

/// What the background tasks report about a process: its exit and its stderr.
#[derive(Clone)]
struct Signs {
    /// `Some(status)` once the process has exited.
    exit: watch::Receiver<Option<String>>,
    /// `true` once stderr is closed (everything it wrote is in `stderr`).
    stderr_closed: watch::Receiver<bool>,
    stderr: Arc<Mutex<VecDeque<String>>>,
}

impl Signs {
    fn exit_status(&self) -> Option<String> {
        self.exit.borrow().clone()
    }

    /// The exit status, waiting up to `grace` for the process to be seen exiting (and then briefly
    /// for its last stderr lines).
    async fn wait_exit(&self, grace: Duration) -> Option<String> {
        let mut exit = self.exit.clone();
        let _ = tokio::time::timeout(grace, exit.wait_for(Option::is_some)).await;
        let status = self.exit_status()?;
        let mut closed = self.stderr_closed.clone();
        let _ = tokio::time::timeout(Duration::from_millis(300), closed.wait_for(|c| *c)).await;
        Some(status)
    }

    /// `; stderr: line | line` with the last lines, or nothing.
    fn stderr_tail(&self) -> String {
        let lines = self.stderr.lock().expect("not poisoned");
        if lines.is_empty() {
            String::new()
        } else {
            format!("; stderr: {}", lines.iter().cloned().collect::<Vec<_>>().join(" | "))
        }
    }

    /// A failed start explained: what failed, the exit status if the process died, its stderr.
    async fn explain(&self, what: String) -> String {
        let status = self.wait_exit(EXIT_GRACE).await.map(|s| format!(" (the process exited: {s})")).unwrap_or_default();
        format!("{what}{status}{}", self.stderr_tail())
    }
}

impl Process {
    async fn start(config: &ServerConfig) -> Result<(Self, Vec<rmcp::model::Tool>), String> {
        let mut command = tokio::process::Command::new(&config.command);
        command.env_clear();
        for name in PASSED_ON {
            if let Some(value) = std::env::var_os(name) {
                command.env(name, value);
            }
        }
        command.args(&config.args).envs(&config.env);
        command.stdin(std::process::Stdio::piped()).stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped());
        // SAFETY: `fork_guard` makes only async-signal-safe calls, as a `pre_exec` hook must.
        unsafe {
            command.pre_exec(|| guard::fork_guard());
        }
        let mut wrap = CommandWrap::from(command);
        wrap.wrap(ProcessGroup::leader()).wrap(KillOnDrop);
        let mut child = wrap.spawn().map_err(|e| format!("could not run {:?}: {e}", config.command))?;
        let (Some(stdin), Some(stdout), Some(stderr)) = (child.stdin().take(), child.stdout().take(), child.stderr().take()) else {
            return Err("the process has no stdio pipes".into());
        };

        let lines = Arc::new(Mutex::new(VecDeque::new()));
        let (closed_tx, stderr_closed) = watch::channel(false);
        tokio::spawn(child::read_stderr(config.name.clone(), stderr, lines.clone(), closed_tx));
        let (exit_tx, exit) = watch::channel(None);
        let (stop, stop_rx) = oneshot::channel();
        tokio::spawn(child::watch_process(config.name.clone(), child, exit_tx, stop_rx));
        let signs = Signs { exit, stderr_closed, stderr: lines };

        let mut capabilities = ClientCapabilities::default();
        if config.answers_forms {
            capabilities.elicitation = Some(ElicitationCapability::new().with_form(FormElicitationCapability::default()));
        }
        let client = ClientConfig::new(capabilities, Implementation::new("approval-console", env!("CARGO_PKG_VERSION")))
            .with_protocol_version(ProtocolVersion::LATEST_WITH_INITIALIZE);
        // Every revision: `server/discover` first (2026-07-28, no `initialize`), then the
        // `initialize` handshake of the revisions before it when the server answers as one of them.
        let lifecycle = ClientLifecycleMode::Auto {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            legacy_version: Some(ProtocolVersion::LATEST_WITH_INITIALIZE),
        };
        let limit = config.timeout;
        let service = match tokio::time::timeout(limit, client.serve_with_lifecycle((stdout, stdin), lifecycle)).await {
            Err(_) => return Err(signs.explain(format!("no answer to server/discover or initialize within {}", seconds(limit))).await),
            Ok(Err(e)) => return Err(signs.explain(format!("server/discover and initialize failed: {e}")).await),
            Ok(Ok(service)) => service,
        };
        let tools = match tokio::time::timeout(limit, service.list_all_tools()).await {
            Err(_) => return Err(signs.explain(format!("no answer to tools/list within {}", seconds(limit))).await),
            Ok(Err(e)) => return Err(signs.explain(format!("tools/list failed: {e}")).await),
            Ok(Ok(tools)) => tools,
        };
        Ok((Self { service, signs, _stop: stop }, tools))
    }
}

mod child;
mod guard;
#[cfg(test)]
mod tests;
