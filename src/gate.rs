//! The MCP gate (`approval-console mcp-gate -- <upstream MCP server command>`): an MCP server over
//! stdio that offers the tools of the upstream server it starts, and lets a sensitive call run only
//! once an operator approved it in the console. So any MCP client (Claude Desktop, Cursor, VS Code)
//! gets approvals for any MCP server.
//!
//! Which calls wait ([`Policy::asks`]): every one, but those of a tool named with `--pass` (unless
//! `--ask` names it too). The upstream's annotations are its own claims, so by default they skip
//! nothing: a server that marks `wipe_disk` `readOnlyHint: true` is still asked about. Only with
//! `--trust-annotations` does a tool the upstream marks read-only and not destructive
//! (`readOnlyHint: true`, `destructiveHint` not true) pass; even then a hint never skips a tool
//! `--ask` names, and a tool without hints waits (MCP's defaults: not read-only, destructive).
//!
//! A call that waits is submitted as source `mcp` (its arguments as they would run, the upstream
//! command as context) and runs only when approved; declined, expired, unanswered or with the
//! console unreachable, the client gets a tool error carrying the reason — never the call run.
//!
//! **Every MCP revision, on both sides.** The upstream is probed with `server/discover` (2026-07-28)
//! and spoken to with `initialize` when it is older; the client may speak either (rmcp serves
//! both). A client on the revisions with `initialize` is held until the call is decided. A
//! 2026-07-28 client is not held past `--hold`: a client that declared the Tasks extension gets a
//! task at once (`resultType: "task"`; `tasks/get`, `tasks/cancel`), one that can be asked for
//! input gets `input_required` with the console's link to the call (an elicitation in URL mode if
//! it takes one, else a form saying where to decide); calling again finds the same waiting call
//! ([`jobs`]). An upstream that asks for input itself is answered from the console ([`questions`]).

mod jobs;
mod questions;

use crate::app::calls::{CallStatus, NewCall, Outcome};
use crate::connector::ConsoleClient;
use crate::domain::CallSource;
use crate::domain::Fingerprint;
use crate::engine::local::mcp::{McpServer, Round};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CancelTaskParams, ClientCapabilities, ContentBlock, CreateTaskResult,
    DetailedTask, ElicitRequest, ElicitRequestParams, ElicitationSchema, GetTaskParams, GetTaskResult, Implementation, InputRequest,
    InputRequests, InputRequiredResult, ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Task, TaskPayload,
    TaskStatus, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

/// What the gate's flags say about tools.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Policy {
    /// Always asked about, whatever the upstream says of them.
    pub ask: BTreeSet<String>,
    /// Never asked about: the operator trusts them (wins over the annotations, not over `ask`).
    pub pass: BTreeSet<String>,
    /// Let a tool the upstream marks read-only (and not destructive) pass unasked
    /// (`--trust-annotations`); off, every tool not in `pass` is asked about.
    pub trust_annotations: bool,
}

impl Policy {
    /// Whether a call of `tool` waits for an operator.
    pub fn asks(&self, tool: &Tool) -> bool {
        let name = tool.name.as_ref();
        if self.ask.contains(name) {
            return true;
        }
        if self.pass.contains(name) {
            return false;
        }
        if !self.trust_annotations {
            return true;
        }
        let hints = tool.annotations.as_ref();
        let read_only = hints.and_then(|a| a.read_only_hint) == Some(true);
        let destructive = hints.and_then(|a| a.destructive_hint) == Some(true);
        !read_only || destructive
    }
}

/// The gate: the upstream, its tools, and the console to ask.
#[derive(Clone)]
pub struct Gate {
    inner: Arc<Inner>,
}

struct Inner {
    upstream: Arc<McpServer>,
    tools: Vec<Tool>,
    policy: Policy,
    console: Result<ConsoleClient, String>,
    /// Shown to the operator as the call's agent.
    agent: String,
    /// The upstream command, shown to the operator as context.
    upstream_command: String,
    timeout: Duration,
    /// How long a 2026-07-28 client's call is held before it is answered `input_required`.
    hold: Duration,
    jobs: jobs::Jobs,
}

/// The key of the gate's own request in an `input_required` answer ("decide it in the console").
const WAITING: &str = "approval";

/// How many times an upstream may ask for input before one call runs.
const MAX_ROUNDS: usize = 10;

impl Gate {
    pub fn new(
        upstream: Arc<McpServer>,
        tools: Vec<Tool>,
        policy: Policy,
        console: Result<ConsoleClient, String>,
        agent: String,
        upstream_command: String,
        timeout: Duration,
    ) -> Self {
        let hold = DEFAULT_HOLD.min(timeout);
        let jobs = jobs::Jobs::default();
        Self { inner: Arc::new(Inner { upstream, tools, policy, console, agent, upstream_command, timeout, hold, jobs }) }
    }

