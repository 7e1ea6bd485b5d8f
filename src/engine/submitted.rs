//! Calls that agents submit themselves (`POST /api/calls`): any agent over HTTP, the coding agents'
//! hooks (`approval-console hook claude-code|codex|gemini`) and the MCP gate. There is no engine to send a
//! decision to: the agent waits for it (`GET /api/calls/{id}?waitSecs=`), so delivering a decision
//! is recording that it is ready to be fetched. Each source (the submitted kinds of
//! [`crate::engine::kinds`]) is an engine id of its own, and its name is reserved.

use super::kinds;
use super::send::{Checked, Prepared};
use super::{ChunkSink, Engine};
use crate::domain::{CallKind, CallSource, Decision, DecisionKind, EngineId, Error, PausedCall, QueuedCall};
use crate::store::{outbox, queue, Db};
use async_trait::async_trait;
use serde_json::{json, Value};

/// The engine of one source of submitted calls.
#[derive(Clone)]
pub struct Submitted {
    source: CallSource,
    db: Db,
}

impl Submitted {
    /// The engine of `source`, one of [`kinds::submitted`].
    pub fn new(source: CallSource, db: Db) -> Self {
        debug_assert!(kinds::is_submitted(source), "{source:?} is not a source of submitted calls");
        Self { source, db }
    }
}

#[async_trait]
impl Engine for Submitted {
    fn id(&self) -> EngineId {
        EngineId::new(self.source.as_str())
    }

    fn allowed(&self, call: &PausedCall) -> Vec<DecisionKind> {
        match call.kind {
            CallKind::Approval if kinds::takes_edits(self.source) && call.args.is_object() => {
                vec![DecisionKind::Approve, DecisionKind::Decline, DecisionKind::Edit]
            }
            CallKind::Approval => vec![DecisionKind::Approve, DecisionKind::Decline],
            CallKind::Suspend => vec![DecisionKind::Resume, DecisionKind::Decline],
        }
    }

    /// The call as submitted: the agent cannot change it afterwards (a change is a new submission).
    async fn reread(&self, call: &PausedCall) -> Result<Option<PausedCall>, Error> {
        let pending = queue::pending_call(&self.db, &call.engine, &call.run_id, &call.tool_call_id).await?;
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
        let current = queue::entry(&self.db, &item.id).await?.map(|e| e.queued.call);
        Ok(Prepared::single(decision, item, current))
    }

    /// Ready to be fetched: the agent reads the decision itself.
    async fn send(&self, checked: Checked, _sink: Option<ChunkSink>) -> Result<Value, Error> {
        let (decision, item) = (&checked.own().decision, &checked.own().item);
        let outcome = json!({ "handedOver": "the decision waits for the agent to fetch it (GET /api/calls/{id})" });
        outbox::record_outcome(&self.db, decision, item, &outcome, None).await?;
        Ok(outcome)
    }

    /// Handing a decision over twice hands over the same decision.
    fn refuses_repeats(&self) -> bool {
        true
    }
}
