//! Engines: sources of paused calls and sinks for decisions. `local` runs agents in-process; remote
//! connectors (Mastra, LangGraph, A2A: [`remote`]) implement the same trait.

pub mod a2a;
pub mod agui;
pub mod chunk;
pub mod kinds;
pub mod langgraph;
pub mod local;
pub mod locks;
pub mod mastra;
pub mod remote;
pub mod send;
pub mod submitted;

use crate::domain::{Decision, DecisionKind, EngineId, Error, PausedCall, QueuedCall};
use async_trait::async_trait;
use serde_json::Value;

/// Where an engine streams what a run does while a decision is delivered (Mastra-shaped chunks).
pub type ChunkSink = tokio::sync::mpsc::UnboundedSender<Value>;

/// A source of paused calls and a sink for decisions.
///
/// Kept free of Mastra-only notions: an engine says which decision kinds a call allows, re-reads a call
/// so the console can check it did not change (C3), and delivers a decision the console made durable
/// in two steps ([`send`]): [`Engine::prepare`] re-reads every call a send would carry, the console
/// compares each with the fingerprint decided, and only then [`Engine::send`] gets the checked value.
#[async_trait]
pub trait Engine: Send + Sync {
    fn id(&self) -> EngineId;

    /// The decision kinds this call allows.
    fn allowed(&self, call: &PausedCall) -> Vec<DecisionKind>;

    /// The call as the engine holds it now; `None` if it is no longer paused there.
    async fn reread(&self, call: &PausedCall) -> Result<Option<PausedCall>, Error>;

    /// Step one of delivering a decision already stored and claimed (`delivering`): every call the
    /// send would carry — the decision's own, and any other decision sent with it — as the engine
    /// holds it now, re-read right here (C3), or why the send waits ([`send::Prepared::wait`]).
    /// Sends nothing. The default: the decision's own call, re-read ([`Engine::reread`]).
    async fn prepare(&self, decision: &Decision, item: &QueuedCall) -> Result<send::Prepared, Error> {
        Ok(send::Prepared::single(decision, item, self.reread(&item.call).await?))
    }

    /// Step two: sends decisions the console checked ([`send::confirm`]: each call as prepared has
    /// the fingerprint decided) and nothing else. The engine records each outcome (through
    /// [`crate::store::outbox::record`]) in the same transaction as its own state change, and streams
    /// what the run does next into `sink`. Answers the outcome of the decision the send was for.
    async fn send(&self, checked: send::Checked, sink: Option<ChunkSink>) -> Result<Value, Error>;

    /// The principal that started the call's run ([`crate::domain::Principal::key`]), if the engine
    /// records it (the local engine: `startedBy`; a remote server does not say). Under a quorum that
    /// principal may not approve the call (the two-person rule).
    async fn started_by(&self, _call: &PausedCall) -> Result<Option<String>, Error> {
        Ok(None)
    }

    /// What led to the call: its conversation's last messages before it, oldest first, as the
    /// engine holds them (issue 27). `None`: the engine keeps no conversation it can tell.
    async fn reason(&self, _call: &PausedCall) -> Result<Option<Vec<crate::domain::reason::ReasonMessage>>, Error> {
        Ok(None)
    }

    /// Checks arguments an operator edited before approving (`DecisionKind::Edit`, for engines that
    /// allow it): against the tool's input schema. Engines that cannot run edited arguments refuse.
    fn check_edit(&self, call: &PausedCall, _args: &Value) -> Result<(), Error> {
        Err(Error::DecisionNotAllowed { kind: DecisionKind::Edit, allowed: self.allowed(call) })
    }

    /// Whether this console delivers the engine's decisions (false for another console's local
    /// engine in team mode: that console does; the outbox here leaves them alone).
    fn delivers_here(&self) -> bool {
        true
    }

    /// Whether the engine itself refuses to act twice on one call, so that a delivery cut short by a
    /// crash may be sent again (a remote server that answers "not suspended" the second time). The
    /// local engine runs tools itself: for it a cut delivery is `interrupted`, never repeated.
    fn refuses_repeats(&self) -> bool {
        false
    }

    /// Whether an interrupted call of this engine can be settled ([`Engine::settle`]): engines that
    /// run tools themselves, whose deliveries a stop can cut short.
    fn settles(&self) -> bool {
        false
    }

    /// Whether a delivery to this call that a stop cut short may have begun to act (its tool may
    /// have run): `false` only when the engine knows it did not, and the decision is then delivered
    /// again at the next start instead of leaving the call `interrupted`. The default: it may have.
    async fn began(&self, _item: &QueuedCall) -> Result<bool, Error> {
        Ok(true)
    }

    /// Whether running this call a second time does no more than the first (its tool is marked
    /// idempotent): an interrupted call of it may then be run again.
    fn idempotent(&self, _call: &PausedCall) -> bool {
        false
    }

    /// Tells the run of an interrupted call what became of it (`result` becomes the tool's result),
    /// records `resolution` (with its audit entry, [`crate::store::resolutions::record`]) in the same
    /// transaction, and lets the run go on.
    async fn settle(&self, item: &QueuedCall, _result: Value, _resolution: &crate::store::resolutions::Stored) -> Result<(), Error> {
        Err(Error::DecisionNotAllowed { kind: DecisionKind::Ran, allowed: self.allowed(&item.call) })
    }
}