    /// How long a 2026-07-28 client's call is held before the gate answers `input_required`
    /// (`--hold`).
    pub fn with_hold(self, hold: Duration) -> Self {
        let mut inner = Arc::try_unwrap(self.inner).unwrap_or_else(|_| unreachable!("set before serving"));
        inner.hold = hold;
        Self { inner: Arc::new(inner) }
    }

    /// The tools offered, each said to wait or not (for the log at start).
    pub fn tools(&self) -> impl Iterator<Item = (&str, bool)> {
        self.inner.tools.iter().map(|t| (t.name.as_ref(), self.inner.policy.asks(t)))
    }
}

/// Default of `--hold`.
pub const DEFAULT_HOLD: Duration = Duration::from_secs(20);

impl Inner {
    /// Runs the call upstream, answering the upstream's own questions from the console
    /// ([`questions`]); `key` names this call's questions.
    async fn forward(&self, name: &str, args: &Value, key: &str) -> CallToolResult {
        let mut answer = None;
        for round in 0..MAX_ROUNDS {
            match self.upstream.call_round(name, args, answer.take()).await {
                Err(e) => return CallToolResult::error(vec![ContentBlock::text(e)]),
                Ok(Round::Complete(result)) => return result,
                Ok(Round::InputRequired(asked)) => {
                    let console = match &self.console {
                        Ok(console) => console,
                        Err(e) => return not_run(name, format!("the upstream asks for input and {e}")),
                    };
                    let asking = questions::Asking {
                        console,
                        agent: &self.agent,
                        upstream_command: &self.upstream_command,
                        timeout: self.timeout,
                        key,
                    };
                    match questions::answer(&asking, name, args, asked, round).await {
                        Ok(answered) => answer = Some(answered),
                        Err(why) => return not_run(name, why),
                    }
                }
            }
        }
        not_run(name, format!("the upstream asked for input {MAX_ROUNDS} times"))
    }

    /// Asks the console about a call; `Ok(args)` to run it with, `Err(reason)` for the client.
    async fn approval(&self, tool: &Tool, args: &Value, job: &jobs::Job) -> Result<Value, String> {
        let console = self.console.as_ref().map_err(Clone::clone)?;
        let call = NewCall {
            tool: tool.name.to_string(),
            args: args.clone(),
            agent: self.agent.clone(),
            thread: None,
            resume_schema: None,
            payload: None,
            source: Some(CallSource::Mcp),
            context: Some(json!({ "upstream": self.upstream_command, "annotations": tool.annotations })),
        };
        let status = console.ask_noting(&call, &job.console_key, self.timeout, &|id| job.note_queued(id), job.cancellation()).await?;
        if status.outcome == Outcome::Withdrawn && job.is_cancelled() {
            return Err("the client cancelled the call".to_owned());
        }
        outcome(status)
    }

    /// A job: asks the console, then runs the call if approved.
    async fn run(self: Arc<Self>, job: Arc<jobs::Job>, tool: Tool, args: Value) {
        let name = tool.name.to_string();
        let result = match self.approval(&tool, &args, &job).await {
            // Run only for a client still asking for it (a task's, or one waiting now or calling
            // again within the time limit): an approval nobody collects runs nothing.
            Ok(approved) if job.wanted(self.timeout).await => self.forward(&name, &approved, &job.console_key).await,
            Ok(_) => not_run(&name, "approved, but the client did not call again for it".to_owned()),
            Err(why) => not_run(&name, why),
        };
        job.finish(result);
    }

    /// What a 2026-07-28 client that may be asked for input gets while its call waits: where to
    /// decide it, and to call again.
    fn waiting(&self, job: &jobs::Job, caps: &ClientCapabilities) -> InputRequiredResult {
        let link = match (&self.console, job.console_call()) {
            (Ok(console), Some(id)) => console.link(&id),
            (Ok(console), None) => console.link(""),
            (Err(_), _) => String::new(),
        };
        let message = format!("This call waits for an operator's decision in Approval Console: {link} — call again to get its result.");
        let url_mode = caps.elicitation.as_ref().is_some_and(|e| e.url.is_some());
        let params = if url_mode && !link.is_empty() {
            ElicitRequestParams::UrlElicitationParams { meta: None, message, url: link, elicitation_id: job.id.clone() }
        } else {
            ElicitRequestParams::FormElicitationParams {
                meta: None,
                message,
                requested_schema: ElicitationSchema::builder().build_unchecked(),
            }
        };
        let mut asks = InputRequests::new();
        asks.insert(WAITING.to_owned(), InputRequest::Elicitation(ElicitRequest::new(params)));
        InputRequiredResult::new(Some(asks), Some(job.id.clone()))
    }

