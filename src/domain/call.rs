//! A paused tool call as the queue holds it.

use super::{AgentId, EngineId, Fingerprint, ItemId, RunId, ToolCallId};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Why the call is paused: it needs an approval (S1–S3), or the tool suspended itself (S8).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum CallKind {
    Approval,
    Suspend,
}

/// Where a call comes from, as the queue marks and filters it: the local engine, a remote engine's
/// kind, or the source of a call an agent submitted itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "kebab-case")]
pub enum CallSource {
    /// This console's local engine (or, in team mode, another console's).
    Local,
    /// A remote Mastra server.
    Mastra,
    /// A remote LangGraph server.
    Langgraph,
    /// An AG-UI agent endpoint whose runs the console relays (`/api/agui/{engine}`).
    AgUi,
    /// An agent over the HTTP API (`POST /api/calls`).
    Http,
    /// Claude Code's hook.
    ClaudeCode,
    /// Codex CLI's hook.
    Codex,
    /// Gemini CLI's hook.
    Gemini,
    /// The MCP gate.
    Mcp,
    /// An Agent Client Protocol agent's permission requests (`approval-console acp`).
    Acp,
    /// The OpenAI Agents SDK's `needsApproval` interruptions, through `adapters/`.
    OpenaiAgents,
    /// The Vercel AI SDK's tool-approval requests, through `adapters/`.
    AiSdk,
    /// Google ADK's tool confirmations, through `adapters/`.
    Adk,
    /// LangChain's `HumanInTheLoopMiddleware` interrupts, through `adapters/`.
    Langchain,
    /// A remote A2A agent's tasks waiting for input or authorization.
    A2a,
}

impl CallSource {
    /// Every source, in the order they are offered. What each one is (local, remote, submitted) and
    /// how it behaves is the registry's: `engine::kinds`.
    pub const ALL: [CallSource; 15] = [
        CallSource::Local,
        CallSource::Mastra,
        CallSource::Langgraph,
        CallSource::AgUi,
        CallSource::A2a,
        CallSource::Http,
        CallSource::ClaudeCode,
        CallSource::Codex,
        CallSource::Gemini,
        CallSource::Mcp,
        CallSource::Acp,
        CallSource::OpenaiAgents,
        CallSource::AiSdk,
        CallSource::Adk,
        CallSource::Langchain,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            CallSource::Local => "local",
            CallSource::Mastra => "mastra",
            CallSource::Langgraph => "langgraph",
            CallSource::AgUi => "ag-ui",
            CallSource::Http => "http",
            CallSource::ClaudeCode => "claude-code",
            CallSource::Codex => "codex",
            CallSource::Gemini => "gemini",
            CallSource::Mcp => "mcp",
            CallSource::Acp => "acp",
            CallSource::OpenaiAgents => "openai-agents",
            CallSource::AiSdk => "ai-sdk",
            CallSource::Adk => "adk",
            CallSource::Langchain => "langchain",
            CallSource::A2a => "a2a",
        }
    }

    /// The source named `text` exactly as [`CallSource::as_str`] writes it.
    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.as_str() == text)
    }
}

/// Where a queue entry is in its life.
///
/// `pending → decided → delivered | failed`; `decided → interrupted` when the process died while the
/// tool was executing (never re-run: at-most-once); `pending → gone` when the run ended elsewhere.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum ItemState {
    Pending,
    Decided,
    Delivered,
    Failed,
    Interrupted,
    Gone,
}

/// One step of a supervisor chain: the agent and the call through which the pause surfaced (S13).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChainLink {
    pub agent_id: AgentId,
    pub tool_call_id: ToolCallId,
    pub tool_name: String,
}

/// Why a call paused, for the operator (the local engine knows; a remote engine does not say).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub enum PauseKind {
    /// The tool always requires approval (S1).
    Tool,
    /// The request asked to approve every call (S2).
    Request,
    /// One of the request's approval rules matched (S3).
    RequestRule,
    /// One of the agent's own approval rules matched.
    AgentRule,
    /// The request's predicate said so (S3).
    Predicate,
    /// The request's predicate failed (error, panic, timeout): approval required, fail safe (S3).
    PredicateFailed,
    /// The tool stopped to ask for data (S8).
    Suspended,
    /// A remote engine paused it; it does not say why.
    Remote,
    /// The agent submitted it to be asked about (`POST /api/calls`: an HTTP agent, a hook, the MCP gate).
    Submitted,
}

/// [`PauseKind`] with what it refers to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PauseReason {
    pub kind: PauseKind,
    /// For a rule: its position in its list, counting from 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<u32>,
    /// For an agent's rule: the agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// For a failed predicate: how it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

impl PauseReason {
    pub fn of(kind: PauseKind) -> Self {
        Self { kind, rule: None, agent: None, detail: None }
    }
}

/// What an engine reports when a call pauses; the queue adds its id, state and times.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PausedCall {
    pub engine: EngineId,
    /// Where it comes from: its engine's kind, stored with the call (never derived from the name).
    pub source: CallSource,
    pub agent_id: AgentId,
    pub agent_name: Option<String>,
    pub thread_id: Option<String>,
    pub resource_id: Option<String>,
    pub run_id: RunId,
    pub tool_call_id: ToolCallId,
    pub tool_name: String,
    pub args: Value,
    /// Computed once from `tool_name` and `args` as stored (S7).
    pub fingerprint: Fingerprint,
    pub kind: CallKind,
    pub suspend_payload: Option<Value>,
    pub resume_schema: Option<Value>,
    pub chain: Vec<ChainLink>,
    /// Why it paused, when the engine knows.
    #[serde(default)]
    pub pause_reason: Option<PauseReason>,
    /// Who asked for it: the principal (`Principal::key()`) that submitted the call or started its
    /// run; `None` where the engine does not say (remote servers). Never part of the fingerprint.
    #[serde(default)]
    pub requested_by: Option<String>,
}

#[cfg(test)]
impl PausedCall {
    /// The one builder of a call for unit tests: an approval of `tool` with `args` on engine `e`,
    /// run `r`, tool call `c`, agent `a`; change what a test needs with struct update syntax.
    pub fn sample(tool: &str, args: Value) -> Self {
        Self {
            engine: EngineId::new("e"),
            source: CallSource::Mastra,
            agent_id: AgentId::new("a"),
            agent_name: None,
            thread_id: None,
            resource_id: None,
            run_id: RunId::new("r"),
            tool_call_id: ToolCallId::new("c"),
            tool_name: tool.into(),
            fingerprint: Fingerprint::of(tool, &args).expect("a sample's arguments have a fingerprint"),
            args,
            kind: CallKind::Approval,
            suspend_payload: None,
            resume_schema: None,
            chain: vec![],
            pause_reason: None,
            requested_by: None,
        }
    }
}

/// A queue entry.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct QueuedCall {
    pub id: ItemId,
    pub call: PausedCall,
    pub state: ItemState,
    pub paused_at: DateTime<Utc>,
}
