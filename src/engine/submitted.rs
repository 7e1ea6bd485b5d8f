//! Calls that agents submit themselves (`POST /api/calls`): any agent over HTTP, the coding agents'
//! hooks (`approval-console hook claude-code|codex`) and the MCP gate. There is no engine to send a
//! decision to: the agent waits for it (`GET /api/calls/{id}?waitSecs=`), so delivering a decision
//! is recording that it is ready to be fetched. Each source is an engine id of its own
//! ([`Source`]), so the queue's engine filter is a source filter, and its name is reserved.

use super::send::{Checked, Prepared};
use super::{ChunkSink, Engine};
use crate::domain::{CallKind, Decision, DecisionKind, EngineId, Error, PausedCall, QueuedCall};
use crate::store::{outbox, queue, Db};
use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// Where a submitted call comes from. Its engine id is its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Source {
    /// Any agent, through the documented HTTP API.
    Http,
    /// Claude Code's `PreToolUse` / `PermissionRequest` hook.
    ClaudeCode,
    /// Codex CLI's `PreToolUse` / `PermissionRequest` hook.
    Codex,
    /// The MCP gate in front of an MCP server.
    Mcp,
}

impl Source {
    pub const ALL: [Source; 4] = [Source::Http, Source::ClaudeCode, Source::Codex, Source::Mcp];

    pub fn as_str(self) -> &'static str {
        match self {
            Source::Http => "http",
            Source::ClaudeCode => "claude-code",
            Source::Codex => "codex",
            Source::Mcp => "mcp",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.as_str() == text)
    }

    pub fn engine_id(self) -> EngineId {
        EngineId::new(self.as_str())
    }

    /// Whether the agent can run a call with arguments the operator edited: Claude Code's
    /// `PreToolUse` takes `updatedInput`; Codex refuses it, and the others have no way to say it
    /// (an HTTP agent gets the edited arguments only if it asked for them, see `editable`).
    fn takes_edits(self) -> bool {
        matches!(self, Source::ClaudeCode)
    }
}

/// The engine of one source of submitted calls.
#[derive(Clone)]
pub struct Submitted {
    source: Source,
    db: Db,
}

impl Submitted {
    pub fn new(source: Source, db: Db) -> Self {
        Self { source, db }
    }
}

#[async_trait]
impl Engine for Submitted {
    fn id(&self) -> EngineId {
        self.source.engine_id()
    }

    fn allowed(&self, call: &PausedCall) -> Vec<DecisionKind> {
        match call.kind {
            CallKind::Approval if self.source.takes_edits() && call.args.is_object() => {
                vec![DecisionKind::Approve, DecisionKind::Decline, DecisionKind::Edit]
            }
            CallKind::Approval => vec![DecisionKind::Approve, DecisionKind::Decline],
            CallKind::Suspend => vec![DecisionKind::Resume, DecisionKind::Decline],
        }
    }

    /// The call as submitted: the agent cannot change it afterwards (a change is a new submission).
    async fn reread(&self, call: &PausedCall) -> Result<Option<PausedCall>, Error> {
        let mut conn = self.db.pool().acquire().await?;
        let pending = queue::find_pending(&mut conn, &call.engine, &call.run_id, &call.tool_call_id).await?;
        Ok(pending.map(|e| e.queued.call))
    }

    fn check_edit(&self, call: &PausedCall, args: &Value) -> Result<(), Error> {
        if !self.allowed(call).contains(&DecisionKind::Edit) {
            return Err(Error::DecisionNotAllowed { kind: DecisionKind::Edit, allowed: self.allowed(call) });
        }
        if !args.is_object() {
            return Err(Error::InvalidRequest("edited arguments must be a JSON object, as the tool's input is".into()));
        }
        Ok(())
    }

    /// The call as stored when it was submitted (re-read by its entry: a submitted call never
    /// changes, and is no longer pending once decided).
    async fn prepare(&self, decision: &Decision, item: &QueuedCall) -> Result<Prepared, Error> {
        let mut conn = self.db.pool().acquire().await?;
        let current = queue::get(&mut conn, &item.id).await?.map(|e| e.queued.call);
        Ok(Prepared::single(decision, item, current))
    }

    /// Ready to be fetched: the agent reads the decision itself.
    async fn send(&self, checked: Checked, _sink: Option<ChunkSink>) -> Result<Value, Error> {
        let (decision, item) = (&checked.own().decision, &checked.own().item);
        let outcome = json!({ "handedOver": "the decision waits for the agent to fetch it (GET /api/calls/{id})" });
        let mut tx = self.db.begin_write().await?;
        outbox::record(&mut tx, decision, item, &outcome, None).await?;
        tx.commit().await?;
        Ok(outcome)
    }

    /// Handing a decision over twice hands over the same decision.
    fn refuses_repeats(&self) -> bool {
        true
    }
}