    /// The task a job is, with its state now.
    fn task(&self, job: &jobs::Job) -> DetailedTask {
        let now = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
        let task = Task::new(job.id.clone(), TaskStatus::Working, job.created(), now).with_poll_interval_ms(1000);
        // Cancelled before it ran: a call approved and run before the cancellation stays completed.
        let cancelled = job.is_cancelled() && job.result().is_none_or(|r| r.is_error == Some(true));
        match job.result() {
            _ if cancelled => DetailedTask::new(task, TaskPayload::Cancelled),
            Some(result) => {
                let result = serde_json::to_value(&result).ok().and_then(|v| v.as_object().cloned()).unwrap_or_default();
                DetailedTask::new(task, TaskPayload::Completed { result })
            }
            None => {
                let link = match (&self.console, job.console_call()) {
                    (Ok(console), Some(id)) => format!(": {}", console.link(&id)),
                    _ => String::new(),
                };
                DetailedTask::new(
                    task.with_status_message(format!("waiting for an operator in Approval Console{link}")),
                    TaskPayload::Working,
                )
            }
        }
    }
}

/// The tool error a call not run answers with.
fn not_run(tool: &str, why: String) -> CallToolResult {
    tracing::info!(tool, "not run: {why}");
    CallToolResult::error(vec![ContentBlock::text(format!("Not run: {why}"))])
}

/// What a call's outcome means for the gate.
fn outcome(status: CallStatus) -> Result<Value, String> {
    match status.outcome {
        Outcome::Approved => status.args.ok_or_else(|| "the console approved but sent no arguments".to_owned()),
        Outcome::Declined if status.expired => {
            Err(format!("nobody decided in time in Approval Console ({})", status.reason.unwrap_or_default()))
        }
        Outcome::Declined => Err(match status.reason {
            Some(r) => format!("declined in Approval Console: {r}"),
            None => "declined in Approval Console".to_owned(),
        }),
        Outcome::Answered | Outcome::Withdrawn | Outcome::Pending => Err("the call left the Approval Console queue undecided".to_owned()),
    }
}

impl ServerHandler for Gate {
    fn get_info(&self) -> ServerConfig {
        let mut info = ServerConfig::new(ServerCapabilities::builder().enable_tools().enable_tasks().build());
        info.server_info = Implementation::new("approval-console-mcp-gate", env!("CARGO_PKG_VERSION"));
        info.instructions = Some(format!(
            "The tools of {}; sensitive calls wait for an operator's approval in Approval Console and fail with the reason if declined.",
            self.inner.upstream_command
        ));
        info
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.inner.tools.clone()))
    }

    async fn call_tool(&self, request: CallToolRequestParams, context: RequestContext<RoleServer>) -> Result<CallToolResponse, ErrorData> {
        let inner = &self.inner;
        let name = request.name.to_string();
        let args = request.arguments.map(Value::Object).unwrap_or_else(|| json!({}));
        let Some(tool) = inner.tools.iter().find(|t| t.name == name) else {
            return Ok(CallToolResult::error(vec![ContentBlock::text(format!("no tool {name:?} on this server"))]).into());
        };
        if !inner.policy.asks(tool) {
            let key = format!("mcp-gate:passed:{}", uuid::Uuid::new_v4().simple());
            return Ok(inner.forward(&name, &args, &key).await.into());
        }
        let fingerprint = match Fingerprint::of(&name, &args) {
            Ok(f) => f,
            Err(e) => return Ok(not_run(&name, format!("its arguments cannot be fingerprinted: {e}")).into()),
        };
        // A client that answers our `input_required` with a decline (its user would not wait) gives
        // the call up: it is withdrawn from the queue, and nothing runs.
        let gave_up = request.input_responses.as_ref().and_then(|r| r.get(WAITING)).and_then(|a| a["action"].as_str());
        if matches!(gave_up, Some("decline" | "cancel")) {
            if let Some(job) = inner.jobs.find(&name, fingerprint.as_str()) {
                job.cancel();
                inner.jobs.taken(&job);
            }
            return Ok(not_run(&name, "the client would not wait for the operator's decision".to_owned()).into());
        }
        // The same call again (a retry, the answer to `input_required`) finds its waiting job;
        // the client's `requestState` is not needed, and not trusted.
        let (job, new) = inner.jobs.find_or_add(&name, fingerprint.as_str());
        if new {
            tokio::spawn(inner.clone().run(job.clone(), tool.clone(), args));
        }
        let modern = context.protocol_version().is_some_and(|v| !v.has_initialize());
        let caps = context.client_capabilities().unwrap_or_default();
        if modern && caps.supports_tasks() {
            job.as_task();
            return Ok(CallToolResponse::Task(CreateTaskResult::new(inner.task(&job).task)));
        }
        let _waiting = job.waiting();
        let result = if modern && caps.elicitation.is_some() {
            match tokio::time::timeout(inner.hold, job.finished()).await {
                Ok(result) => result,
                Err(_) => return Ok(CallToolResponse::InputRequired(inner.waiting(&job, &caps))),
            }
        } else {
            // A client without a way to be told to come back is held until the call is decided.
            job.finished().await
        };
        inner.jobs.taken(&job);
        Ok(result.into())
    }

    async fn get_task(&self, request: GetTaskParams, _context: RequestContext<RoleServer>) -> Result<GetTaskResult, ErrorData> {
        let job = self.inner.jobs.by_id(&request.task_id).ok_or_else(|| no_task(&request.task_id))?;
        if job.result().is_some() {
            self.inner.jobs.taken(&job);
        }
        Ok(GetTaskResult::new(self.inner.task(&job)))
    }

    async fn cancel_task(&self, request: CancelTaskParams, _context: RequestContext<RoleServer>) -> Result<(), ErrorData> {
        let job = self.inner.jobs.by_id(&request.task_id).ok_or_else(|| no_task(&request.task_id))?;
        job.cancel();
        self.inner.jobs.taken(&job);
        Ok(())
    }
}

