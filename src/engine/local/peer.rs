//! Team mode: another console's local engine, as seen from this one. Consoles sharing a database
//! each run their own local engine (`local@<instance>`); a call paused on one shows on all, and any
//! operator may decide it — but only the console that runs it delivers it (its agents, its tools, its
//! MCP servers). A peer therefore checks decisions like a local engine (the same decision kinds; the
//! call re-read from the run's snapshot in the shared database, C3) and never delivers: a decision
//! for it waits in the outbox until its own console, woken by the change feed, takes it.

use super::agent::Message;
use super::{LocalEngine, RunState};
use crate::domain::{CallKind, DecisionKind, EngineId, Error, Fingerprint, PausedCall};
use crate::engine::send::Checked;
use crate::engine::{ChunkSink, Engine};
use async_trait::async_trait;
use serde_json::Value;

pub struct Peer {
    /// A local engine under the peer's id, with no agents: used only to read its runs' snapshots.
    reader: LocalEngine,
}

impl Peer {
    pub fn new(id: EngineId, db: crate::store::Db) -> Self {
        Self { reader: LocalEngine::new(id, db, vec![]) }
    }

    fn instance(&self) -> String {
        let id = self.reader.inner.id.as_str();
        crate::engine::kinds::local_instance(id).unwrap_or(id).to_owned()
    }
}

#[async_trait]
impl Engine for Peer {
    fn id(&self) -> EngineId {
        self.reader.inner.id.clone()
    }

    fn allowed(&self, call: &PausedCall) -> Vec<DecisionKind> {
        // What the local engine allows, but an edit: only the call's own console knows the tool's schema.
        match call.kind {
            CallKind::Approval => vec![DecisionKind::Approve, DecisionKind::Decline],
            CallKind::Suspend => vec![DecisionKind::Resume, DecisionKind::Decline],
        }
    }

    async fn reread(&self, call: &PausedCall) -> Result<Option<PausedCall>, Error> {
        let (state, _) = self.reader.load(&call.run_id).await?;
        Ok(reread_from(&state, call))
    }

    async fn started_by(&self, call: &PausedCall) -> Result<Option<String>, Error> {
        Ok(self.reader.load(&call.run_id).await?.0.started_by)
    }

    async fn reason(&self, call: &PausedCall) -> Result<Option<Vec<crate::domain::reason::ReasonMessage>>, Error> {
        Ok(Some(reason_from(&self.reader.load(&call.run_id).await?.0, call)))
    }

    async fn send(&self, _checked: Checked, _sink: Option<ChunkSink>) -> Result<Value, Error> {
        Err(Error::Unreachable(format!("the call's run belongs to the console {}, which delivers the decision", self.instance())))
    }

    fn delivers_here(&self) -> bool {
        false
    }
}

/// The run's user and assistant words up to the model's turn that proposed `call` (its text
/// included), oldest first: what led to it.
pub(super) fn reason_from(state: &RunState, call: &PausedCall) -> Vec<crate::domain::reason::ReasonMessage> {
    use crate::domain::reason::{ReasonMessage, Speaker};
    let mut out = Vec::new();
    for m in &state.messages {
        match m {
            Message::User { content } => out.push(ReasonMessage { role: Speaker::User, text: content.clone(), cut: false }),
            Message::Assistant { content, tool_calls } => {
                out.push(ReasonMessage { role: Speaker::Assistant, text: content.clone(), cut: false });
                if tool_calls.iter().any(|c| c.tool_call_id == call.tool_call_id.as_str()) {
                    break;
                }
            }
            Message::System { .. } | Message::Tool { .. } => {}
        }
    }
    out
}

/// The call as the snapshot holds it: still paused (with its fingerprint over the stored arguments)
/// or not. A sub-agent's call (S13) is checked at its top-level call's pause; its own console
/// re-reads the whole chain again before anything runs (S7).
fn reread_from(state: &RunState, call: &PausedCall) -> Option<PausedCall> {
    let top = state.calls.iter().find(|c| c.tool_call_id == call.tool_call_id.as_str())?;
    if !top.paused() {
        return None;
    }
    if !call.chain.is_empty() || top.tool_name != call.tool_name {
        return Some(call.clone());
    }
    let fingerprint = Fingerprint::of(&top.tool_name, &top.args).ok()?;
    Some(PausedCall { args: top.args.clone(), fingerprint, ..call.clone() })
}
