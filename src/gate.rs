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

use crate::app::calls::{CallStatus, NewCall, Outcome};
use crate::connector::ConsoleClient;
use crate::domain::CallSource;
use crate::engine::local::mcp::McpServer;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation, ListToolsResult, PaginatedRequestParams,
    ServerCapabilities, ServerConfig, Tool,
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
pub struct Gate {
    upstream: Arc<McpServer>,
    tools: Vec<Tool>,
    policy: Policy,
    console: Result<ConsoleClient, String>,
    /// Shown to the operator as the call's agent.
    agent: String,
    /// The upstream command, shown to the operator as context.
    upstream_command: String,
    timeout: Duration,
}

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
        Self { upstream, tools, policy, console, agent, upstream_command, timeout }
    }

    /// The tools offered, each said to wait or not (for the log at start).
    pub fn tools(&self) -> impl Iterator<Item = (&str, bool)> {
        self.tools.iter().map(|t| (t.name.as_ref(), self.policy.asks(t)))
    }

    async fn forward(&self, name: &str, args: &Value) -> CallToolResult {
        match self.upstream.call_raw(name, args).await {
            Ok(result) => result,
            Err(e) => CallToolResult::error(vec![ContentBlock::text(e)]),
        }
    }

    /// Asks the console about a call; `Ok(args)` to run it with, `Err(reason)` for the client.
    async fn approval(&self, tool: &Tool, args: &Value) -> Result<Value, String> {
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
        let status = console.ask(&call, None, self.timeout).await?;
        outcome(status)
    }
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
        let mut info = ServerConfig::new(ServerCapabilities::builder().enable_tools().build());
        info.server_info = Implementation::new("approval-console-mcp-gate", env!("CARGO_PKG_VERSION"));
        info.instructions = Some(format!(
            "The tools of {}; sensitive calls wait for an operator's approval in Approval Console and fail with the reason if declined.",
            self.upstream_command
        ));
        info
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools.clone()))
    }

    async fn call_tool(&self, request: CallToolRequestParams, _context: RequestContext<RoleServer>) -> Result<CallToolResponse, ErrorData> {
        let name = request.name.to_string();
        let args = request.arguments.map(Value::Object).unwrap_or_else(|| json!({}));
        let Some(tool) = self.tools.iter().find(|t| t.name == name) else {
            return Ok(CallToolResult::error(vec![ContentBlock::text(format!("no tool {name:?} on this server"))]).into());
        };
        if !self.policy.asks(tool) {
            return Ok(self.forward(&name, &args).await.into());
        }
        match self.approval(tool, &args).await {
            Ok(approved) => Ok(self.forward(&name, &approved).await.into()),
            Err(why) => {
                tracing::info!(tool = %name, "not run: {why}");
                Ok(CallToolResult::error(vec![ContentBlock::text(format!("Not run: {why}"))]).into())
            }
        }
    }
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