fn no_task(id: &str) -> ErrorData {
    ErrorData::invalid_params(format!("no task {id:?} on this gate (finished tasks are kept 10 minutes)"), None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::ToolAnnotations;

    fn tool(name: &str, read_only: Option<bool>, destructive: Option<bool>) -> Tool {
        let mut t = Tool::new(name.to_owned(), "", Arc::new(serde_json::Map::new()));
        if read_only.is_some() || destructive.is_some() {
            let mut a = ToolAnnotations::default();
            a.read_only_hint = read_only;
            a.destructive_hint = destructive;
            t.annotations = Some(a);
        }
        t
    }

    #[test]
    fn every_tool_is_asked_about_unless_passed_or_the_annotations_are_trusted() {
        let p = Policy::default();
        assert!(p.asks(&tool("write_file", None, None)));
        assert!(p.asks(&tool("wipe_disk", Some(true), Some(false))), "the upstream's read-only hint is not trusted by default");
        let passed = Policy { pass: ["read_file".to_owned()].into(), ..Policy::default() };
        assert!(!passed.asks(&tool("read_file", None, None)), "--pass trusts a tool");

        let trusting = Policy { trust_annotations: true, ..Policy::default() };
        assert!(trusting.asks(&tool("write_file", None, None)), "no annotations: MCP's defaults, destructive");
        assert!(trusting.asks(&tool("write_file", Some(false), Some(false))), "not read-only");
        assert!(!trusting.asks(&tool("read_file", Some(true), None)));
        assert!(trusting.asks(&tool("odd", Some(true), Some(true))), "read-only but destructive: asked");
        let flagged = Policy {
            ask: ["read_file".to_owned()].into(),
            pass: ["write_file".to_owned(), "read_file".to_owned()].into(),
            trust_annotations: true,
        };
        assert!(flagged.asks(&tool("read_file", Some(true), None)), "--ask wins over a hint and over --pass");
        assert!(!flagged.asks(&tool("write_file", None, None)), "--pass trusts a tool");
    }

    #[test]
    fn only_an_approval_runs_the_call() {
        let status = |outcome, args: Option<Value>, reason: Option<&str>| CallStatus {
            id: "q".into(),
            outcome,
            args,
            edited: false,
            edited_fingerprint: None,
            reason: reason.map(str::to_owned),
            expired: false,
            receipt: None,
            data: None,
            joined_into: None,
        };
        assert_eq!(outcome(status(Outcome::Approved, Some(json!({"path": "/a"})), None)), Ok(json!({"path": "/a"})));
        assert_eq!(outcome(status(Outcome::Declined, None, Some("no"))), Err("declined in Approval Console: no".to_owned()));
        assert!(outcome(status(Outcome::Withdrawn, None, None)).is_err());
        assert!(outcome(status(Outcome::Approved, None, None)).is_err(), "no arguments: not run");
    }
}
