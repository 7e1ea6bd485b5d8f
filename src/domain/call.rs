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

/// What an engine reports when a call pauses; the queue adds its id, state and times.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PausedCall {
    pub engine: EngineId,
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
}

/// A queue entry.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct QueuedCall {
    pub id: ItemId,
    pub call: PausedCall,
    pub state: ItemState,
    pub paused_at: DateTime<Utc>,
}
