//! The console: one queue over every engine, and the one path every decision takes — checked
//! (pending? same fingerprint, also at the engine?), made durable (queue state, decision row and audit
//! entry in one transaction), then delivered to the engine.

pub mod care;
pub mod decide;
mod deliver;
pub mod expiry;
pub mod grants;
pub mod policy;
pub mod receipts;
pub mod recover;
pub mod remotes;
pub mod resolve;
pub mod shadow;
pub mod supervisor;
pub mod view;

// The change feed is the store's (it reads the database); the console's users find it here too.
pub use crate::store::feed::{Change, Events, QueueEvent};
pub use decide::{Ask, Binding, Decided, Decider, How, StepUps, Target};

use crate::domain::{EngineId, Error, ItemId};
use crate::engine::Engine;
use crate::store::{queue, Db, Topology};
use std::collections::HashMap;
use std::sync::{Arc, RwLock};

/// Cheap to clone.
#[derive(Clone)]
pub struct Console {
    db: Db,
    events: Events,
    engines: Arc<RwLock<HashMap<EngineId, Arc<dyn Engine>>>>,
    outbox_wake: Arc<tokio::sync::Notify>,
    /// Calls about to expire (see [`expiry`]).
    expiring: tokio::sync::broadcast::Sender<expiry::ExpiringSoon>,
    /// Wakes the grants worker for a sweep (a new grant).
    grants_wake: Arc<tokio::sync::Notify>,
    /// Sends of one run, one at a time in this process (see [`Console::send`]).
    sending: Arc<crate::engine::locks::KeyedLocks<(EngineId, crate::domain::RunId)>>,
    /// This console's receipt key (every decision is signed: docs/receipts.md).
    receipts: receipts::Receipts,
    /// Paired devices' step-ups, once the remote listener is on ([`Console::set_step_ups`]).
    step_ups: Arc<RwLock<Option<Arc<dyn decide::StepUps>>>>,
    /// Decisions being delivered after their decider was answered ([`Console::decide_and_deliver`]).
    deliveries: tokio_util::task::TaskTracker,
    /// The homes whose agent files revoking a grant may edit ([`grants::AgentHomes`]).
    agent_homes: Arc<std::sync::RwLock<grants::AgentHomes>>,
}

impl Console {
    /// A console over `db`; `receipts` is its receipt key (named by its local engine's id).
    pub fn new(db: Db, events: Events, engines: Vec<Arc<dyn Engine>>, receipts: receipts::Receipts) -> Self {
        let engines = engines.into_iter().map(|e| (e.id(), e)).collect();
        Self {
            receipts,
            db,
            events,
            engines: Arc::new(RwLock::new(engines)),
            outbox_wake: Arc::default(),
            expiring: tokio::sync::broadcast::channel(256).0,
            grants_wake: Arc::default(),
            sending: Arc::default(),
            step_ups: Arc::default(),
            agent_homes: Arc::new(std::sync::RwLock::new(grants::AgentHomes::of_process())),
            deliveries: {
                // Closed from the start (spawning on it goes on): `deliveries_done` waits until no
                // delivery is left, and concurrent waiters never race to close and reopen it.
                let deliveries = tokio_util::task::TaskTracker::new();
                deliveries.close();
                deliveries
            },
        }
    }

    /// Connects an engine (replacing one with the same id).
    pub fn register(&self, engine: Arc<dyn Engine>) {
        self.engines.write().expect("engines lock").insert(engine.id(), engine);
        self.outbox_wake.notify_one();
    }

    /// Disconnects an engine; its entries stay, undecidable until it is connected again.
    pub fn unregister(&self, id: &EngineId) {
        self.engines.write().expect("engines lock").remove(id);
    }

    pub fn db(&self) -> &Db {
        &self.db
    }

    pub fn events(&self) -> &Events {
        &self.events
    }

    /// This console's receipt key and the key set.
    pub fn receipts(&self) -> &receipts::Receipts {
        &self.receipts
    }

    pub(crate) fn engine(&self, id: &EngineId) -> Result<Arc<dyn Engine>, Error> {
        if let Some(engine) = self.engines.read().expect("engines lock").get(id).cloned() {
            return Ok(engine);
        }
        // Team mode: another console's local engine, known from its calls in the shared queue.
        if self.db.topology() == Topology::Team && crate::engine::kinds::local_instance(id.as_str()).is_some() {
            let peer: Arc<dyn Engine> = Arc::new(crate::engine::local::peer::Peer::new(id.clone(), self.db.clone()));
            self.engines.write().expect("engines lock").insert(id.clone(), peer.clone());
            return Ok(peer);
        }
        Err(Error::Engine(format!("engine {id} is not connected")))
    }

    /// The decision kinds a call allows (none if its engine is not connected): its engine's, less an
    /// approval that [`approve_block`] refuses (and an edit of a call whose arguments are unknown).
    pub fn allowed(&self, call: &crate::domain::PausedCall) -> Vec<crate::domain::DecisionKind> {
        use crate::domain::DecisionKind;
        let mut kinds = self.engine(&call.engine).map(|e| e.allowed(call)).unwrap_or_default();
        match approve_block(call) {
            Some(Error::MissingArguments) => kinds.retain(|k| !matches!(k, DecisionKind::Approve | DecisionKind::Edit)),
            Some(_) => kinds.retain(|k| *k != DecisionKind::Approve),
            None => {}
        }
        kinds
    }

    /// One queue entry with its decision.
    pub async fn item(&self, id: &ItemId) -> Result<queue::Entry, Error> {
        queue::entry(&self.db, id).await?.ok_or_else(|| Error::not_found(format!("queue item {id}")))
    }

    /// The principal that started the call's run, if its engine says (see [`Engine::started_by`]).
    pub async fn started_by(&self, call: &crate::domain::PausedCall) -> Result<Option<String>, Error> {
        self.engine(&call.engine)?.started_by(call).await
    }
}

/// Why a call cannot be approved as it is, if it cannot: its engine did not list its arguments
/// (`missing_arguments`: nobody saw what would run; it can only be declined), or they hold integers
/// the fingerprint cannot tell from their neighbours (`ambiguous_arguments`; decline or
/// edit-then-approve remain).
pub fn approve_block(call: &crate::domain::PausedCall) -> Option<Error> {
    if call.kind != crate::domain::CallKind::Approval {
        return None;
    }
    if call.args.is_null() {
        return Some(Error::MissingArguments);
    }
    let paths = crate::domain::inexact_numbers(&call.args);
    (!paths.is_empty()).then_some(Error::AmbiguousArguments { paths })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{CallKind, PausedCall};
    use serde_json::{json, Value};

    fn call(kind: CallKind, args: Value) -> PausedCall {
        PausedCall { kind, ..PausedCall::sample("t", args) }
    }

    #[test]
    fn an_approval_listed_without_arguments_or_with_inexact_integers_cannot_be_approved() {
        // A remote engine's listing without `args` becomes null arguments.
        assert_eq!(approve_block(&call(CallKind::Approval, Value::Null)).map(|e| e.code()), Some("missing_arguments"));
        assert_eq!(
            approve_block(&call(CallKind::Approval, json!({ "n": 9_007_199_254_740_993u64 }))).map(|e| e.code()),
            Some("ambiguous_arguments")
        );
        assert!(approve_block(&call(CallKind::Approval, json!({ "n": 1 }))).is_none());
        // A suspended call is answered, not approved: Mastra never lists a suspended call's arguments.
        assert!(approve_block(&call(CallKind::Suspend, Value::Null)).is_none());
    }
}
